"""§4 part 1, FIG 3 for slides: why the scores are divided by √d_k.

Four panels from `figures.scaling` data: the score histograms over ±40 (scaled and unscaled), one
draw's 16 softmax weights, and the largest weight and the softmax Jacobian's norm against d_k.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from attnlab.export import style


def draw(fig: Figure, data: dict[str, Any]) -> None:
    """2 × 2: histogram, one draw's weights, max weight vs d_k, Jacobian norm vs d_k."""
    (ax_h, ax_w), (ax_m, ax_j) = fig.subplots(2, 2)
    s = data["settings"]
    _histogram(ax_h, data)
    _one_draw(ax_w, data)
    _curve(ax_m, data, "curve_max_weight", "largest weight max αᵢ", "Largest weight vs d_k")
    _curve(ax_j, data, "curve_jacobian_norm", "‖diag(α) − ααᵀ‖",
           "Softmax Jacobian norm vs d_k (gradient flow)")  # fmt: skip
    how = "scaled by 1/√d_k" if s["scaled"] else "not scaled"
    style.title(fig, "Why scores are divided by √d_k",
                f"d_k = {s['d_k']}, {how}: score std {style.fmt(_std(data))}")  # fmt: skip


def _std(data: dict[str, Any]) -> float:
    return data["score_std_scaled"] if data["settings"]["scaled"] else data["score_std_unscaled"]


def _histogram(ax: Axes, data: dict[str, Any]) -> None:
    edges = np.asarray(data["hist_edges"])
    ax.stairs(data["hist_unscaled"], edges, fill=True, color=style.RED, alpha=0.45,
              label=f"q·k (std {style.fmt(data['score_std_unscaled'])})")  # fmt: skip
    ax.stairs(data["hist_scaled"], edges, fill=True, color=style.BLUE, alpha=0.6,
              label=f"q·k / √d_k (std {style.fmt(data['score_std_scaled'])})")  # fmt: skip
    ax.set_xlim(edges[0], edges[-1])
    style.grid(ax)
    ax.legend(loc="upper right")
    ax.set_title(
        f"Scores of {data['n_draws']} draws × {data['n_keys']} keys (beyond ±40: end bins)"
    )
    ax.set_xlabel("score")
    ax.set_ylabel("count")


def _one_draw(ax: Axes, data: dict[str, Any]) -> None:
    w = data["weights_one_draw"]
    colour = style.BLUE if data["settings"]["scaled"] else style.RED
    ax.bar(np.arange(1, len(w) + 1), w, color=colour, edgecolor=style.INK)
    ax.axhline(1 / len(w), color=style.MUTED, ls="--", lw=1, label=f"uniform 1/{len(w)}")
    ax.set_ylim(0, 1.02)
    style.grid(ax)
    ax.legend(loc="upper right")
    ax.set_title(f"One draw's weights (max {max(w):.2f})")
    ax.set_xlabel("key i")
    ax.set_ylabel("weight αᵢ")


def _curve(ax: Axes, data: dict[str, Any], key: str, ylabel: str, title: str) -> None:
    d_k = data["grid_d_k"]
    ax.plot(d_k, data[f"{key}_unscaled"], "o-", color=style.RED, lw=2.5, label="not scaled")
    ax.plot(d_k, data[f"{key}_scaled"], "o-", color=style.BLUE, lw=2.5, label="scaled by 1/√d_k")
    ax.axvline(data["settings"]["d_k"], color=style.AMBER, lw=2, ls="--",
               label=f"d_k = {data['settings']['d_k']}")  # fmt: skip
    style.log_scale(ax, "x", d_k, base=2)
    ax.set_ylim(bottom=0)
    style.grid(ax)
    ax.legend()
    ax.set_title(title)
    ax.set_xlabel("d_k (log scale)")
    ax.set_ylabel(ylabel)
