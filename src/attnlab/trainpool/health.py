"""Whether live training can take learners now: the training part of `GET /healthz`.

Read from what the service already holds (its start-up task, its capacity, whether each worker
process runs), never by asking the workers: a probe every few seconds must cost nothing and
must answer even while every worker is busy training or a dead one is being replaced.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Literal

State = Literal["starting", "ok", "degraded"]


@dataclass(frozen=True)
class TrainingHealth:
    """One server process's training service (with `serve --workers N` each has its own).

    state: "starting" while the workers spawn and time themselves (the capacity is not known
        yet), "ok" when every worker runs and the capacity is known, "degraded" when a worker
        is not running (one that died is being replaced) or the workers failed to start.
    workers / workers_alive: worker processes this server process runs, and how many run now.
    capacity: sessions that may train at once (None until measured at start-up).
    open_sessions: models held in the workers; training / queued: slots held, learners waiting.
    problem: why it is degraded (None otherwise).
    """

    state: State
    workers: int
    workers_alive: int
    capacity: int | None
    open_sessions: int
    training: int
    queued: int
    problem: str | None = None


def training_state(
    starting: asyncio.Task[None] | None, capacity_known: bool, workers: int, alive: int
) -> tuple[State, str | None]:
    """(state, problem) from the start-up task, whether the capacity is known, and the workers."""
    if starting is not None and starting.done() and not starting.cancelled():
        error = starting.exception()  # also marks it retrieved: no "never retrieved" warning
        if error is not None:
            return "degraded", f"the training workers failed to start: {error!r}"
    if not capacity_known:
        return "starting", None
    if alive < workers:
        return "degraded", f"{workers - alive} of {workers} training worker processes not running"
    return "ok", None
