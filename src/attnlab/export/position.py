"""§4 part 2, FIG 4 for slides: position encodings, and what happens without one.

Four panels from `figures.position` data: the sinusoidal table, one position's similarity to all
others, RoPE on one 2-D pair, and the pooled output of one self-attention layer for a trajectory
and its reverse.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Circle

from attnlab.export import style

PE_NAMES = {"none": "no PE", "sinusoidal": "sinusoidal PE", "rope": "RoPE"}


def draw(fig: Figure, data: dict[str, Any]) -> None:
    """2 × 2: PE heatmap, similarity curve, RoPE pair, pooled outputs."""
    (ax_pe, ax_sim), (ax_rope, ax_pool) = fig.subplots(2, 2)
    _pe_table(fig, ax_pe, data)
    _similarity(ax_sim, data)
    _rope(ax_rope, data)
    _pooled(ax_pool, data)
    style.title(fig, "Position encodings: order is invisible to attention without one")


def _pe_table(fig: Figure, ax: Axes, data: dict[str, Any]) -> None:
    pe = np.asarray(data["pe_table"])  # (64 positions, d_pe)
    image = ax.imshow(pe, cmap="PuOr_r", vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
    ax.axhline(data["settings"]["p"], color=style.AMBER, lw=2)
    # an inset colour bar sits against the map; a gridspec one would be pushed right by the
    # RoPE panel's outside legend in the same column
    fig.colorbar(image, cax=ax.inset_axes((1.02, 0.0, 0.025, 1.0)), label="PE value")
    ax.set_title(f"Sinusoidal table PE (d = {data['d_pe']})")
    ax.set_xlabel("dimension")
    ax.set_ylabel("position")


def _similarity(ax: Axes, data: dict[str, Any]) -> None:
    p = data["settings"]["p"]
    sim = data["similarity"]
    ax.plot(range(len(sim)), sim, color=style.BLUE, lw=2.5)
    ax.axvline(p, color=style.AMBER, ls="--", lw=2, label=f"p = {p}")
    style.grid(ax)
    ax.legend(loc="lower right")
    ax.set_title(f"Similarity PE(p)·PE(p′) / (d/2) of position {p}")
    ax.set_xlabel("position p′")
    ax.set_ylabel("similarity")


def _rope(ax: Axes, data: dict[str, Any]) -> None:
    s = data["settings"]
    arrows = [
        (s["q"], style.AMBER, 0.3, "q"),
        (s["k"], style.PURPLE, 0.3, "k"),
        (data["rope_q_m"], style.AMBER, 1.0, f"q rotated to m = {s['m']}"),
        (data["rope_k_n"], style.PURPLE, 1.0, f"k rotated to n = {s['n']}"),
    ]
    for v, colour, alpha, label in arrows:
        ax.annotate("", xy=v, xytext=(0, 0), arrowprops={
            "arrowstyle": "-|>", "color": colour, "lw": 2.5, "alpha": alpha})  # fmt: skip
        ax.plot([], [], color=colour, alpha=alpha, lw=2.5, label=label)  # legend entry
    reach = max(1.2, float(np.abs(np.array([a[0] for a in arrows])).max()) * 1.2)
    ax.add_patch(Circle((0, 0), 1.0, fill=False, color=style.MUTED, ls=":", lw=1))
    ax.set_xlim(-reach, reach)
    ax.set_ylim(-reach, reach)
    ax.set_aspect("equal")
    style.grid(ax)
    ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
    ax.set_title(f"RoPE (ω = {data['rope_omega']}): q_m·k_n = {data['rope_score']:.3f} "
                 f"(unrotated {data['rope_score_unrotated']:.3f})")  # fmt: skip


def _pooled(ax: Axes, data: dict[str, Any]) -> None:
    original = np.asarray(data["pooled_original"])
    reversed_ = np.asarray(data["pooled_reversed"])
    i = np.arange(len(original))
    ax.bar(i - 0.2, original, width=0.4, color=style.BLUE, label="trajectory")
    ax.bar(i + 0.2, reversed_, width=0.4, color=style.AMBER, label="reversed")
    ax.axhline(0, color=style.INK, lw=0.8)
    style.grid(ax)
    ax.margins(y=0.25)  # headroom for the legend
    ax.legend(loc="upper right", ncols=2)
    ax.set_xticks(i, [str(j + 1) for j in i])
    pe = PE_NAMES[data["settings"]["pe"]]
    ax.set_title(f"Pooled output, {pe}: max |Δ| = {data['pooled_diff_max_abs']:.2g}")
    ax.set_xlabel("output dimension")
    ax.set_ylabel("mean over tokens")
