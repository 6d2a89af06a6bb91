"""`classroom.py --teacher`: the class with a teacher's page open (issue 20).

Every reader is also a seat: it opens /ws/class, says hello, and reports as a page does (its
status and its progress, one more try-it ticked every few seconds), while one teacher's socket
(/ws/teach) takes every update of the class at a glance. `create_app` is the lesson's app with
a teacher token, for uvicorn's --factory.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from websockets.asyncio.client import connect

from attnlab.classroom.lessonids import lesson_ids
from attnlab.web import WebSettings
from attnlab.web import create_app as lesson_app

TEACHER = "benchmark-teacher-token-0123456789"
REPORT_EVERY_S = 3.0  # a seat's page reports this often here (a page: on each change, ≥ 15 s)


def create_app() -> Any:
    return lesson_app(WebSettings(teacher_token=TEACHER))


async def seat(base: str, k: int, seconds: float, tally: Any) -> None:
    """Reader k's page as a seat: hello, then a status and its progress every few seconds."""
    url = base.replace("http://", "ws://") + "/ws/class"
    tries = [i for i, _ in lesson_ids().tries]
    end = time.monotonic() + seconds
    try:
        async with connect(url, open_timeout=30, close_timeout=2) as ws:
            await ws.send(json.dumps({"type": "hello", "seat": f"{k + 1:032x}"}))
            n = 0
            while time.monotonic() < end:
                n += 1
                await ws.send(json.dumps({"type": "status", "shown": True}))
                done = tries[: n % (len(tries) + 1)]
                await ws.send(json.dumps({"type": "progress", "tries": done}))
                tally.class_reports += 2
                await asyncio.sleep(min(REPORT_EVERY_S, max(0.0, end - time.monotonic())))
    except Exception as err:
        tally.errors.append(f"class socket: {type(err).__name__}: {err}")


async def teacher(base: str, seconds: float, tally: Any) -> None:
    """The teacher's page: reads every update of the class until time is up."""
    url = base.replace("http://", "ws://") + "/ws/teach"
    end = time.monotonic() + seconds
    headers = {"authorization": f"Bearer {TEACHER}"}
    try:
        async with connect(url, open_timeout=30, close_timeout=2, additional_headers=headers) as ws:
            while (left := end - time.monotonic()) > 0:
                try:
                    text = await asyncio.wait_for(ws.recv(), left)
                except TimeoutError:
                    break
                tally.teacher_messages += 1
                tally.teacher_bytes += len(text)
                tally.teacher_joined = max(tally.teacher_joined, json.loads(text)["joined"])
    except Exception as err:
        tally.errors.append(f"teacher socket: {type(err).__name__}: {err}")


def jobs(base: str, n: int, seconds: float, tally: Any) -> list[Any]:
    return [teacher(base, seconds, tally), *(seat(base, k, seconds, tally) for k in range(n))]


def report(tally: Any, seconds: float) -> None:
    print(f"  teacher's page: {tally.teacher_messages / seconds:.1f} updates/s "
          f"({tally.teacher_bytes / max(tally.teacher_messages, 1) / 1024:.1f} KiB each), "
          f"{tally.teacher_joined} seats seen, {tally.class_reports / seconds:.0f} "
          "seat reports/s in")  # fmt: skip
