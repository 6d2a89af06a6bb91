"""§2, FIG 1 for slides: attention as a soft dictionary lookup on the 80 cm table.

Three panels from `figures.lookup` data: the key space (query arrow, keys with their scores),
the table with the values, ŷ and lines whose width is each weight α_i, and the weights as bars.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Circle

from attnlab.export import style


def draw(fig: Figure, data: dict[str, Any]) -> None:
    """Key space | table | weights, titled with the mode and ŷ."""
    ax_k, ax_t, ax_w = fig.subplots(1, 3, width_ratios=[1, 1, 0.8])
    colours = [style.object_colour(c) for c in data["colours"]]
    _key_space(ax_k, data, colours)
    _table(ax_t, data, colours)
    _weights(ax_w, data, colours)
    mode = (
        "soft lookup (softmax)" if data["settings"]["mode"] == "softmax" else "hard lookup (argmax)"
    )
    rule = "Σᵢ αᵢ vᵢ" if data["settings"]["mode"] == "softmax" else "v of the best key"
    style.title(fig, f"Attention as a {mode}", f"ŷ = {rule} = {style.vec(data['output'])} cm")


def _key_space(ax: Axes, data: dict[str, Any], colours: list[str]) -> None:
    k = np.asarray(data["keys"])  # (5, 2)
    q = np.asarray(data["settings"]["q"])  # (2,)
    ax.add_patch(_circle())
    ax.annotate("", xy=q, xytext=(0, 0),
                arrowprops={"arrowstyle": "-|>", "color": style.AMBER, "lw": 3})  # fmt: skip
    ax.text(*(q * 1.06), "q", color=style.AMBER, fontsize=style.LABEL_SIZE + 2, fontweight="bold")
    for k_i, s_i, c in zip(k, data["scores"], colours, strict=True):
        ax.scatter(*k_i, s=220, color=c, edgecolor=style.INK, zorder=3)
        ax.annotate(f"s = {s_i:+.2f}", k_i, xytext=(8, 8), textcoords="offset points",
                    fontsize=style.NOTE_SIZE)  # fmt: skip
    reach = max(1.3, float(np.abs(np.vstack([k, q])).max()) * 1.25)
    ax.set_xlim(-reach, reach)
    ax.set_ylim(-reach, reach)
    ax.set_aspect("equal")
    style.grid(ax)
    ax.set_title(f"Key space: sᵢ = q·kᵢ / √{data['d']}")
    ax.set_xlabel("key dimension 1")
    ax.set_ylabel("key dimension 2")


def _circle() -> Circle:
    return Circle((0, 0), 1.0, fill=False, color=style.MUTED, linestyle=":", lw=1)


def _table(ax: Axes, data: dict[str, Any], colours: list[str]) -> None:
    v = np.asarray(data["values"])  # (5, 2) cm
    y = np.asarray(data["output"])
    w = np.asarray(data["weights"])
    for v_i, w_i, c in zip(v, w, colours, strict=True):
        ax.plot(*zip(y, v_i, strict=True), color=style.AMBER, lw=0.5 + 8 * w_i, alpha=0.8, zorder=2)
        ax.scatter(*v_i, s=260, marker="s", color=c, edgecolor=style.INK, zorder=3)
        ax.annotate(f"α = {w_i:.2f}", v_i, xytext=_away(v_i - y), textcoords="offset points",
                    ha="center", va="center", fontsize=style.NOTE_SIZE)  # fmt: skip
    ax.scatter(*y, s=420, marker="*", color=style.AMBER, edgecolor=style.INK, zorder=4,
               label="ŷ (output)")  # fmt: skip
    table = data["table_cm"]
    ax.set_xlim(0, table)
    ax.set_ylim(0, table)
    ax.set_aspect("equal")
    style.grid(ax)
    ax.legend(loc="upper left")
    ax.set_title("Table: values vᵢ and ŷ (line width = αᵢ)")
    ax.set_xlabel("x (cm)")
    ax.set_ylabel("y (cm)")


def _away(direction: np.ndarray) -> tuple[float, float]:
    """A label offset (points) on the far side of a value from ŷ, so labels miss the lines."""
    norm = float(np.hypot(*direction))
    unit = direction / norm if norm > 1e-9 else np.array([0.0, -1.0])
    return (float(unit[0] * 34), float(unit[1] * 24))


def _weights(ax: Axes, data: dict[str, Any], colours: list[str]) -> None:
    w = data["weights"]
    names = data["colours"]
    bars = ax.bar(names, w, color=colours, edgecolor=style.INK)
    ax.bar_label(bars, labels=[f"{x:.2f}" for x in w], fontsize=style.NOTE_SIZE)
    ax.set_ylim(0, 1.08)
    style.grid(ax)
    ax.set_title("Weights αᵢ (sum to 1)")
    ax.set_xlabel("object")
    ax.set_ylabel("weight α")
