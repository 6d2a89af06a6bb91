"""§3, FIG 2 for slides: the scene with both models' answers, the error curves, and the trained
model opened (export/trained_model.py: the heads' weights over steps, the colour-match table).

All from `figures.training` data: the display scene (blocks, truth, the attention model's and the
MLP's predictions, attention rings whose width is the weight on each block), the test errors of
the data's `history` (log y), each record's head weights and the model's colour-match table. The
models in the data are those of the given seed before the live training, unless `--train` trained
them; the history is whatever the data carries (often one evaluation).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from attnlab.export import style, trained_model
from attnlab.tabletop.scenes import TABLE_CM


def draw(fig: Figure, data: dict[str, Any]) -> None:
    """Scene | error curves over the heads' weights | the colour-match table."""
    left, middle, right = fig.subfigures(1, 3, width_ratios=[1, 1.1, 0.75])
    _scene(left.subplots(), data)
    ax_e, ax_w = middle.subplots(2, 1, sharex=True)
    _errors(ax_e, data)
    ax_e.set_xlabel("")  # the heads' panel below shares the step axis
    trained_model.heads_over_time(ax_w, data)
    trained_model.colour_match(right, data)
    s = data["settings"]
    task = "fetch p_target" if s["task"] == "fetch" else "vector p_A − p_B"
    heads = f"{s['heads']} head{'s' if s['heads'] > 1 else ''}"
    style.title(fig, "Cross-attention vs a slot MLP on the tabletop",
                f"task {task}, attention with {heads}, seed {s['seed']}")  # fmt: skip


def _scene(ax: Axes, data: dict[str, Any]) -> None:
    scene, pred = data["scene"], data["prediction"]
    xy = np.asarray(scene["positions"])  # (n, 2) cm
    names = [data["colours"][c] for c in scene["colours"]]
    for h, w in enumerate(pred["weights"]):  # one ring per head, thicker = more weight
        ax.scatter(xy[:, 0], xy[:, 1], s=900 + 500 * h, facecolor="none", edgecolor=style.AMBER,
                   linewidths=0.5 + 10 * np.asarray(w), zorder=2)  # fmt: skip
    ax.scatter(xy[:, 0], xy[:, 1], s=300, marker="s", edgecolor=style.INK, zorder=3,
               color=[style.object_colour(name) for name in names])  # fmt: skip
    origin = _answer_origin(data, xy)
    tips = [
        np.asarray(pred[k]) + (0 if origin is None else origin) for k in ("truth", "attn", "mlp")
    ]
    for key, colour, marker, label in (("truth", style.INK, "*", "truth"),
                                       ("attn", style.AMBER, "X", "attention model"),
                                       ("mlp", style.PURPLE, "P", "slot MLP")):  # fmt: skip
        _answer(ax, origin, np.asarray(pred[key]), colour, marker, label)
    # the table, widened when an (untrained) answer lands off it, so every answer stays visible
    lo = min(0.0, float(np.min(tips)) - 5.0)
    hi = max(TABLE_CM, float(np.max(tips)) + 5.0)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.add_patch(Rectangle((0, 0), TABLE_CM, TABLE_CM, fill=False, color=style.MUTED, lw=1.5))
    ax.set_aspect("equal")
    style.grid(ax)
    ax.legend(loc="best", framealpha=0.9)
    target = data["colours"][scene["target"]]
    if data["settings"]["task"] == "vector":
        target = f"A {target}, B {data['colours'][scene['second']]}"
    ax.set_title(f"{len(xy)} blocks, target {target}\nrings: attention weight per head")
    ax.set_xlabel("x (cm)")
    ax.set_ylabel("y (cm)")


def _answer_origin(data: dict[str, Any], xy: np.ndarray) -> np.ndarray | None:
    """Vector answers p_A − p_B are drawn as arrows from block B; fetch answers are points."""
    if data["settings"]["task"] != "vector":
        return None
    second = data["scene"]["colours"].index(data["scene"]["second"])
    return xy[second]


def _answer(ax: Axes, origin: np.ndarray | None, y: np.ndarray, colour: str, marker: str,
            label: str) -> None:  # fmt: skip
    if origin is None:
        ax.scatter(*y, s=380, marker=marker, color=colour, edgecolor="white", zorder=4,
                   label=label)  # fmt: skip
        return
    ax.annotate("", xy=origin + y, xytext=origin,
                arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 2.5})  # fmt: skip
    # the tip also gets the marker: an untrained model's vector can be too short to see
    ax.scatter(*(origin + y), s=200, marker=marker, color=colour, edgecolor="white", zorder=4,
               label=label)  # fmt: skip


def _errors(ax: Axes, data: dict[str, Any]) -> None:
    history = data["history"]
    steps = [h["step"] for h in history]
    lines = (("attn_err_cm", style.AMBER, "-", "attention, 2–5 blocks"),
             ("attn_err6_cm", style.AMBER, "--", "attention, 6 blocks (unseen)"),
             ("mlp_err_cm", style.PURPLE, "-", "slot MLP, 2–5 blocks"),
             ("mlp_err6_cm", style.PURPLE, "--", "slot MLP, 6 blocks (unseen)"))  # fmt: skip
    marker = "o" if len(steps) <= 3 else None  # dots only where there is no line to see
    for key, colour, ls, label in lines:
        ax.plot(steps, [h[key] for h in history], ls=ls, marker=marker, ms=8, lw=2.5,
                color=colour, label=label)  # fmt: skip
    style.log_y(ax, [h[key] for h in history for key, *_ in lines])
    if len(steps) == 1:  # only the untrained evaluation: give the point room on the axis
        ax.set_xlim(-100, max(1000, steps[0] + 100))
    style.grid(ax)
    ax.legend(loc="lower left")  # the curves start high and fall: the corner stays empty
    last = history[-1]
    when = "before training" if last["step"] == 0 else f"at step {last['step']}"
    ax.set_title(f"Test error {when}\nattention {last['attn_err_cm']:.1f} cm · "
                 f"MLP {last['mlp_err_cm']:.1f} cm")  # fmt: skip
    ax.set_xlabel("training step")
    ax.set_ylabel("mean error (cm, log)")
