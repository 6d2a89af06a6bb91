"""trainpool.health: the training state from the start-up task, the capacity and the workers."""

from __future__ import annotations

import asyncio

from attnlab.trainpool.health import training_state
from tests import aio


def _states() -> dict[str, tuple[str, str | None]]:
    async def finished() -> None:
        return None

    async def failing() -> None:
        raise OSError("spawn refused")

    async def scenario() -> dict[str, tuple[str, str | None]]:
        done, failed = asyncio.create_task(finished()), asyncio.create_task(failing())
        pending = asyncio.create_task(asyncio.sleep(60))
        await asyncio.wait([done, failed])
        out = {
            "never started": training_state(None, False, 2, 0),
            "spawning": training_state(pending, False, 2, 0),
            "up": training_state(done, True, 2, 2),
            "one died": training_state(done, True, 2, 1),
            "failed": training_state(failed, False, 2, 0),
        }
        pending.cancel()
        await asyncio.gather(pending, return_exceptions=True)
        out["stopped while spawning"] = training_state(pending, False, 2, 0)
        return out

    return aio.run(scenario())


def test_each_state_and_its_reason() -> None:
    states = _states()
    assert states["never started"] == states["spawning"] == ("starting", None)
    assert states["stopped while spawning"] == ("starting", None)
    assert states["up"] == ("ok", None)
    assert states["one died"] == ("degraded", "1 of 2 training worker processes not running")
    state, problem = states["failed"]
    assert state == "degraded" and "spawn refused" in problem
