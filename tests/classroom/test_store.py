"""The in-memory class store: seats numbered once, forgotten after the TTL or on leaving,
bounded in count; a topic's subscribers each get every message, at most a bounded backlog."""

from __future__ import annotations

import pytest

from attnlab.classroom.store import CHANGES, LEARNERS, MemoryStore, SeatsFull
from tests import aio

A, B, C = "a" * 32, "b" * 32, "c" * 32


class Clock:
    def __init__(self) -> None:
        self.now = 10.0

    def __call__(self) -> float:
        return self.now


def test_a_page_keeps_its_seat_number_and_a_new_page_gets_the_next() -> None:
    async def run() -> list[int]:
        store = MemoryStore(ttl_s=30, max_seats=5)
        a = await store.join(A, "")
        b = await store.join(B, "Ada")
        again = await store.join(A, "Bo")  # a reconnect: the same seat, the new name
        return [a.number, b.number, again.number, len(await store.seats()), again.name == "Bo"]

    assert aio.run(run()) == [1, 2, 1, 2, True]


def test_a_seat_not_heard_from_for_the_ttl_is_forgotten() -> None:
    async def run() -> list[object]:
        clock = Clock()
        store = MemoryStore(ttl_s=30, max_seats=5, clock=clock)
        await store.join(A, "")
        await store.join(B, "")
        clock.now += 20
        kept = await store.update(B, shown=False)  # B is heard from, A is not
        clock.now += 20
        live = [s.key for s in await store.seats()]
        return [kept is not None, live, await store.update(A, shown=True)]

    assert aio.run(run()) == [True, [B], None]


def test_seats_are_bounded_and_leaving_frees_one() -> None:
    async def run() -> int:
        store = MemoryStore(ttl_s=30, max_seats=2)
        await store.join(A, "")
        await store.join(B, "")
        with pytest.raises(SeatsFull):
            await store.join(C, "")
        await store.leave(A)
        return (await store.join(C, "")).number

    assert aio.run(run()) == 3


def test_each_subscriber_gets_each_message_of_its_topic_and_a_stalled_one_is_bounded() -> None:
    async def run() -> list[object]:
        store = MemoryStore(ttl_s=30, max_seats=2)
        one, two, other = (
            store.subscribe(LEARNERS),
            store.subscribe(LEARNERS),
            store.subscribe(CHANGES),
        )
        await store.publish(LEARNERS, {"n": 1})
        got = [(await one.get())["n"], (await two.get())["n"], other.queue.qsize()]
        for n in range(200):  # `one` reads nothing more
            await store.publish(LEARNERS, {"n": n})
        two.close()
        await store.publish(LEARNERS, {"n": -1})
        return [*got, one.queue.qsize(), (await one.get())["n"], two.queue.qsize()]

    assert aio.run(run()) == [1, 1, 0, 64, 137, 64]


def test_a_store_needs_a_positive_ttl_and_at_least_one_seat() -> None:
    with pytest.raises(ValueError):
        MemoryStore(ttl_s=0, max_seats=1)
    with pytest.raises(ValueError):
        MemoryStore(ttl_s=1, max_seats=0)
