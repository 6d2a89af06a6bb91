"""What one figure request costs the server's CPU, measured at start-up (issue 19).

The stated capacity counts the readers dragging figures beside the learners training
(`attnlab.trainpool.capacity.while_dragging`), so it needs the CPU one figure request takes, in
two measured parts:

- the answer: a drag moves one setting of a figure already drawn (its weights and scenes are
  built, their caches warm), so each figure is computed twice at its defaults and the second is
  timed, compute and JSON, on this thread's CPU clock; the mean over the figures (a reader
  drags any of them);
- the app around it (the guard, routing, the error or JSON response): an in-process request for
  a figure that does not exist passes all of it and computes nothing; the median of a few, on
  the process's CPU clock (the app may hand work to another thread).

uvicorn's own parsing and socket writes are not in it; `benchmarks/classroom.py` prints the
server's CPU per request it measured beside this.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Iterable
from typing import Any

from attnlab.figures import figure_json

NO_FIGURE = "/api/figures/no-such-figure"  # the app's whole path to a 404, nothing computed
STACK_RUNS = 5


def answer_cpu_s(name: str) -> float:
    """This thread's CPU seconds for one warm answer of figure `name` at its defaults."""
    figure_json(name)  # warms the figure's caches, as a drag finds them
    start = time.thread_time()
    figure_json(name)  # what the route computes and writes
    return time.thread_time() - start


async def get_status(app: Any, path: str) -> int:
    """One GET through the ASGI `app` as the lesson's own page sends it; its status."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "headers": [(b"host", b"127.0.0.1")], "client": ("127.0.0.1", 0),
        "server": ("127.0.0.1", 0),
    }  # fmt: skip
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return int(sent[0]["status"])


def stack_cpu_s(app: Any) -> float:
    """The process's CPU seconds for one request through `app` that computes nothing (run
    where no event loop is running: the start-up thread)."""

    async def timed() -> list[float]:
        costs = []
        for _ in range(STACK_RUNS + 1):  # the first builds the app's middleware stack
            start = time.process_time()
            await get_status(app, NO_FIGURE)
            costs.append(time.process_time() - start)
        return costs[1:]

    return statistics.median(asyncio.run(timed()))


def figure_request_cpu_s(names: Iterable[str], app: Any = None) -> float:
    """CPU seconds of one figure request: the mean warm answer over `names`, plus the app's
    own stack when `app` is given."""
    costs = [answer_cpu_s(name) for name in names]
    if not costs:
        raise ValueError("no figures to measure")
    return sum(costs) / len(costs) + (stack_cpu_s(app) if app is not None else 0.0)
