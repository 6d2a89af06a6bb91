"""FIG 2's trained model opened, for slides: the heads' weights over steps, the colour-match table.

Both panels read `figures.training` data only: `history` (each record's `head_weight`) and
`colour_match` (tabletop/colour_match.py: a centred block's score per instruction colour and block
colour, one 6 × 6 part for fetch, A's and B's parts for the vector task).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import SubFigure
from matplotlib.patches import Rectangle

from attnlab.export import style

PARTS = {1: ("fetch",), 2: ("A", "B")}  # the table's parts: which colour of the instruction


def heads_over_time(ax: Axes, data: dict[str, Any]) -> None:
    """Each head's mean weight on the target (fetch), or on A (solid) and B (dashed)."""
    history = data["history"]
    steps = [r["step"] for r in history]
    w = np.array([r["head_weight"] for r in history])  # (T, H) fetch; (T, H, 2) vector
    vector = w.ndim == 3
    marker = "o" if len(steps) <= 3 else None
    for h in range(w.shape[1]):
        colour = style.HEAD_COLOURS[h % len(style.HEAD_COLOURS)]
        if not vector:
            ax.plot(steps, w[:, h], color=colour, lw=2.5, marker=marker, label=f"head {h + 1}")
            continue
        for j, (obj, ls) in enumerate((("A", "-"), ("B", "--"))):
            ax.plot(steps, w[:, h, j], color=colour, ls=ls, lw=2.5, marker=marker,
                    label=f"head {h + 1} on {obj}")  # fmt: skip
    ax.set_ylim(0, 1.02)
    if len(steps) == 1:
        ax.set_xlim(-100, max(1000, steps[0] + 100))
    style.grid(ax)
    ax.legend(loc="center right", ncol=1 if w.shape[1] <= 2 else 2)
    ax.set_title("Each head's mean weight on " + ("A and on B" if vector else "the target"))
    ax.set_xlabel("training step")
    ax.set_ylabel("mean attention weight")


def colour_match(sub: SubFigure, data: dict[str, Any]) -> None:
    """One heat map per head and part: rows the instruction's colour, columns the block's; the
    row's highest score ringed (the engine's `row_peaks`)."""
    readout, names = data["colour_match"], data["colours"]
    table = np.asarray(readout["table"])  # (H, P, 6, 6)
    heads, parts = table.shape[:2]
    limit = float(np.abs(table).max()) or 1.0
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-limit, vmax=limit)
    axes = sub.subplots(heads, parts, squeeze=False)
    for h in range(heads):
        for p in range(parts):
            image = _part(axes[h, p], table[h, p], readout["row_peaks"][h][p], norm, names)
            who = PARTS[parts][p]
            part = "" if who == "fetch" else f" · rows: {who}"
            axes[h, p].set_title(f"head {h + 1}{part}", fontsize=style.NOTE_SIZE)
    sub.colorbar(image, ax=axes, shrink=0.6, label="score q·k/√d_k")
    sub.suptitle("Colour match: a centred block's score\nrow: instruction colour · column: "
                 "block\nring: the row's highest score", fontsize=style.NOTE_SIZE + 1)  # fmt: skip


def _part(ax: Axes, part: np.ndarray, peaks: list[int], norm: TwoSlopeNorm,
          names: list[str]) -> Any:  # fmt: skip
    image = ax.imshow(part, cmap="PuOr_r", norm=norm, interpolation="nearest")
    for row, col in enumerate(peaks):  # the row's peak: where its softmax puts the most weight
        ax.scatter(col, row, s=60, facecolor="none", edgecolor=style.INK, linewidths=1.5)
    n = len(names)
    for i, name in enumerate(names):  # colour swatches instead of names: they read at a glance
        swatch = {"facecolor": style.object_colour(name), "edgecolor": style.INK, "lw": 0.5,
                  "clip_on": False}  # fmt: skip
        ax.add_patch(Rectangle((i - 0.4, n - 0.35), 0.8, 0.7, **swatch))  # under each column
        ax.add_patch(Rectangle((-1.45, i - 0.4), 0.7, 0.8, **swatch))  # left of each row
    ax.set_xlim(-1.5, n - 0.5)
    ax.set_ylim(n + 0.4, -0.5)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.spines[:].set_visible(False)
    return image
