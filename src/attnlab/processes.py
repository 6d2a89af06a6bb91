"""Child processes, in one place: how they start, how they notice their parent is gone, how
they are stopped.

Every child is spawned, never forked: the server is threaded, and a fork copies locks held by
other threads. Every child's entry point calls `as_child()` first:

- it watches its parent (`watch_parent`) and ends itself once the parent is gone, however the
  parent died (SIGKILL and crashes run no clean-up, so the parent cannot be relied on);
- it ignores SIGINT: Ctrl+C in a terminal signals the whole foreground process group, and the
  parent, not the terminal, stops its children, in order (SIGTERM keeps its default: die);
- it logs warnings to stderr, so a crash in a child says why.

A parent stops its children with `stop_processes` (ask, then terminate, then kill), and runs
work in parallel with `map_in_processes`, which leaves no child behind whatever happens.

On POSIX every spawn also starts (once) multiprocessing's resource tracker, a child of the
first spawner that ignores SIGINT and SIGTERM; it ends when the last process holding its pipe
ends, that is with the last of our processes, orphans included.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import pickle
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.context import SpawnContext
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from attnlab.logs import LineFormatter, log_thread_exceptions

__all__ = [
    "ChunkFailed",
    "Stopped",
    "as_child",
    "map_in_processes",
    "spawn_context",
    "stop_processes",
    "watch_parent",
]

WATCH_S = 0.25  # how often a child looks for its parent: an orphan ends within about this
GRACE_S = 0.5  # after terminate(), and again after kill(), how long a process is waited for
ORPHANED = 70  # a child's exit status when it ended because its parent had gone (EX_SOFTWARE)
STOP_POLL_S = 0.1  # how often `map_in_processes` looks at its `stop` event
LOG_FORMAT = "%(processName)s[%(process)d] %(levelname)s %(name)s: %(message)s"


T = TypeVar("T")
R = TypeVar("R")


def spawn_context() -> SpawnContext:
    """The context every child is made with: spawn, as forking a threaded server is unsafe."""
    return multiprocessing.get_context("spawn")


def watch_parent(interval_s: float = WATCH_S) -> threading.Thread:
    """End this process (os._exit) as soon as the process that started it is gone.

    The parent's pid is the one multiprocessing recorded when it created this process, not
    `os.getppid()` now: a parent that died before this runs would otherwise be missed. An
    orphan is re-parented (to 1 or a subreaper), so a changed `getppid()` means the parent has
    gone. `os._exit` needs no lock and no cooperation from a main thread that may be blocked.

    Not prctl(PR_SET_PDEATHSIG): it fires when the parent *thread* that spawned this process
    ends, and our parents spawn from short-lived threads (a pool's start-up thread, the reader
    thread that replaces a dead worker), which would kill healthy children.
    """
    parent = multiprocessing.parent_process()
    parent_pid = parent.pid if parent is not None else os.getppid()

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(interval_s)
        os._exit(ORPHANED)

    thread = threading.Thread(target=watch, daemon=True, name="attnlab-parent-watch")
    thread.start()
    return thread


def as_child(*, interval_s: float = WATCH_S) -> None:
    """What every child's entry point does first (see the module's docstring)."""
    watch_parent(interval_s)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=logging.WARNING, format=LOG_FORMAT)  # no-op if already set up
    for handler in logging.getLogger().handlers:  # a child's traceback is one line too
        handler.setFormatter(LineFormatter(LOG_FORMAT))
    log_thread_exceptions()


def stop_processes(procs: Iterable[BaseProcess], *, timeout_s: float) -> None:
    """Wait for `procs` to end, all within one deadline `timeout_s` from now; terminate those
    still alive, then kill those that outlive GRACE_S more. Returns within about
    timeout_s + 2 × GRACE_S; processes already ended, or never started, are fine.

    The caller has asked them to stop already (a "stop" command, a closed pipe) if it wanted a
    clean end; timeout_s=0 stops them at once.
    """
    alive = [p for p in procs if _started(p)]
    for signal_them, wait_s in ((None, timeout_s), ("terminate", GRACE_S), ("kill", GRACE_S)):
        if signal_them is not None:
            for p in alive:
                getattr(p, signal_them)()  # no error if it ended meanwhile
        deadline = time.monotonic() + wait_s
        for p in alive:
            p.join(max(0.0, deadline - time.monotonic()))
        alive = [p for p in alive if p.is_alive()]
        if not alive:
            return


def _started(process: BaseProcess) -> bool:
    try:
        return process.pid is not None
    except ValueError:  # closed (Process.close): it had ended
        return False


class ChunkFailed(RuntimeError):
    """A chunk's process failed without an exception to re-raise: it ended before sending a
    result, or its function raised one that does not pickle (the message holds its traceback)."""


class Stopped(Exception):
    """`map_in_processes` was told to stop (its `stop` event) before every result was in."""


def map_in_processes(
    fn: Callable[[T], R],
    chunks: Sequence[T],
    *,
    name: str = "attnlab-map",
    stop: threading.Event | None = None,
) -> list[R]:
    """[fn(c) for c in chunks], each call in a spawned process of its own, results in order.

    `fn` and the chunks must pickle (fn: a module-level function or a partial of one). Unlike a
    ProcessPoolExecutor, which leaves its workers and its manager thread behind on SIGTERM and
    hangs on Ctrl+C, every child is stopped before this returns or raises: on an exception in a
    chunk (re-raised as is when it pickles, else as ChunkFailed; its traceback is chained), on
    KeyboardInterrupt, or SIGTERM (raised as SystemExit meanwhile, in the main thread). A
    caller killed outright (SIGKILL) leaves orphans, which end themselves (`watch_parent`).
    From another thread (a server's), where no signal arrives, `stop` ends it: once set, the
    children are stopped within about STOP_POLL_S and Stopped is raised.
    """
    procs: list[BaseProcess] = []
    with _terminate_raises():
        try:
            conns = []
            for i, chunk in enumerate(chunks):
                mine, theirs = spawn_context().Pipe(duplex=False)
                proc = spawn_context().Process(
                    target=_run_chunk, args=(theirs, fn, chunk), name=f"{name}-{i}", daemon=True
                )
                proc.start()
                theirs.close()
                procs.append(proc)
                conns.append(mine)
            results = _gather(conns, procs, stop)
        except BaseException:
            stop_processes(procs, timeout_s=0)
            raise
        stop_processes(procs, timeout_s=5)  # each has sent its result and is ending
    return results


@contextlib.contextmanager
def _terminate_raises() -> Iterator[None]:
    """SIGTERM raises SystemExit (status 128 + 15, as the shell reports a death by SIGTERM)
    while this lasts, so that the children are stopped first: its default ends this process
    at once. Only where Python allows it (the main thread) and nobody else handles SIGTERM."""
    main = threading.current_thread() is threading.main_thread()
    if not main or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def exit_now(signum: int, _: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, exit_now)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _run_chunk(conn: Connection, fn: Callable[[Any], Any], chunk: Any) -> None:
    as_child()
    try:
        conn.send(("ok", fn(chunk)))
    except Exception as err:
        text = traceback.format_exc()
        try:
            pickle.loads(pickle.dumps(err))  # it must arrive, not fail again in the parent
        except Exception:  # it does not pickle: its text still tells what happened
            err = None
        conn.send(("error", err, text))


class _ChildTraceback(Exception):
    """The child's traceback, as text, chained to the exception re-raised in the parent."""


def _gather(
    conns: list[Connection], procs: list[BaseProcess], stop: threading.Event | None = None
) -> list[Any]:
    """Each child's result, read as soon as it is sent (a child blocks on a full pipe)."""
    results: dict[int, Any] = {}
    waiting = dict(enumerate(conns))
    poll_s = None if stop is None else STOP_POLL_S
    while waiting:
        if stop is not None and stop.is_set():
            raise Stopped(f"stopped with {len(waiting)} of {len(conns)} chunks still running")
        for conn in wait(list(waiting.values()), timeout=poll_s):
            i = next(k for k, c in waiting.items() if c is conn)
            del waiting[i]
            try:
                reply = conn.recv()
            except EOFError:
                procs[i].join(GRACE_S)
                code = procs[i].exitcode
                raise ChunkFailed(f"chunk {i} ended (exit code {code}) before its result") from None
            finally:
                conn.close()
            if reply[0] == "error":
                _, err, text = reply
                if err is None:
                    raise ChunkFailed(f"chunk {i} failed in its process:\n{text}")
                raise err from _ChildTraceback(f"in chunk {i}'s process:\n{text}")
            results[i] = reply[1]
    return [results[i] for i in range(len(conns))]
