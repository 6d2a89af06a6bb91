"""RedisStore: the class shared by every server process (`attnlab serve --store redis://H:P`).

Copies of the server behind nginx each hold their own learners' sockets, so the class itself
must live outside them: a seat is one Redis key (its JSON) with a TTL, refreshed on every
report (a copy that dies leaves nothing behind for long); seat numbers come from INCR; what
the teacher sends everyone and "a seat changed" go through Redis pub/sub to every copy, where
one listener hands them to that copy's subscriptions (bounded, as in MemoryStore).
Debian's `redis-server` and the `redis` client (`pip install "attnlab[redis]"`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from attnlab.classroom.seats import Seat
from attnlab.classroom.store import SeatsFull, Subscription, Topics

PREFIX = "attnlab:class:"
VALUE_TTL_S = 6 * 3600  # the experiment outlives no school day
LISTEN_S = 10.0  # how long `listening` waits for the listener's subscription before going on


class RedisStore:
    """The ClassStore interface on a Redis server at `url` (redis://HOST:PORT[/DB])."""

    def __init__(self, url: str, *, ttl_s: float, max_seats: int) -> None:
        import redis.asyncio as redis  # only a shared class needs it

        if ttl_s <= 0 or max_seats < 1:
            raise ValueError("a class store needs ttl_s > 0 and max_seats ≥ 1")
        self.client = redis.from_url(url, decode_responses=True)
        self.ttl_ms, self.max_seats = int(1000 * ttl_s), max_seats
        self._topics = Topics()
        self._listener: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()  # the listener's PSUBSCRIBE was answered

    async def join(self, key: str, name: str) -> Seat:
        seat = await self._seat(key)
        if seat is not None:
            return await self.update(key, name=name) or seat
        if len(await self._keys()) >= self.max_seats:
            raise SeatsFull(f"all {self.max_seats} seats are taken")
        seat = Seat(key=key, number=int(await self.client.incr(f"{PREFIX}numbers")), name=name)
        await self._write(seat)
        return seat

    async def update(self, key: str, **fields: Any) -> Seat | None:
        seat = await self._seat(key)
        if seat is None:
            return None
        for name, value in fields.items():
            setattr(seat, name, value)
        await self._write(seat)
        return seat

    async def leave(self, key: str) -> None:
        await self.client.delete(f"{PREFIX}seat:{key}")

    async def seats(self) -> list[Seat]:
        keys = await self._keys()
        found = await self.client.mget(keys) if keys else []
        return [Seat.from_dict(json.loads(raw)) for raw in found if raw]

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        await self.client.publish(f"{PREFIX}{topic}", json.dumps(message))

    async def put(self, name: str, value: dict[str, Any] | None) -> None:
        if value is None:
            await self.client.delete(f"{PREFIX}value:{name}")
        else:
            await self.client.set(f"{PREFIX}value:{name}", json.dumps(value), ex=VALUE_TTL_S)

    async def get(self, name: str) -> dict[str, Any] | None:
        raw = await self.client.get(f"{PREFIX}value:{name}")
        return None if raw is None else json.loads(raw)

    def subscribe(self, topic: str) -> Subscription:
        self._start_listener()
        return self._topics.subscribe(topic)

    async def listening(self) -> None:
        """Once the listener has subscribed: Redis drops a message published before, so a seat
        told before then could miss what the teacher sent meanwhile. A Redis that does not
        answer is waited for LISTEN_S at most (the listener's failure is logged where it ends)."""
        listener = self._start_listener()
        subscribed = asyncio.ensure_future(self._subscribed.wait())
        try:
            await asyncio.wait(
                {listener, subscribed}, timeout=LISTEN_S, return_when="FIRST_COMPLETED"
            )
        finally:
            subscribed.cancel()

    def _start_listener(self) -> asyncio.Task[None]:
        if self._listener is None:
            self._listener = asyncio.get_running_loop().create_task(self._listen())
        return self._listener

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        await self.client.aclose()

    async def _listen(self) -> None:
        """One pub/sub connection for this process; each message to its topic's subscriptions."""
        pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        await pubsub.psubscribe(f"{PREFIX}*")
        self._subscribed.set()
        try:
            async for message in pubsub.listen():
                topic = str(message.get("channel", "")).removeprefix(PREFIX)
                self._topics.deliver(topic, json.loads(message["data"]))
        finally:
            await pubsub.aclose()

    async def _keys(self) -> list[str]:
        return [k async for k in self.client.scan_iter(match=f"{PREFIX}seat:*", count=500)]

    async def _seat(self, key: str) -> Seat | None:
        raw = await self.client.get(f"{PREFIX}seat:{key}")
        return None if raw is None else Seat.from_dict(json.loads(raw))

    async def _write(self, seat: Seat) -> None:
        text = json.dumps(seat.to_dict())
        await self.client.set(f"{PREFIX}seat:{seat.key}", text, px=self.ttl_ms)
