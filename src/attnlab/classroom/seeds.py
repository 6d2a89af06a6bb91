""" "One seed each": the class as one experiment on FIG 2.

The teacher picks a task, heads and steps; each seat gets its own seed (first, first + 1, …
in seat order), so the class together runs `attnlab train --task T --heads H --seed FIRST
--sweep N --steps S`. Each learner's FIG 2 trains its seed to S through the training pool and
reports its final errors; the server trains the same seeds with the sweep (`tabletop.sweep`,
the same engine) and the teacher's page sets them side by side. They agree exactly: a seed's
curve is the same number for number however it is batched (tested in tabletop and trainpool),
and the numbers cross JSON as shortest round-trip decimals, so nothing is lost on the way.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from attnlab.classroom.seats import Seat
from attnlab.params import Param, ParamError, validate
from attnlab.tabletop.sweep import GOAL_CM, MAX_SWEEP
from attnlab.tabletop.trainer import PARAMS

SEEDS = "seeds"  # the store's name for the running experiment
SWEEP = "sweep"  # and for the server's own sweep of its seeds
STEPS = Param("steps", "int", 1500, "steps each seed trains", lo=25, hi=5000)
ERRORS = ("attn_err_cm", "mlp_err_cm")
PLAN_PARAMS = (*PARAMS, STEPS)  # what the teacher chooses (the seed is the first of the class)


def plan(raw: dict[str, Any], numbers: Sequence[int]) -> dict[str, Any]:
    """{task, heads, seed (the first), steps} and the seats → the message every page gets."""
    settings = validate(PLAN_PARAMS, raw, "json")
    if not numbers:
        raise ParamError("seats", "no learner has joined yet")
    if len(numbers) > MAX_SWEEP:
        raise ParamError("seats", f"one seed each works for at most {MAX_SWEEP} learners")
    first = settings["seed"]
    seeds = {str(n): first + i for i, n in enumerate(sorted(numbers))}
    return {"type": "seeds", "id": secrets.token_hex(6), "task": settings["task"],
            "heads": settings["heads"], "steps": settings["steps"], "first_seed": first,
            "seeds": seeds}  # fmt: skip


def command(experiment: dict[str, Any]) -> str:
    """The terminal command that trains the same seeds."""
    e = experiment
    return (f"attnlab train --task {e['task']} --heads {e['heads']} --seed {e['first_seed']} "
            f"--sweep {len(e['seeds'])} --steps {e['steps']}")  # fmt: skip


def accept(experiment: dict[str, Any] | None, number: int, report: Any) -> dict[str, Any]:
    """A seat's report (messages.Result) checked against the experiment: its own seed, the
    experiment's step count; ParamError if it is not this seat's result of this experiment."""
    if experiment is None or report.id != experiment["id"]:
        raise ParamError("id", "not the experiment that is running")
    if experiment["seeds"].get(str(number)) != report.seed:
        raise ParamError("seed", "not the seed this seat was given")
    if report.step != experiment["steps"]:
        raise ParamError("step", f"expected the final step, {experiment['steps']}")
    return {"seed": report.seed, **{k: getattr(report, k) for k in ERRORS}}


def sweep_rows(result: Any) -> dict[str, dict[str, Any]]:
    """A SweepResult as {seed: {final errors, how it failed}} for the store (plain JSON)."""
    failed = {f["seed"]: f["how"] for f in result.failures()}
    return {
        str(seed): {**{k: s["final"][k] for k in ERRORS}, "how": failed.get(seed)}
        for seed, s in zip(result.seeds, result.summaries, strict=True)
    }


def class_results(
    experiment: dict[str, Any] | None, seats: list[Seat], sweep: dict[str, Any] | None
) -> dict[str, Any] | None:
    """What the teacher's chart draws: each seat's result beside the sweep's for its seed."""
    if experiment is None:
        return None
    reference = (sweep or {}).get("rows", {}) if (sweep or {}).get("id") == experiment["id"] else {}
    goal = GOAL_CM[experiment["task"]]
    rows = []
    for seat in sorted(seats, key=lambda s: s.number):
        seed = experiment["seeds"].get(str(seat.number))
        if seed is None or seat.result is None or seat.result["seed"] != seed:
            continue
        ref = reference.get(str(seed))
        rows.append({"number": seat.number, "name": seat.name, **seat.result,
                     "attention_wins": seat.result["attn_err_cm"] < seat.result["mlp_err_cm"],
                     "failed": seat.result["attn_err_cm"] >= goal, "sweep": ref,
                     "agrees": None if ref is None else all(
                         ref[k] == seat.result[k] for k in ERRORS)})  # fmt: skip
    wins = sum(r["attention_wins"] for r in rows)
    return {**{k: experiment[k] for k in ("id", "task", "heads", "steps", "first_seed")},
            "seats": len(experiment["seeds"]), "goal_cm": goal, "command": command(experiment),
            "results": rows, "share_attention_wins": wins / len(rows) if rows else None,
            "failing": [r["seed"] for r in rows if r["failed"]],
            "sweep_ready": bool(reference),
            "agree": sum(r["agrees"] is True for r in rows)}  # fmt: skip
