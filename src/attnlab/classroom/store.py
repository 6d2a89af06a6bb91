"""ClassStore: where the class's seats live and how a message reaches every server process.

The interface is small so that a shared store can implement it (Redis: a hash per seat with a
TTL, INCR for seat numbers, pub/sub for the topics); `MemoryStore` is the default for one
server process, kept in memory only: nothing about a learner outlives the process.
Topics: LEARNERS (what the teacher sends every page: "show everyone") and CHANGES (a seat
changed: teachers' views redraw). A subscription holds at most SUBSCRIPTION_BOUND messages;
past that the oldest is dropped (a reader that stalls loses old news, never grows the memory).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol

from attnlab.classroom.seats import Seat

LEARNERS = "learners"
CHANGES = "changes"
SUBSCRIPTION_BOUND = 64


class SeatsFull(Exception):
    """Every seat is taken (`max_seats`)."""


class Subscription:
    """Messages of one topic for one reader, bounded; `get()` waits for the next."""

    def __init__(self, bound: int = SUBSCRIPTION_BOUND) -> None:
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(bound)
        self.closers: list[Callable[[], None]] = []

    def put(self, message: dict[str, Any]) -> None:
        if self.queue.full():
            self.queue.get_nowait()  # the oldest goes
        self.queue.put_nowait(message)

    async def get(self) -> dict[str, Any]:
        return await self.queue.get()

    def close(self) -> None:
        for close in self.closers:
            close()


class Topics:
    """This process's subscriptions, by topic: what a store delivers here goes to each."""

    def __init__(self) -> None:
        self.readers: dict[str, set[Subscription]] = {}

    def subscribe(self, topic: str) -> Subscription:
        subscription = Subscription()
        readers = self.readers.setdefault(topic, set())
        readers.add(subscription)
        subscription.closers.append(lambda: readers.discard(subscription))
        return subscription

    def deliver(self, topic: str, message: dict[str, Any]) -> None:
        for subscription in list(self.readers.get(topic, ())):
            subscription.put(message)


class ClassStore(Protocol):
    async def join(self, key: str, name: str) -> Seat:
        """The seat of page `key` (its number kept if it already has one); SeatsFull."""

    async def update(self, key: str, **fields: Any) -> Seat | None:
        """Change a seat's fields and keep it alive; None if it has expired."""

    async def leave(self, key: str) -> None: ...

    async def seats(self) -> list[Seat]:
        """Every live seat."""

    async def publish(self, topic: str, message: dict[str, Any]) -> None: ...

    async def put(self, name: str, value: dict[str, Any] | None) -> None:
        """Keep one plain value under `name` for the class (the running experiment)."""

    async def get(self, name: str) -> dict[str, Any] | None: ...

    def subscribe(self, topic: str) -> Subscription: ...

    async def listening(self) -> None:
        """Returns once what is published from now on reaches this process's subscriptions."""

    async def close(self) -> None: ...


class MemoryStore:
    """The class in this process's memory: seats expire `ttl_s` after they were last heard."""

    def __init__(
        self, *, ttl_s: float, max_seats: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if ttl_s <= 0 or max_seats < 1:
            raise ValueError("a class store needs ttl_s > 0 and max_seats ≥ 1")
        self.ttl_s, self.max_seats, self.clock = ttl_s, max_seats, clock
        self._seats: dict[str, tuple[Seat, float]] = {}
        self._numbers = 0
        self._topics = Topics()
        self._values: dict[str, dict[str, Any]] = {}

    async def join(self, key: str, name: str) -> Seat:
        self._expire()
        if key in self._seats:
            return await self.update(key, name=name) or self._seats[key][0]
        if len(self._seats) >= self.max_seats:
            raise SeatsFull(f"all {self.max_seats} seats are taken")
        self._numbers += 1
        seat = Seat(key=key, number=self._numbers, name=name)
        self._seats[key] = (seat, self.clock())
        return seat

    async def update(self, key: str, **fields: Any) -> Seat | None:
        self._expire()
        if key not in self._seats:
            return None
        seat = self._seats[key][0]
        for name, value in fields.items():
            setattr(seat, name, value)
        self._seats[key] = (seat, self.clock())
        return seat

    async def leave(self, key: str) -> None:
        self._seats.pop(key, None)

    async def seats(self) -> list[Seat]:
        self._expire()
        return [seat for seat, _ in self._seats.values()]

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        self._topics.deliver(topic, message)

    async def put(self, name: str, value: dict[str, Any] | None) -> None:
        if value is None:
            self._values.pop(name, None)
        else:
            self._values[name] = value

    async def get(self, name: str) -> dict[str, Any] | None:
        return self._values.get(name)

    def subscribe(self, topic: str) -> Subscription:
        return self._topics.subscribe(topic)

    async def listening(self) -> None:
        return  # one process: a subscription hears what is published from the moment it is made

    async def close(self) -> None:
        self._seats.clear()
        self._topics.readers.clear()
        self._values.clear()

    def _expire(self) -> None:
        oldest = self.clock() - self.ttl_s
        for key in [k for k, (_, seen) in self._seats.items() if seen < oldest]:
            del self._seats[key]
