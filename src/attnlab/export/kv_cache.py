"""FIG 6 (§4 part 4) for slides: the mask decides who sees whom, the cache what a step costs.

One panel from `figures.kv_cache` data: the 14 × 14 attention matrix at the chosen pass, each
cell coloured by its state (future, masked, computed now, cached, stale); counts in the title.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from attnlab.export import style

# state -> (colour, legend text); the order follows the data's `states` list
STATE_LOOK: dict[str, tuple[str, str]] = {
    "future": ("#f3f4f6", "future (not generated yet)"),
    "masked": ("#9ca3af", "masked (may not attend)"),
    "computed": (style.AMBER, "computed in this pass"),
    "cached": (style.TEAL, "reused from the KV cache"),
    "stale": (style.RED, "stale (cache is wrong here)"),
}


def draw(fig: Figure, data: dict[str, Any]) -> None:
    """The cell-state grid, queries down, keys across, with a state legend."""
    ax = fig.subplots()
    states: list[str] = data["states"]
    index = np.array([[states.index(c) for c in row] for row in data["cells"]])  # (14, 14)
    cmap = ListedColormap([STATE_LOOK[s][0] for s in states])
    ax.imshow(index, cmap=cmap, vmin=-0.5, vmax=len(states) - 0.5)
    n = len(data["tokens"])
    ax.set_xticks(range(n), data["tokens"])
    ax.set_yticks(range(n), data["tokens"])
    ax.set_xticks(np.arange(n + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(n + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", lw=1.5)
    ax.tick_params(which="minor", length=0)
    ax.spines[:].set_visible(False)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel("key (attended token)")
    ax.set_ylabel("query (token computing its output)")
    handles = [Patch(facecolor=STATE_LOOK[s][0], edgecolor=style.INK, label=STATE_LOOK[s][1])
               for s in states]  # fmt: skip
    ax.legend(handles=handles, loc="center left", bbox_to_anchor=(1.04, 0.5), frameon=False,
              fontsize=style.LABEL_SIZE)  # fmt: skip
    style.title(fig, "Who attends to whom, and what each step computes", _headline(data))


def _headline(data: dict[str, Any]) -> str:
    s = data["settings"]
    step = "prefill" if s["step"] == 0 else f"action a{s['step']}"
    cache = "with KV cache" if s["cache"] else "no cache"
    line = (f"{s['mask']} mask, {cache}, pass {step}: {data['count_now']} dot products now, "
            f"{data['count_so_far']} so far, {data['count_total']} in all")  # fmt: skip
    if data["stale_now"]:
        line += f", {data['stale_now']} stale"
    return line
