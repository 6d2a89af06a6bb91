"""RedisStore against a real redis-server (Debian's, started here on a free loopback port and
stopped after): the same contract as MemoryStore, and two stores (two server processes)
sharing one class: seats, numbers and messages."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from attnlab.classroom.store import CHANGES, LEARNERS, SeatsFull
from tests import aio
from tests.redisserver import redis_server

pytestmark = pytest.mark.server  # starts a server process: not in `make check`

A, B, C = "a" * 32, "b" * 32, "c" * 32


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory) -> Iterator[str]:
    pytest.importorskip("redis")
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


def _store(url: str, **bounds):
    from attnlab.classroom.redis_store import RedisStore

    return RedisStore(url, **{"ttl_s": 30, "max_seats": 5, **bounds})


async def _fresh(url: str, **bounds):
    store = _store(url, **bounds)
    await store.client.flushdb()
    return store


def test_two_processes_share_the_seats_and_their_numbers(redis_url: str) -> None:
    async def run() -> list[object]:
        one, two = await _fresh(redis_url), _store(redis_url)
        a = await one.join(A, "")
        b = await two.join(B, "Ada")
        again = await one.join(A, "Bo")
        await two.update(A, tries=("sharpen",), first={"E1": 1})
        seen = sorted((s.number, s.name, s.tries) for s in await one.seats())
        await one.leave(B)
        left = [s.key for s in await two.seats()]
        await one.put("seeds", {"id": "x"})
        value = await two.get("seeds")
        await one.close()
        await two.close()
        return [a.number, b.number, again.number, seen, left, value]

    assert aio.run(run()) == [1, 2, 1, [(1, "Bo", ("sharpen",)), (2, "Ada", ())], [A], {"id": "x"}]


def test_a_message_reaches_the_subscribers_of_every_process(redis_url: str) -> None:
    async def run() -> list[object]:
        import asyncio

        one, two = await _fresh(redis_url), _store(redis_url)
        here, there = one.subscribe(LEARNERS), two.subscribe(LEARNERS)
        other = two.subscribe(CHANGES)
        await one.listening()  # each process's listener has subscribed
        await two.listening()
        await one.publish(LEARNERS, {"type": "show", "n": 1})
        got = [await asyncio.wait_for(s.get(), 5) for s in (here, there)]
        await one.close()
        await two.close()
        return [got, other.queue.qsize()]

    assert aio.run(run()) == [[{"type": "show", "n": 1}] * 2, 0]


def test_the_seats_are_bounded(redis_url: str) -> None:
    async def run() -> bool:
        store = await _fresh(redis_url, max_seats=2)  # seats live 30 s: none expires here
        await store.join(A, "")
        await store.join(B, "")
        try:
            await store.join(C, "")
            full = False
        except SeatsFull:
            full = True
        await store.close()
        return full

    assert aio.run(run()) is True


def test_a_silent_seat_expires(redis_url: str) -> None:
    async def run() -> list[object]:
        import asyncio

        store = await _fresh(redis_url, ttl_s=0.3)
        await store.join(A, "")
        for _ in range(600):  # Redis expires it 0.3 s after the join (polled, ≤ 30 s)
            if not await store.seats():
                break
            await asyncio.sleep(0.05)
        gone = [await store.seats(), await store.update(A, shown=False)]
        await store.close()
        return gone

    assert aio.run(run()) == [[], None]
