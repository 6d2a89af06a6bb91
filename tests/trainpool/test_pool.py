"""The server's side of the workers: a worker that dies is replaced and its sessions start again."""

from __future__ import annotations

import asyncio
import json

from attnlab.tabletop import TrainConfig
from attnlab.trainpool.pool import RESTARTED, TrainPool


async def _until(queue: asyncio.Queue, done) -> list[dict]:
    out: list[dict] = []
    while not out or not done(out[-1]):
        out.append(await asyncio.wait_for(queue.get(), 30))
    return out


def test_a_dead_worker_is_replaced_and_its_sessions_start_again_at_step_0() -> None:
    pool = TrainPool(1, frame_s=0.04)
    pool.start()
    try:

        async def scenario() -> None:
            got: asyncio.Queue = asyncio.Queue()
            sink = lambda text, ended: got.put_nowait(json.loads(text))  # noqa: E731
            sid = pool.open(TrainConfig(seed=3), (1000, 500), asyncio.get_running_loop(), sink)
            await _until(got, lambda m: m["type"] == "progress")
            pool.command(sid, "run", None, 0)
            await _until(got, lambda m: m["type"] == "progress" and m["step"] > 0)
            dead = pool._workers[0]
            dead.process.kill()
            after = await _until(got, lambda m: m["type"] == "state" and m["step"] == 0)
            assert {"type": "error", "code": "internal", "message": RESTARTED} in after
            assert pool._workers[0] is not dead and pool._workers[0].process.is_alive()
            assert after[-1]["config"]["seed"] == 3  # the same setting, from step 0
            pool.command(sid, "run", 25, 0)  # and it trains again
            await _until(got, lambda m: m["type"] == "progress" and m["step"] == 25)
            pool.close(sid)

        asyncio.run(scenario())
    finally:
        pool.stop()
