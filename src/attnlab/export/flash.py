"""FIG 8 (§5) for slides: FlashAttention's online softmax, one tile of keys at a time.

From `figures.flash` data: left, the n × n scores at the chosen step (held now, dropped, still to
come, skipped above the diagonal, masked) with the followed query row outlined; right, that row's
running maximum m and running sum ℓ tile by tile; memory and the check against full attention in
the title.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from attnlab.export import style

# state -> (colour, legend text); the order follows the data's `states` list
STATE_LOOK: dict[str, tuple[str, str]] = {
    "held": (style.AMBER, "held now (this tile's scores)"),
    "dropped": (style.TEAL, "computed earlier, no longer kept"),
    "pending": ("#f3f4f6", "in a tile still to come"),
    "skipped": ("#d1d5db", "skipped (block above the diagonal)"),
    "masked": ("#9ca3af", "masked inside a computed block"),
}


def draw(fig: Figure, data: dict[str, Any]) -> None:
    grid_ax, m_ax, l_ax = fig.subplot_mosaic([["grid", "m"], ["grid", "l"]],
                                             width_ratios=[1.1, 1]).values()  # fmt: skip
    _grid(grid_ax, data)
    _running(m_ax, l_ax, data)
    style.title(fig, "FlashAttention: the softmax one tile of keys at a time", _headline(data))


def _grid(ax: Any, data: dict[str, Any]) -> None:
    states: list[str] = data["states"]
    index = np.array([[states.index(c) for c in row] for row in data["cells"]])  # (n, n)
    cmap = ListedColormap([STATE_LOOK[s][0] for s in states])
    ax.imshow(index, cmap=cmap, vmin=-0.5, vmax=len(states) - 0.5)
    n, tile, row = data["n"], data["shown"]["tile"], data["shown"]["row"]
    for edge in range(tile, n, tile):  # tile boundaries
        ax.axvline(edge - 0.5, color="white", lw=2.5)
        ax.axhline(edge - 0.5, color="white", lw=2.5)
    ax.add_patch(Rectangle((-0.5, row - 0.5), n, 1, fill=False, ec=style.INK, lw=2.5, zorder=3))
    ax.set_xticks([]), ax.set_yticks([])
    ax.spines[:].set_visible(False)
    ax.set_xlabel("key j (tiles of keys arrive left to right)")
    ax.set_ylabel(f"query i (row {row} outlined)")
    handles = [Patch(facecolor=STATE_LOOK[s][0], edgecolor=style.INK, label=STATE_LOOK[s][1])
               for s in states]  # fmt: skip
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=2,
              frameon=False, fontsize=style.NOTE_SIZE)  # fmt: skip


def _running(m_ax: Any, l_ax: Any, data: dict[str, Any]) -> None:
    """m and ℓ of the followed row after each tile read so far (axes span every tile)."""
    trace, step, T = data["trace"], data["shown"]["step"], data["n_tiles"]
    tiles = np.arange(1, step + 1)
    m = np.array([np.nan if x is None else x for x in trace["m"][:step]], dtype=float)
    grew = np.array(trace["grew"][:step], dtype=bool)
    grew[:1] = False  # the first tile sets m: there was nothing to rescale yet
    for ax, y, colour, label in ((m_ax, m, style.AMBER, "running max m"),
                                 (l_ax, np.array(trace["l"][:step]), style.BLUE,
                                  "running sum ℓ")):  # fmt: skip
        ax.plot(tiles, y, "o-", color=colour, lw=2, ms=5)
        ax.plot(tiles[grew], y[grew], "o", mfc="none", mec=style.RED, ms=11, mew=2)
        ax.set_xlim(0.5, T + 0.5)
        ax.set_xticks(range(1, T + 1) if T <= 16 else range(1, T + 1, 2))
        ax.set_ylabel(label)
        ax.grid(color=style.GRID, lw=0.8)
    m_ax.set_title("row outlined: red ring = m rose, old sums rescaled")
    l_ax.set_xlabel("key tiles read")


def _headline(data: dict[str, Any]) -> str:
    s, mem = {**data["settings"], **data["shown"]}, data["memory"]
    mask = ", causal" if s["causal"] else ""
    return (f"n = {data['n']}, tile {s['tile']}{mask}, step {s['step']} of {data['n_tiles']}: "
            f"{mem['held_now']} scores held (≤ {mem['peak']}; plain: {mem['full']}); "
            f"done vs full softmax: max |Δ| {data['final']['max_abs_diff']:.1e}")  # fmt: skip
