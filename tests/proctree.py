"""A process and its descendants, read from /proc (Linux; psutil is not a dependency).

For tests that must prove every process they started has ended: `descendants(pid)` lists the
tree below a process, `alive(pid)` treats a zombie as ended (it has exited; only its status
waits to be read), `wait_gone(pids, timeout_s)` polls until none is alive.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path

RESOURCE_TRACKER = "multiprocessing.resource_tracker"  # in its command line


def _stat(pid: int) -> tuple[str, int] | None:
    """(state letter, parent pid) of a live or zombie process; None if there is none."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text.rsplit(")", 1)[1].split()  # the name, in parentheses, may hold spaces
    return fields[0], int(fields[1])


def alive(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def parent(pid: int) -> int | None:
    stat = _stat(pid)
    return None if stat is None else stat[1]


def children(pid: int) -> list[int]:
    """Live children of `pid`."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and parent(int(entry.name)) == pid and alive(int(entry.name)):
            out.append(int(entry.name))
    return sorted(out)


def descendants(pid: int) -> list[int]:
    """Live children of `pid`, their children, and so on (one scan of /proc)."""
    below: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and alive(int(entry.name)):
            ppid = parent(int(entry.name))
            if ppid is not None:
                below.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in below.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return sorted(out)


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except (FileNotFoundError, ProcessLookupError):
        return ""


def wait_gone(pids: Iterable[int], timeout_s: float) -> list[int]:
    """Poll until none of `pids` is alive or `timeout_s` has passed; those still alive."""
    pids, deadline = list(pids), time.monotonic() + timeout_s
    while (left := [p for p in pids if alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left


def kill_all(pids: Iterable[int]) -> None:
    """SIGKILL whatever is left (a test's clean-up, after its assertions)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
