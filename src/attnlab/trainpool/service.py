"""Training as a shared service of one app: the worker pool, the slots, the stated capacity.

`start()` (the app's start-up) spawns the pool in a thread and logs the capacity; a socket
or a capacity request that comes first waits for it (`ready()`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from attnlab.trainpool.admission import Admission
from attnlab.trainpool.capacity import Capacity, class_load, derive, pool_size, usable_cpus
from attnlab.trainpool.health import TrainingHealth, training_state
from attnlab.trainpool.pool import TrainPool, shared_pool

# uvicorn's own logger: the one its console shows at INFO (the capacity is for the teacher)
log = logging.getLogger("uvicorn.error")


class TrainingService:
    def __init__(
        self,
        *,
        frame_s: float,
        workers: int | None = None,
        capacity: int | None = None,
        server_processes: int = 1,
        factory: Any = None,
        request_cost: Callable[[], float] | None = None,
    ) -> None:
        """request_cost(): the CPU seconds of one figure request (`attnlab.web.readercost`),
        measured once the pool has started, so that the capacity counts readers too."""
        self.cpus, self.server_processes = usable_cpus(), server_processes
        self._chosen_capacity = capacity
        self._request_cost = request_cost
        size = pool_size(self.cpus, server_processes, workers)
        self.pool: TrainPool = shared_pool(size, frame_s=frame_s, factory=factory)
        self.admission = Admission(capacity or 1)
        self.capacity: Capacity | None = None
        self._starting: asyncio.Task[None] | None = None
        self.conversations: set[Any] = set()  # the open training sockets (changed on the loop)

    def start(self) -> None:
        """Begin starting the pool (on the running loop) without waiting for it."""
        if self._starting is None:
            self._starting = asyncio.get_running_loop().create_task(self._start())

    async def _start(self) -> None:
        await asyncio.to_thread(self.pool.start)
        # after the pool's own measurement, so that neither slows the other
        cost = await asyncio.to_thread(self._request_cost) if self._request_cost else 0.0
        self.capacity = derive(
            cpus=self.cpus,
            server_processes=self.server_processes,
            workers=self.pool.size,
            steps_per_s=self.pool.steps_per_s()[0],
            stacked_steps_per_s=self.pool.steps_per_s()[1],
            chosen=self._chosen_capacity,
            figure_request_cpu_s=cost,
        )
        self.admission.capacity = self.capacity.capacity
        log.info(self.capacity.sentence())

    def stop(self) -> None:
        """The app stops: a start still under way is not waited for (the pool is shared)."""
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()

    @property
    def open_sockets(self) -> int:
        return len(self.conversations)

    async def going_away(self) -> None:
        """The server stops: every open training socket is closed with 1001 (going away)."""
        closing = [c.going_away() for c in list(self.conversations)]
        await asyncio.gather(*closing, return_exceptions=True)

    async def ready(self) -> Capacity:
        self.start()
        assert self._starting is not None
        await asyncio.shield(self._starting)
        assert self.capacity is not None
        return self.capacity

    async def stats(self, readers: int = 0) -> dict[str, Any]:
        """GET /api/training/capacity: what the server can do and what it is doing, with
        `readers` pages open (`class_load`: the capacity while they drag)."""
        capacity = await self.ready()
        active, queued = len(self.admission.holders), len(self.admission.line)
        return {
            **capacity.to_dict(),
            "active": active,
            "queued": queued,
            "open_sockets": self.open_sockets,
            **class_load(
                capacity, readers=readers, trainers=active + queued, paced=self.pool.paced_rates()
            ),
        }

    def health(self) -> TrainingHealth:
        """GET /healthz's training part: from what is held here, without asking the workers."""
        alive = self.pool.workers_alive()
        state, problem = training_state(
            self._starting, self.capacity is not None, self.pool.size, alive
        )
        return TrainingHealth(
            state=state,
            workers=self.pool.size,
            workers_alive=alive,
            capacity=None if self.capacity is None else self.capacity.capacity,
            open_sessions=self.pool.open_sessions(),
            training=len(self.admission.holders),
            queued=len(self.admission.line),
            problem=problem,
        )
