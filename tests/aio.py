"""Run a coroutine to its end from a test, whatever loop the test process already runs.

Playwright's sync API (the e2e tests) keeps an event loop running in the main thread for the
rest of the session, and `asyncio.run` refuses to start inside one: so it runs in a thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def in_thread(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` in a thread of its own (no event loop running there); its result or error."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = fn(*args)
        except BaseException as err:  # handed to the caller below
            out["error"] = err

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def run(coro: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(coro)` on a fresh loop in its own thread."""
    return in_thread(asyncio.run, coro)
