"""The server's side of the worker processes: start them, route commands and messages.

Each worker has one duplex pipe. Commands are sent from the event loop (under a lock, as
several apps in one process — tests — may share a pool); one reader thread per worker blocks on
the pipe and hands each message to the session's sink on its own event loop. A session lives
on one worker, the one with the fewest sessions when it opened.

Pools are shared per process (`shared_pool`): spawning a worker costs about a second, and every
app in the process (tests make many) can use the same workers. The server's shutdown ends them
(`stop_shared_pools`); a worker whose server died outright ends itself (attnlab.processes).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import json
import logging
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from multiprocessing.process import BaseProcess
from typing import Any

from attnlab.processes import spawn_context, stop_processes
from attnlab.trainpool.worker import PACED_REPORT_S, worker_main

log = logging.getLogger("attnlab.trainpool")

Sink = Callable[[str, bool], None]  # (JSON text, whether it ends a run), called on the loop
STOP_S = 2.0  # how long the workers get to end after "stop", all together, before terminate()
RESTARTED = (
    "the training process stopped and was replaced: this model is back at step 0 "
    "(a run that was training goes on from there)"
)
# What a page is told when its worker died: the socket (`training_socket`) knows it by this text
# and starts a run that was training again, as it says.
LOST = json.dumps({"type": "error", "code": "internal", "message": RESTARTED})
DEATH_WAIT_S = 2.0  # a worker whose pipe closed has this long to end before it is killed
PACED_FRESH_S = 3 * PACED_REPORT_S  # a worker's report of its paced runs is forgotten after this


class PoolStopped(RuntimeError):
    """The pool was stopped (the server is shutting down) before or while it started."""


class _Worker:
    def __init__(self, frame_s: float, factory: Any) -> None:
        ctx = spawn_context()
        self.conn, child = ctx.Pipe(duplex=True)
        self.process = ctx.Process(
            target=worker_main, args=(child, frame_s, factory), daemon=True, name="attnlab-train"
        )
        self.process.start()
        child.close()
        self.lock = threading.Lock()
        self.sessions: set[int] = set()
        self.steps_per_s = (0.0, 0.0)  # one session alone, and each of a stack (worker.py)
        # its last "paced" report: (when, on the monotonic clock; [(steps/s got, pace), …])
        self.paced: tuple[float, list[tuple[float, int]]] = (0.0, [])

    def send(self, command: tuple[Any, ...]) -> None:
        with self.lock:
            self.conn.send(command)

    def wait_ready(self) -> None:
        """Block until the worker has measured its speed (its first event); EOFError if it
        ended first."""
        kind, *rates = self.conn.recv()
        assert kind == "ready"
        self.steps_per_s = tuple(rates)


class TrainPool:
    """`size` worker processes; `open` a session, `command` it, `close` it; `stop` them all.

    Every worker ever spawned is listed in `_spawned` at once (under `_spawn_lock`), before it
    is ready or published in `_workers`, so a `stop` from another thread also ends the workers
    of a `start` or a `_replace` still waiting for them to measure their speed.
    """

    def __init__(self, size: int, *, frame_s: float, factory: Any = None) -> None:
        self.size, self.frame_s, self.factory = size, frame_s, factory
        self._workers: list[_Worker] = []  # the ready ones, which sessions are placed on
        self._spawned: list[_Worker] = []  # every worker not known to have ended
        self._sinks: dict[int, tuple[asyncio.AbstractEventLoop, Sink]] = {}
        self._home: dict[int, _Worker] = {}
        self._setup: dict[int, tuple[Any, tuple[int, int]]] = {}  # sid → (config, limits)
        self._replies: dict[int, Future[Any]] = {}
        self._ids = itertools.count(1)
        self._start_lock = threading.Lock()  # one start or replacement at a time
        self._spawn_lock = threading.Lock()  # guards _spawned, _workers and _stopping
        self._stopping = False

    @property
    def started(self) -> bool:
        return bool(self._workers)

    @property
    def stopped(self) -> bool:
        return self._stopping

    def alive(self) -> int:
        """How many of the pool's worker processes are alive (ready or still starting)."""
        with self._spawn_lock:
            return sum(w.process.is_alive() for w in self._spawned)

    def start(self) -> None:
        """Spawn the workers and wait until each has measured its speed (blocking, once).

        PoolStopped if `stop` came first or meanwhile: the workers are not published.
        """
        with self._start_lock:
            if self._workers:
                return
            workers = [self._spawn() for _ in range(self.size)]
            try:
                for w in workers:
                    w.wait_ready()
            except (EOFError, OSError):
                self._stopped_check()
                self._end(workers)
                codes = [w.process.exitcode for w in workers]
                msg = f"a training worker ended as it started (exit codes {codes}; see its log)"
                raise RuntimeError(msg) from None
            self._publish(workers, lambda: self._workers.extend(workers))

    def _spawn(self) -> _Worker:
        """A new worker, listed before anyone can miss it (spawning under the lock)."""
        with self._spawn_lock:
            self._stopped_check()
            worker = _Worker(self.frame_s, self.factory)
            self._spawned.append(worker)
            return worker

    def _stopped_check(self) -> None:
        if self._stopping:
            raise PoolStopped("the training pool has been stopped")

    def _publish(self, workers: list[_Worker], put: Callable[[], None]) -> None:
        """`put` the ready `workers` in place and start reading them, unless stopped meanwhile
        (then `stop` ends them: they are in `_spawned`)."""
        with self._spawn_lock:
            self._stopped_check()
            put()
        for w in workers:
            threading.Thread(target=self._read, args=(w,), daemon=True).start()

    def _end(self, workers: list[_Worker]) -> None:
        """Stop those of `workers` that a `stop` has not taken already. One thread only may wait
        for a process: two that reap it at once can each see it alive after it has ended."""
        with self._spawn_lock:
            mine = [w.process for w in workers if w in self._spawned]
            self._spawned = [w for w in self._spawned if w not in workers]
        stop_processes(mine, timeout_s=0)

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

    def workers_alive(self) -> int:
        """How many of the ready workers run now (no message to them: /healthz asks this)."""
        return sum(w.process.is_alive() for w in list(self._workers))

    def paced_rates(self) -> list[tuple[float, int]]:
        """What each paced run gets, as its worker measured it lately: [(steps/s, pace), …]."""
        now = time.monotonic()
        fresh = [w.paced for w in list(self._workers) if now - w.paced[0] <= PACED_FRESH_S]
        return [pair for _, pairs in fresh for pair in pairs]

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
                if event[0] == "paced":
                    worker.paced = (time.monotonic(), [(float(r), int(p)) for r, p in event[1]])
                    continue
                self._relay(event[1])
        except (EOFError, OSError):
            if not self._stopping:  # else `stop` closed it: nothing went wrong
                # Its pipe closed as it died (or as it ends): make sure it has, to say how.
                stop_processes([worker.process], timeout_s=DEATH_WAIT_S)
                log.error("a training worker stopped (%s): starting another",
                          ended_by(worker.process.exitcode))  # fmt: skip
                self._replace(worker)

    def _relay(self, said: list[tuple[int, str, bool]]) -> None:
        """A turn's messages, handed to their sessions' loops: one call a loop, not a message."""
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[int, Sink, str, bool]]] = {}
        for sid, text, ended in said:
            target = self._sinks.get(sid)
            if target is not None:
                by_loop.setdefault(target[0], []).append((sid, target[1], text, ended))
        for loop, messages in by_loop.items():
            with contextlib.suppress(RuntimeError):  # "Event loop is closed": its app has gone
                loop.call_soon_threadsafe(self._deliver_all, messages)

    def _deliver_all(self, messages: list[tuple[int, Sink, str, bool]]) -> None:
        for sid, sink, text, ended in messages:
            self._deliver(sid, sink, text, ended)

    def _replace(self, dead: _Worker) -> None:
        """A worker died: a new one takes its place, and its sessions start again on it.

        Their models are lost with the process; each page is told so (its run ends), then gets a
        fresh session of the same setting at step 0 (state and progress), as after "Start over".
        """
        with self._start_lock:
            if dead not in self._workers:
                return
            try:
                new = self._spawn()
                new.wait_ready()
                self._publish([new], lambda: self._swap(dead, new))
            except PoolStopped:
                return
            except (EOFError, OSError):
                self._end([new])
                if not self._stopping:
                    log.error("a replacement training worker ended as it started")
                return
        for sid in list(dead.sessions):
            target, setup = self._sinks.get(sid), self._setup.get(sid)
            if target is None or setup is None:
                continue
            new.sessions.add(sid)
            config, limits = setup
            # Under the new worker's lock: the page hears LOST before the new session's state,
            # and a command it sends on hearing it (a run) reaches the worker after "open".
            with new.lock:
                self._home[sid] = new
                self._post(target[0], sid, target[1], LOST, True)
                new.conn.send(("open", sid, config, *limits))

    def _swap(self, dead: _Worker, new: _Worker) -> None:
        """`new` in `dead`'s place; the caller holds `_spawn_lock`."""
        self._workers[self._workers.index(dead)] = new
        self._spawned.remove(dead)

    def _post(self, loop: asyncio.AbstractEventLoop, sid: int, sink: Sink, *message: Any) -> None:
        """Hand a message to its session's loop; one whose loop has closed (its app has gone)
        is dropped."""
        with contextlib.suppress(RuntimeError):  # "Event loop is closed"
            loop.call_soon_threadsafe(self._deliver, sid, sink, *message)

    def _deliver(self, sid: int, sink: Sink, text: str, ended: bool) -> None:
        if sid in self._sinks:  # not closed since the message was read
            sink(text, ended)

    def stop(self) -> None:
        """Stop every worker, ready or still starting. Idempotent, from any thread; the pool
        cannot be started again."""
        ready, starting = self._halt()
        stop_processes(starting, timeout_s=0)
        stop_processes(ready, timeout_s=STOP_S)

    def _halt(self) -> tuple[list[BaseProcess], list[BaseProcess]]:
        """Mark the pool stopped and ask each ready worker to stop: (the processes of the ready
        workers, to wait for; those still starting, which read no command until they have
        measured their speed, and have nothing to lose)."""
        with self._spawn_lock:
            self._stopping = True
            ready = [w for w in self._spawned if w in self._workers]
            starting = [w.process for w in self._spawned if w not in self._workers]
            self._spawned, self._workers = [], []
        for w in ready:
            with contextlib.suppress(OSError, ValueError):  # already gone
                w.send(("stop",))
        return [w.process for w in ready], starting


