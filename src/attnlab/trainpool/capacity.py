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
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from typing import Any

from attnlab.tabletop.trainer import WATCH_PACE

UTILISATION = 0.75


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
    watch_pace: int = WATCH_PACE

    def to_dict(self) -> dict[str, Any]:
        rates = {k: round(getattr(self, k), 1) for k in ("steps_per_s", "stacked_steps_per_s")}
        return {**asdict(self), **rates}

    def sentence(self) -> str:
        how = "derived" if self.derived else "set"
        return (
            f"training: {self.worker_processes} worker processes ({self.cpus} cores, "
            f"{self.server_processes} server processes), one trainer {self.steps_per_s:.0f} "
            f"steps/s alone, {self.stacked_steps_per_s:.0f} stacked: capacity {self.capacity} "
            f"sessions at {self.watch_pace} steps/s ({how})"
        )


def derive(
    *,
    cpus: int,
    server_processes: int,
    workers: int,
    steps_per_s: float,
    stacked_steps_per_s: float,
    chosen: int | None,
) -> Capacity:
    cores = min(workers, cpus / max(1, server_processes))
    sessions = max(1, math.floor(cores * stacked_steps_per_s * UTILISATION / WATCH_PACE))
    return Capacity(
        cpus=cpus,
        server_processes=server_processes,
        worker_processes=workers,
        steps_per_s=steps_per_s,
        stacked_steps_per_s=stacked_steps_per_s,
        capacity=chosen if chosen is not None else sessions,
        derived=chosen is None,
    )
