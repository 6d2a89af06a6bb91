"""The socket's receive side: a bounded inbox, and no reading while it is full."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from attnlab.web.training_socket import read_into, utf8_size


class EndlessPage:
    """A page that sends as fast as it is read."""

    def __init__(self) -> None:
        self.read = 0

    async def receive(self) -> dict:
        self.read += 1
        return {"type": "websocket.receive", "text": '{"type": "pause"}'}


def test_a_full_inbox_stops_the_reading() -> None:
    async def scenario() -> int:
        page, inbox = EndlessPage(), asyncio.Queue(4)
        reader = asyncio.create_task(read_into(page, inbox))
        for _ in range(50):
            await asyncio.sleep(0)
        reader.cancel()
        assert inbox.full()
        return page.read

    # in a thread of its own: the browser tests leave an event loop running in this one
    with ThreadPoolExecutor(1) as pool:
        read = pool.submit(asyncio.run, scenario()).result(timeout=30)
    assert read == 5  # four queued and one waiting for room: then no more


def test_sizes_are_counted_in_utf8_bytes() -> None:
    assert utf8_size("abc", 100) == 3
    assert utf8_size("é" * 10, 100) == 20
    assert utf8_size("中" * 10, 100) == 30
    assert utf8_size("x" * 200, 100) > 100  # past the limit in characters: not encoded
