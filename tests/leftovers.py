"""The suite leaves nothing running: a session-end check for processes the tests started.

At the start of the session every process the suite will start is marked: a variable in this
process's environment (`SESSION_MARK`), which every child inherits — servers, training workers,
Chromium, nginx, their children in turn. When the session ends (every fixture torn down), any
live process still carrying this session's mark was left behind: the run fails and names it,
and the check ends it so it does not outlive the run.

One process is allowed to remain: multiprocessing's resource tracker started by pytest itself,
which ends when pytest does (it watches its pipe from this process).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from pathlib import Path

SESSION_MARK = "ATTNLAB_TEST_SESSION"
GRACE_S = 3.0  # children asked to stop in a fixture's teardown may take a moment to exit


def mark_session(*, inherit: bool = False) -> str:
    """Mark this process, and so everything it starts from now on, as this session's; with
    `inherit`, keep the mark this process was started with (an xdist worker: one mark for the
    whole run, checked once by the process that started the workers)."""
    if inherit and os.environ.get(SESSION_MARK):
        return os.environ[SESSION_MARK]
    os.environ[SESSION_MARK] = mark = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
    return mark


def marked(mark: str) -> list[int]:
    """Live processes (not zombies) carrying `mark`, except this one and its resource tracker."""
    needle = f"{SESSION_MARK}={mark}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        pid = int(entry)
        with contextlib.suppress(OSError):
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            if needle in environ.split(b"\0") and _alive(pid) and not _own_tracker(pid):
                found.append(pid)
    return found


def leftovers(mark: str, grace_s: float = GRACE_S) -> dict[int, str]:
    """Marked processes still alive after `grace_s`: {pid: command line}; each is then killed."""
    end = time.monotonic() + grace_s
    while (left := marked(mark)) and time.monotonic() < end:
        time.sleep(0.1)
    named = {pid: command_line(pid) for pid in left}
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return named


def command_line(pid: int) -> str:
    with contextlib.suppress(OSError):
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        return raw.replace(b"\0", b" ").decode(errors="replace").strip()[:160]
    return "?"


def _stat(pid: int) -> list[str]:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()  # after "pid (comm) ": state, ppid, …


def _alive(pid: int) -> bool:
    return _stat(pid)[0] not in ("Z", "X")


def _own_tracker(pid: int) -> bool:
    return int(_stat(pid)[1]) == os.getpid() and "resource_tracker" in command_line(pid)
