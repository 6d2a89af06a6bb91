"""How many readers can train at once: derived from the machine, stated, never guessed.

A session at the page's watch pace needs `WATCH_PACE` steps a second. A worker process
measures when it starts how many steps a second it gives a session: one trainer alone
(`steps_per_s`), and each trainer of a stack of four of one setting (`stacked_steps_per_s`):
sessions of one task and head count train stacked, sharing their NumPy calls. A class follows
the lesson, so most of its sessions share a setting, and the capacity counts on the stacked
rate. A share `UTILISATION` of it goes to training (the rest: predictions, messages, the figure
routes on the same cores). A server process owns 1/server_processes of the usable cores
(uvicorn's multi-process mode runs several, each with its own pool), so

    workers  = max(1, cpus // server_processes)
    capacity = max(1, ⌊min(workers, cpus / server_processes) · stacked · UTILISATION / 200⌋)

Readers drag figures on the same cores (issue 19): each figure request costs the server
`figure_request_cpu_s` (measured at start, `attnlab.web.readercost`) and a dragging reader
asks `DRAG_REQUESTS_PER_S` of them a second, so R readers take R · rate · cost cores first:

    while_dragging(R) = ⌊max(0, cores − R · rate · cost) · stacked · UTILISATION / 200⌋

That is an estimate, from costs measured at start. What the paced sessions get is measured as
well, all the time (each worker times its sessions' frames, `worker.Run.frame_done`). When some
session gets less than PACE_SHARE of its pace, the machine is doing all it can, whatever the
estimate said (readers dragging harder than the start-up request, other programs, a slower
spell), and the capacity stated is what the workers deliver at the watch pace:

    delivered = max(1, ⌊Σ steps/s the paced sessions get / 200⌋)
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from attnlab.tabletop.trainer import WATCH_PACE

UTILISATION = 0.75
# A reader dragging sends a figure request at most once an answer has come (lib/latest.js); the
# class this is stated for drags about every 100 ms (benchmarks/classroom.py's reader).
DRAG_REQUESTS_PER_S = 10.0
PACE_SHARE = 0.95  # a session getting this share of its pace (190 of 200 steps/s) is at pace


def usable_cpus() -> int:
    """Cores this process may run on (its affinity mask, which containers narrow)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def pool_size(cpus: int, server_processes: int = 1, chosen: int | None = None) -> int:
    """Worker processes for one server process: its share of the cores, or what was chosen."""
    return chosen if chosen is not None else max(1, cpus // max(1, server_processes))


@dataclass(frozen=True)
class Capacity:
    """What the server states at start-up and at GET /api/training/capacity."""

    cpus: int
    server_processes: int
    worker_processes: int
    steps_per_s: float  # one trainer alone in one worker, measured at start
    stacked_steps_per_s: float  # each trainer of a stack of four, measured at start
    capacity: int  # sessions that may train at once at the watch pace
    derived: bool  # False when WebSettings chose the capacity
    figure_request_cpu_s: float = 0.0  # one figure answer, measured at start (0: not measured)
    drag_requests_per_s: float = DRAG_REQUESTS_PER_S
    watch_pace: int = WATCH_PACE

    def to_dict(self) -> dict[str, Any]:
        rates = {k: round(getattr(self, k), 1) for k in ("steps_per_s", "stacked_steps_per_s")}
        return {
            **asdict(self),
            **rates,
            "figure_request_cpu_s": round(self.figure_request_cpu_s, 6),
        }

    def sentence(self) -> str:
        how = "derived" if self.derived else "set"
        return (
            f"training: {self.worker_processes} worker processes ({self.cpus} cores, "
            f"{self.server_processes} server processes), one trainer {self.steps_per_s:.0f} "
            f"steps/s alone, {self.stacked_steps_per_s:.0f} stacked: capacity {self.capacity} "
            f"sessions at {self.watch_pace} steps/s ({how}); a figure request takes "
            f"{1000 * self.figure_request_cpu_s:.1f} ms CPU, so a reader dragging "
            f"({self.drag_requests_per_s:g} a second) takes "
            f"{reader_cores(1, self.figure_request_cpu_s, self.drag_requests_per_s):.3f} cores"
        )


def training_cores(cpus: int, server_processes: int, workers: int) -> float:
    """The cores one server process's trainers may use: its workers, within its share."""
    return min(workers, cpus / max(1, server_processes))


def sessions_on(cores: float, stacked_steps_per_s: float) -> int:
    """Sessions that `cores` train at the watch pace (0 when they are all taken)."""
    return math.floor(max(0.0, cores) * stacked_steps_per_s * UTILISATION / WATCH_PACE)


def reader_cores(readers: int, request_cpu_s: float, rate: float = DRAG_REQUESTS_PER_S) -> float:
    """The cores `readers` dragging take: figure requests a second times the CPU of each."""
    return max(0, readers) * rate * max(0.0, request_cpu_s)


def while_dragging(capacity: Capacity, readers: int) -> int:
    """Learners who train at the watch pace while `readers` drag (a chosen capacity stays)."""
    if not capacity.derived:
        return capacity.capacity
    c = capacity
    dragging = reader_cores(readers, c.figure_request_cpu_s, c.drag_requests_per_s)
    cores = training_cores(c.cpus, c.server_processes, c.worker_processes)
    return sessions_on(cores - dragging, c.stacked_steps_per_s)


def delivered(paced: Sequence[tuple[float, int]]) -> dict[str, Any]:
    """What the paced sessions get, from their workers' reports [(steps/s, pace), …]: how many,
    how many fall behind their pace, and — when some do — the sessions the steps they get would
    train at the watch pace (else None: nothing says the machine is full)."""
    behind = sum(rate < PACE_SHARE * pace for rate, pace in paced)
    steps = round(sum(rate for rate, _ in paced), 1)  # as stated, so the floor below agrees
    return {
        "paced_trainers": len(paced),
        "behind_pace": behind,
        "delivered_steps_per_s": steps,
        # at least 1, as the capacity derived at start: a reader alone on a slow machine,
        # at 180 steps/s, is one learner training, not a class over a capacity of 0
        "capacity_delivered": max(1, math.floor(steps / WATCH_PACE)) if behind else None,
    }


def class_load(
    capacity: Capacity,
    *,
    readers: int,
    trainers: int,
    paced: Sequence[tuple[float, int]] = (),
) -> dict[str, Any]:
    """The class against the capacity while it drags (GET /api/training/capacity, presence).

    readers: pages open (each tab says so, `attnlab.web.presence`); trainers: sessions training
    or in line. A learner's page is a reader too, so the class is the larger of the two (a
    trainer whose client sends no presence, a script, still counts through its socket).
    paced: what the paced sessions get, measured (`delivered`); when some fall behind, the
    capacity while dragging is no more than what they get (a capacity set by hand stays).
    """
    measured = delivered(paced)
    dragging = while_dragging(capacity, readers)
    if capacity.derived and measured["capacity_delivered"] is not None:
        dragging = min(dragging, measured["capacity_delivered"])
    size = max(readers, trainers)
    return {
        "readers": readers,
        "trainers": trainers,
        "reader_cores": round(
            reader_cores(readers, capacity.figure_request_cpu_s, capacity.drag_requests_per_s), 3
        ),
        "capacity_while_dragging": dragging,
        "class_size": size,
        "over_capacity": size > dragging,
        **measured,
    }


def derive(
    *,
    cpus: int,
    server_processes: int,
    workers: int,
    steps_per_s: float,
    stacked_steps_per_s: float,
    chosen: int | None,
    figure_request_cpu_s: float = 0.0,
) -> Capacity:
    cores = training_cores(cpus, server_processes, workers)
    sessions = max(1, sessions_on(cores, stacked_steps_per_s))
    return Capacity(
        cpus=cpus,
        server_processes=server_processes,
        worker_processes=workers,
        steps_per_s=steps_per_s,
        stacked_steps_per_s=stacked_steps_per_s,
        capacity=chosen if chosen is not None else sessions,
        derived=chosen is None,
        figure_request_cpu_s=figure_request_cpu_s,
    )
