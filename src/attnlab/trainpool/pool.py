"""The server's side of the worker processes: start them, route commands and messages.

Each worker has one duplex pipe. Commands are sent from the event loop (under a lock, as
several apps in one process — tests — may share a pool); one reader thread per worker blocks on
the pipe and hands each message to the session's sink on its own event loop. A session lives
on one worker, the one with the fewest sessions when it opened.

Pools are shared per process (`shared_pool`): spawning a worker costs about a second, and every
app in the process (tests make many) can use the same workers.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import json
import logging
import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from attnlab.trainpool.worker import worker_main

log = logging.getLogger("attnlab.trainpool")

Sink = Callable[[str, bool], None]  # (JSON text, whether it ends a run), called on the loop
RESTARTED = "the training process stopped and was restarted: this model starts again at step 0"


class _Worker:
    def __init__(self, ctx: Any, frame_s: float, factory: Any) -> None:
        self.conn, child = ctx.Pipe(duplex=True)
        self.process = ctx.Process(
            target=worker_main, args=(child, frame_s, factory), daemon=True, name="attnlab-train"
        )
        self.process.start()
        child.close()
        self.lock = threading.Lock()
        self.sessions: set[int] = set()
        self.steps_per_s = (0.0, 0.0)  # one session alone, and each of a stack (worker.py)

    def send(self, command: tuple[Any, ...]) -> None:
        with self.lock:
            self.conn.send(command)

    def wait_ready(self) -> None:
        """Block until the worker has measured its speed (its first event)."""
        kind, *rates = self.conn.recv()
        assert kind == "ready"
        self.steps_per_s = tuple(rates)


class TrainPool:
    """`size` worker processes; `open` a session, `command` it, `close` it."""

    def __init__(self, size: int, *, frame_s: float, factory: Any = None) -> None:
        self.size, self.frame_s, self.factory = size, frame_s, factory
        self._workers: list[_Worker] = []
        self._sinks: dict[int, tuple[asyncio.AbstractEventLoop, Sink]] = {}
        self._home: dict[int, _Worker] = {}
        self._setup: dict[int, tuple[Any, tuple[int, int]]] = {}  # sid → (config, limits)
        self._replies: dict[int, Future[Any]] = {}
        self._ids = itertools.count(1)
        self._start_lock = threading.Lock()
        self._stopping = False

    @property
    def started(self) -> bool:
        return bool(self._workers)

    def start(self) -> None:
        """Spawn the workers and wait until each has measured its speed (blocking, once)."""
        with self._start_lock:
            if self._workers:
                return
            ctx = multiprocessing.get_context("spawn")  # never fork a threaded server
            workers = [_Worker(ctx, self.frame_s, self.factory) for _ in range(self.size)]
            for w in workers:
                w.wait_ready()
                threading.Thread(target=self._read, args=(w,), daemon=True).start()
            self._workers = workers

    def steps_per_s(self) -> tuple[float, float]:
        """A session's speed alone and stacked: medians over the workers' start-up measurements."""
        alone = sorted(w.steps_per_s[0] for w in self._workers)
        stacked = sorted(w.steps_per_s[1] for w in self._workers)
        return alone[len(alone) // 2], stacked[len(stacked) // 2]

    def open(
        self,
        config: Any,
        limits: tuple[int, int],
        loop: asyncio.AbstractEventLoop,
        sink: Sink,
    ) -> int:
        """A new session on the least-loaded worker; limits: (max_steps, max_step_n)."""
        sid = next(self._ids)
        worker = min(self._workers, key=lambda w: len(w.sessions))
        worker.sessions.add(sid)
        self._sinks[sid], self._home[sid] = (loop, sink), worker
        self._setup[sid] = (config, limits)
        worker.send(("open", sid, config, *limits))
        return sid

    def command(self, sid: int, op: str, *args: Any) -> None:
        worker = self._home.get(sid)
        if op == "config" and sid in self._setup:  # a replacement worker reopens with it
            self._setup[sid] = (args[0], self._setup[sid][1])
        if worker is not None:
            with contextlib.suppress(OSError, ValueError):  # a dead worker: `_replace` tells
                worker.send((op, sid, *args))

    def close(self, sid: int) -> None:
        """The session is dropped by its worker; messages still under way are discarded."""
        worker = self._home.pop(sid, None)
        self._sinks.pop(sid, None)
        self._setup.pop(sid, None)
        if worker is not None:
            worker.sessions.discard(sid)
            with contextlib.suppress(OSError, ValueError):
                worker.send(("close", sid))

    def open_sessions(self) -> int:
        return len(self._home)

    def alive(self) -> list[bool]:
        """Whether each worker process runs now (no message to it: /healthz asks this)."""
        return [w.process.is_alive() for w in list(self._workers)]

    async def worker_counts(self) -> list[dict[str, int]]:
        """What each worker process itself holds: {"sessions", "running"} (tests, stats)."""
        futures = []
        for w in self._workers:
            token = next(self._ids)
            self._replies[token] = future = Future()
            w.send(("stats", token))
            futures.append(asyncio.wrap_future(future))
        return list(await asyncio.gather(*futures))

    def _read(self, worker: _Worker) -> None:
        try:
            while True:
                event = worker.conn.recv()
                if event[0] == "stats":
                    self._replies.pop(event[1]).set_result(event[2])
                    continue
                _, sid, text, ended = event
                target = self._sinks.get(sid)
                if target is not None:
                    loop, sink = target
                    loop.call_soon_threadsafe(self._deliver, sid, sink, text, ended)
        except (EOFError, OSError):
            if not self._stopping:
                log.error("a training worker stopped (exit code %s)", worker.process.exitcode)
                self._replace(worker)

    def _replace(self, dead: _Worker) -> None:
        """A worker died: a new one takes its place, and its sessions start again on it.

        Their models are lost with the process; each page is told so (its run ends), then gets a
        fresh session of the same setting at step 0 (state and progress), as after "Start over".
        """
        ctx = multiprocessing.get_context("spawn")
        with self._start_lock:
            if self._stopping or dead not in self._workers:
                return
            new = _Worker(ctx, self.frame_s, self.factory)
            new.wait_ready()
            self._workers[self._workers.index(dead)] = new
            threading.Thread(target=self._read, args=(new,), daemon=True).start()
        lost = json.dumps({"type": "error", "code": "internal", "message": RESTARTED})
        for sid in list(dead.sessions):
            target, setup = self._sinks.get(sid), self._setup.get(sid)
            if target is None or setup is None:
                continue
            loop, sink = target
            loop.call_soon_threadsafe(self._deliver, sid, sink, lost, True)
            new.sessions.add(sid)
            self._home[sid] = new
            config, limits = setup
            new.send(("open", sid, config, *limits))

    def _deliver(self, sid: int, sink: Sink, text: str, ended: bool) -> None:
        if sid in self._sinks:  # not closed since the message was read
            sink(text, ended)

    def stop(self) -> None:
        self._stopping = True
        for w in self._workers:
            with contextlib.suppress(OSError, ValueError):  # already gone
                w.send(("stop",))
        for w in self._workers:
            w.process.join(timeout=2)
            if w.process.is_alive():
                w.process.terminate()
        self._workers = []


_POOLS: dict[tuple[Any, ...], TrainPool] = {}
_POOLS_LOCK = threading.Lock()


def shared_pool(size: int, *, frame_s: float, factory: Any = None) -> TrainPool:
    """This process's pool of that size (made on first use, started by `TrainPool.start`)."""
    key = (size, frame_s, factory)
    with _POOLS_LOCK:
        if key not in _POOLS:
            _POOLS[key] = pool = TrainPool(size, frame_s=frame_s, factory=factory)
            atexit.register(pool.stop)  # before multiprocessing's own exit hook ends them
        return _POOLS[key]


def stop_shared_pools() -> None:
    """TEMPORARY (lead's branch): replaced by the workers branch's version at merge."""
    with _POOLS_LOCK:
        pools = list(_POOLS.values())
    for pool in pools:
        pool.stop()
