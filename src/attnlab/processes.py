"""TEMPORARY stand-in (lead's branch); replaced by the workers branch's module at merge."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from typing import Any


def spawn_context() -> Any:
    return multiprocessing.get_context("spawn")


def watch_parent(interval_s: float = 0.25) -> None:
    parent = multiprocessing.parent_process()
    want = parent.pid if parent is not None else os.getppid()

    def watch() -> None:
        while os.getppid() == want:
            time.sleep(interval_s)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def stop_processes(procs: Any, *, timeout_s: float) -> None:
    end = time.monotonic() + timeout_s
    for p in procs:
        if p.pid is not None:
            p.join(max(0.0, end - time.monotonic()))
    for p in procs:
        if p.pid is not None and p.is_alive():
            p.kill()
            p.join(1)
