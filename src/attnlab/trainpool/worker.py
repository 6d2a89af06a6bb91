"""A worker process: it holds some readers' sessions and trains the running ones in turn.

The server sends commands down a pipe; the worker answers with the socket's messages, already
written as JSON text, tagged with the session id. Between chunks of steps (≤ `CHUNK_S` each)
it reads every waiting command, so a pause or a closed socket stops the work within a chunk.

Pacing: a session asking `pace` steps/s trains round(pace × frame_s) steps a frame, then waits
for its next frame; an unpaced one trains whenever it is picked and reports once a frame.
Which due session trains next is `FairShare`'s choice; the due sessions of the same task and
head count train with it, stacked (up to STACK_MAX, least charged first), each charged its share
of the chunk's time. Stacking shares the NumPy calls and changes no number: a stacked session
records exactly what it would alone (`seed_batch.train_together`).

Commands: ("open", sid, TrainConfig, max_steps, max_step_n), ("config", sid, TrainConfig),
("reset", sid), ("scene", sid, Scene), ("run", sid, steps, pace) (steps None: to the limit),
("pause", sid), ("close", sid),
("stats", token), ("stop",).  Events: ("ready", steps_per_s alone, stacked),
("send", [(sid, text, ended), …]): the messages of one turn of the loop, where `ended` is True
on the message that ends a run, ("stats", token, counts), and ("paced", [(steps/s, pace), …]):
what the paced runs get, measured (every PACED_REPORT_S while there are some).
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from attnlab.processes import as_child
from attnlab.tabletop import TrainConfig
from attnlab.tabletop.seed_batch import KeptStacks
from attnlab.trainpool.scheduler import FairShare
from attnlab.trainpool.session import (
    TrainerFactory,
    TrainingSession,
    real_trainer,
    train_stacked,
)

CHUNK_S = 0.005  # one chunk of steps lasts about this long: the latency of a pause or a close
# due sessions of one task and head count trained stacked, at most: a step of each of 16 costs
# ~0.55 of one alone, of 8 ~0.65 (benchmarks/step_cost.py); beyond, the arrays outgrow the cache
STACK_MAX = 16
STACK_CHUNK = 2  # a stack's chunk may last twice a session's: stacking and unstacking cost
MEASURE_S = 0.2  # how long the worker trains, at start, to measure a rate (alone, stacked)
STACK_MEASURED = 4  # the stack measured at start: the capacity counts on stacks this big
MEASURE_BURSTS = 5
# What paced sessions get, as measured: each one's steps a second over its last few frames (an
# average with this weight on the newest frame), told to the server every PACED_REPORT_S
RATE_WEIGHT = 0.25
PACED_REPORT_S = 1.0

log = logging.getLogger("attnlab.trainpool")


@dataclass
class Run:
    """A session and where its run is: training towards `goal` (None: paused) at `pace`."""

    session: TrainingSession
    goal: int | None = None
    pace: int = 0  # steps per second; 0 = as fast as the worker's share allows
    due: float = 0.0  # when its next frame may start
    quota: int = 0  # steps left in this frame (paced)
    records: list[dict[str, Any]] = field(default_factory=list)  # trained, not yet sent
    sent_at: float = 0.0
    frame_done_at: float = 0.0  # when its last paced frame was trained (0: none yet)
    rate: float = 0.0  # steps a second it got over its last frames (0: not measured yet)

    def frame_done(self, steps: int, now: float) -> None:
        """A paced frame of `steps` steps was trained at `now`: the measured rate follows."""
        if self.frame_done_at:
            got = steps / max(now - self.frame_done_at, 1e-6)
            self.rate = got if not self.rate else self.rate + RATE_WEIGHT * (got - self.rate)
        self.frame_done_at = now


def measure_steps_per_s(factory: TrainerFactory = real_trainer) -> tuple[float, float]:
    """Steps per second per session on this machine: one trainer alone, and each of
    STACK_MEASURED trainers of one setting stacked (as a class that follows the lesson trains).

    Steps per CPU second (this thread's clock), the best of a few short bursts: what a core
    can do, not how busy the machine happened to be while the server started (a busy spell
    would state a capacity far below what it gets later). The bursts last MEASURE_S of wall
    time together, so a busy machine does not make the server's start slower.
    """

    def sessions(k: int) -> list[TrainingSession]:
        configs = [TrainConfig(seed=seed) for seed in range(k)]
        return [TrainingSession(c, max_steps=10**6, max_step_n=1, factory=factory) for c in configs]

    alone = _best_rate(sessions(1))
    group = sessions(STACK_MEASURED)
    stacked = _best_rate(group) if group[0].stack_key is not None else alone
    return alone, stacked


def _best_rate(group: list[TrainingSession]) -> float:
    kept = KeptStacks()  # as the worker trains a class: its stacks kept from chunk to chunk
    train_stacked(group, 5, kept)  # warm the caches
    best = 0.0
    for _ in range(MEASURE_BURSTS):
        n, wall, cpu = 0, time.perf_counter(), time.thread_time()
        while time.perf_counter() - wall < MEASURE_S / MEASURE_BURSTS:  # bounded in wall time
            train_stacked(group, 10, kept)
            n += 10 * len(group)
        best = max(best, n / max(time.thread_time() - cpu, 1e-6))
    return best


class Worker:
    """The sessions of one worker process and its loop (commands in, messages out)."""

    def __init__(self, conn: Connection, *, frame_s: float, factory: TrainerFactory) -> None:
        self.conn, self.frame_s, self.factory = conn, frame_s, factory
        self.runs: dict[int, Run] = {}
        self.share = FairShare()
        self.kept = KeptStacks()  # a paced class trains the same stacks frame after frame
        self.said: list[tuple[int, str, bool]] = []  # messages of this turn, sent by `_flush`
        self._paced_told_at = 0.0

    def serve(self) -> None:
        while True:
            self._flush()
            now = time.monotonic()
            running = [sid for sid, r in self.runs.items() if r.goal is not None]
            due = [sid for sid in running if self.runs[sid].due <= now]
            wait = 0.0 if due else min((self.runs[s].due - now for s in running), default=None)
            if self.conn.poll(wait):
                if not self._read_commands():
                    return
                continue
            sid = self.share.pick(due)
            if sid is not None:
                self._train(self._stack_with(sid, due))

    def _train(self, group: list[int]) -> None:
        """One chunk for `group`; each member is charged its share of the chunk's CPU time."""
        t0 = time.thread_time()
        try:
            self._chunk(group)
        except Exception:
            for member in group:
                self._failed(member)
        for member in group:  # a stacked chunk's time is shared out evenly
            self.share.charge(member, (time.thread_time() - t0) / len(group))

    def _flush(self) -> None:
        """What this turn of the loop said, in one pipe event: one write, one wake-up of the
        server's reader (a message each cost the server more than relaying it)."""
        if self.said:
            self.conn.send(("send", self.said))
            self.said = []
        self._tell_paced()

    def _tell_paced(self) -> None:
        """Every PACED_REPORT_S while paced runs train: what each gets, [(steps/s measured,
        pace), …], for the capacity the server states (which forgets a report grown old)."""
        now = time.monotonic()
        if now - self._paced_told_at < PACED_REPORT_S:
            return
        paced = [(r.rate, r.pace) for r in self.runs.values() if r.goal is not None and r.rate]
        if paced:
            self.conn.send(("paced", paced))
            self._paced_told_at = now

    def _stack_with(self, sid: int, due: list[int]) -> list[int]:
        """`sid` and up to STACK_MAX − 1 other due sessions it can train stacked with."""
        key = self.runs[sid].session.stack_key
        if key is None:
            return [sid]
        mates = [s for s in due if s != sid and self.runs[s].session.stack_key == key]
        mates.sort(key=lambda s: (self.share.charged(s), s))  # the least charged first
        return sorted([sid, *mates[: STACK_MAX - 1]])  # in one order: the stack may be kept

    def _read_commands(self) -> bool:
        while self.conn.poll(0):
            command = self.conn.recv()
            if command[0] == "stop":
                return False
            try:
                self._command(*command)
            except Exception:  # a bug: tell that session's page, keep the other sessions
                self._failed(command[1])
        return True

    def _failed(self, sid: int) -> None:
        log.exception("training failed")
        run = self.runs.get(sid)
        if run is not None:
            run.goal, run.records = None, []
            self.share.remove(sid)
            error = {"type": "error", "code": "internal", "message": "training failed; see the log"}
            self._send(sid, error, ended=True)

    def _command(self, op: str, key: int, *args: Any) -> None:
        if op == "stats":
            running = sum(r.goal is not None for r in self.runs.values())
            self.conn.send(("stats", key, {"sessions": len(self.runs), "running": running}))
            return
        if op == "open":
            config, max_steps, max_step_n = args
            session = TrainingSession(
                config, max_steps=max_steps, max_step_n=max_step_n, factory=self.factory
            )
            self.runs[key] = Run(session)
            self._send(key, session.state(running=False))
            self._send(key, session.full_progress())
            return
        run = self.runs.get(key)
        if run is None:
            return  # closed meanwhile
        if op == "close":
            self.share.remove(key)
            del self.runs[key]
        elif op == "run":
            self._start(key, run, *args)
        elif op == "pause":
            self._stop(key, run)
        elif op == "scene":
            run.session.scene = args[0]
            if run.goal is None:  # while running, the next frame carries the new prediction
                self._send(key, run.session.progress([]))
        else:  # "config" / "reset": a new run from step 0
            self._stop(key, run, announce=False)
            if op == "config":
                run.session.configure(args[0])
            else:
                run.session.reset()
            self._send(key, run.session.state(running=False))
            self._send(key, run.session.full_progress())

    def _start(self, sid: int, run: Run, steps: int | None, pace: int) -> None:
        session = run.session
        goal = session.max_steps if steps is None else session.step + steps
        if session.step >= session.max_steps:
            self._send(sid, {"type": "done", "reason": "step_limit"})
            self._send(sid, session.state(running=False), ended=True)
            return
        was_running = run.goal is not None
        run.goal, run.pace = min(goal, session.max_steps), pace
        if not was_running:
            run.due, run.quota, run.sent_at = self._frame_start(), self._per_frame(pace), 0.0
            run.frame_done_at, run.rate = 0.0, 0.0  # a new run is measured afresh
            self.share.add(sid)
        self._send(sid, session.state(running=True))

    def _stop(self, sid: int, run: Run, *, announce: bool = True) -> None:
        """End the run: what was trained and not sent goes first, then the paused state."""
        if run.goal is not None and run.records:
            self._send(sid, run.session.progress(run.records))
        run.goal, run.records = None, []
        self.share.remove(sid)
        if announce:
            self._send(sid, run.session.state(running=False), ended=True)

    def _frame_start(self, now: float | None = None) -> float:
        """The start of the frame `now` is in, on one grid of frames for the whole worker.

        Paced sessions keep their frames on this grid, so those of one setting fall due at the
        same moments and train as one stack (`_stack_with`): begun at their own moments, a
        class's frames were out of phase and most chunks trained one or two sessions, at nearly
        twice a stacked step's CPU (benchmarks/step_cost.py)."""
        t = time.monotonic() if now is None else now
        return math.floor(t / self.frame_s) * self.frame_s

    def _per_frame(self, pace: int) -> int:
        return max(1, round(pace * self.frame_s)) if pace else 0

    def _steps_left(self, run: Run) -> int:
        """Steps `run` may still take now: to its goal, and within its frame's quota if paced."""
        assert run.goal is not None
        n = run.goal - run.session.step
        return min(n, run.quota) if run.pace else n

    def _chunk(self, group: list[int]) -> None:
        """One chunk of steps for each session of `group`, stacked when there are several.

        Every member takes the same number of steps: the fewest any member may take (to its
        goal, or its frame's quota when paced), and at most what fills about CHUNK_S (a stack:
        STACK_CHUNK × CHUNK_S), so a pause or a close takes effect within a few milliseconds.
        """
        runs, now = [self.runs[sid] for sid in group], time.monotonic()
        n = min(self._steps_left(r) for r in runs)
        budget = CHUNK_S * (STACK_CHUNK if len(runs) > 1 else 1)
        cpu = max(1e-9, sum(r.session.seconds_per_step for r in runs))
        n = min(n, max(1, int(budget / cpu)))
        with np.errstate(all="ignore"):
            trained = train_stacked([r.session for r in runs], n, self.kept)
        for sid, run, records in zip(group, runs, trained, strict=True):
            run.records.extend(records)
            self._after_chunk(sid, run, n, now)

    def _after_chunk(self, sid: int, run: Run, n: int, now: float) -> None:
        """Frame and goal bookkeeping after `run` trained n steps; progress when a frame is done."""
        session = run.session
        assert run.goal is not None
        finished = session.step >= run.goal
        if run.pace:
            run.quota -= n
            frame_done = run.quota <= 0
        else:
            frame_done = time.monotonic() - run.sent_at >= self.frame_s
        if frame_done or finished:
            self._send(sid, session.progress(run.records))
            run.records, run.sent_at = [], time.monotonic()
            if run.pace:  # the next frame; a worker that fell behind does not owe frames
                if frame_done:
                    run.frame_done(self._per_frame(run.pace), time.monotonic())
                due = run.due + self.frame_s
                run.due = due if due >= now else self._frame_start(now)
                run.quota = self._per_frame(run.pace)
        if finished:
            if session.step >= session.max_steps:
                self._send(sid, {"type": "done", "reason": "step_limit"})
            self._stop(sid, run)

    def _send(self, sid: int, message: dict[str, Any], *, ended: bool = False) -> None:
        text = json.dumps(message, allow_nan=False, separators=(",", ":"))
        self.said.append((sid, text, ended))


def worker_main(conn: Connection, frame_s: float, factory: Any) -> None:
    """The worker process's entry point (spawned by `TrainPool`)."""
    as_child()  # ends with its server, however the server ends; Ctrl+C is the server's to handle
    factory = factory or real_trainer
    try:
        conn.send(("ready", *measure_steps_per_s(factory)))
        Worker(conn, frame_s=frame_s, factory=factory).serve()
    except (EOFError, ConnectionError):  # closed, broken or reset by a server that died
        pass  # the server has gone: so does the worker