def ended_by(exitcode: int | None) -> str:
    """How a process ended, for the log: "killed by SIGKILL", "exit code 1"."""
    if exitcode is not None and exitcode < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-exitcode).name}"
    return f"exit code {exitcode}"


_POOLS: dict[tuple[Any, ...], TrainPool] = {}
_POOLS_LOCK = threading.Lock()


def shared_pool(size: int, *, frame_s: float, factory: Any = None) -> TrainPool:
    """This process's pool of that size (made on first use, or after a `stop`; started by
    `TrainPool.start`)."""
    key = (size, frame_s, factory)
    with _POOLS_LOCK:
        if key not in _POOLS or _POOLS[key].stopped:
            _POOLS[key] = TrainPool(size, frame_s=frame_s, factory=factory)
        return _POOLS[key]


def stop_shared_pools() -> None:
    """Stop every shared pool's workers, within one deadline (the server's shutdown); a later
    `shared_pool` makes a new pool."""
    with _POOLS_LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    halted = [pool._halt() for pool in pools]
    stop_processes([p for _, starting in halted for p in starting], timeout_s=0)
    stop_processes([p for ready, _ in halted for p in ready], timeout_s=STOP_S)


# A backstop for a server that exits without its shutdown: registered after multiprocessing's
# own exit hook, so it runs first (atexit is last in, first out) and the workers get "stop".
atexit.register(stop_shared_pools)
