""" "One seed each" for a slide: each seat's final errors (attention, MLP) by seed, the sweep's
for the same seeds as rings around them, the goal as a line. From the teacher's view's own
numbers (`classroom.seeds.class_results`); nothing is recomputed here.
"""

from __future__ import annotations

import io
from typing import Any

from matplotlib import rc_context
from matplotlib.figure import Figure

from attnlab.export import style


def png(experiment: dict[str, Any]) -> bytes:
    """The slide as PNG bytes (16:9)."""
    with rc_context(style.RC):
        fig = Figure(figsize=style.FIGSIZE, dpi=style.DPI, layout="constrained")
        draw(fig, experiment)
        out = io.BytesIO()
        fig.savefig(out, format="png")
    return out.getvalue()


def draw(fig: Figure, experiment: dict[str, Any]) -> None:
    ax = fig.subplots()
    rows = experiment["results"]
    seeds = [r["seed"] for r in rows]
    for key, colour, label in (("attn_err_cm", style.AMBER, "attention"),
                               ("mlp_err_cm", style.PURPLE, "MLP")):  # fmt: skip
        ax.scatter(seeds, [r[key] for r in rows], s=70, color=colour, label=f"{label} (class)",
                   zorder=3)  # fmt: skip
        swept = [(r["seed"], r["sweep"][key]) for r in rows if r["sweep"]]
        if swept:
            ring = {"s": 220, "facecolors": "none", "edgecolors": colour, "linewidths": 1.5}
            ax.scatter(*zip(*swept, strict=True), **ring, label=f"{label} (train --sweep)")
    ax.axhline(experiment["goal_cm"], color=style.MUTED, linestyle="--", linewidth=1)
    values = [r[k] for r in rows for k in ("attn_err_cm", "mlp_err_cm")] or [1.0, 10.0]
    style.log_y(ax, [*values, experiment["goal_cm"]])
    style.grid(ax)
    ax.set_xlabel("seed (one per learner)")
    ax.set_ylabel("final test error (cm)")
    ax.legend(loc="upper right", frameon=False)
    share = experiment["share_attention_wins"]
    won = "—" if share is None else f"{100 * share:.0f}%"
    failing = ", ".join(map(str, experiment["failing"])) or "none"
    style.title(fig, "One seed each: the class as one experiment",
                f"{experiment['command']} · attention wins in {won} of {len(rows)} seeds · "
                f"failing seeds: {failing}")  # fmt: skip
