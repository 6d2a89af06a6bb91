"""The lesson's claims, measured in one background thread so that no request ever waits for them.

Measuring takes seconds (FIG 2 trains three models), while the lesson's text must appear at once.
So the server measures every claim's fast check in a worker thread from startup (the lesson
router's lifespan), and the page fills its number slots from `snapshot()` as results arrive and
shows them all in its "check the numbers" panel. A few numbers of the text come only from a seed
sweep (F2.2's 10th–90th percentile of steps and its 100-seed distribution: about a minute of one
core, in the child process); `want_sweeps()` measures those once a page has asked for the text,
after the fast checks.
`start(fresh=True)` is the panel's button: forget every cached result (`clear_caches`) and measure
the fast checks again. One run at a time.

Only the worker measures. A request that wants results (`GET /api/claims`) calls `answer()`:
what is measured comes back at once; what is not is queued for the worker (ahead of the rest of
its run) and the request is told to ask again — so no request thread ever waits on a measurement.
The worker thread hands each claim to a child process (`MeasuringProcess`): measuring is
seconds of NumPy in small steps, and in the server's own interpreter it would take the GIL from
every figure request for as long.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from attnlab.claims import all_checks, clear_caches, run_claim, select
from attnlab.processes import as_child, spawn_context, stop_processes

log = logging.getLogger("attnlab.claims")

Key = tuple[str, bool]  # (claim id, full): one measurement


def measure_claim(cid: str, full: bool) -> dict[str, Any]:
    """One claim's result as plain data; a check that raises gives ok False and its error."""
    try:
        return run_claim(cid, full).to_dict()
    except Exception as err:  # one broken check must not hide the others
        log.exception("claim %s failed", cid)
        return {"id": cid, "ok": False, "error": f"{type(err).__name__}: {err}"}


_CALLS: dict[str, Callable[..., Any]] = {"measure": measure_claim, "clear": clear_caches}
MEASURE_NICE = 10  # the measuring process's niceness above the server's (CFS: ~1/10 the share)
NICE_VARIABLE = "ATTNLAB_MEASURE_NICE"  # another niceness for every server this one starts


def measure_nice() -> int:
    """MEASURE_NICE, or 0–19 from NICE_VARIABLE: a test suite's servers measure as equals (the
    machine's other work is the suite's own, and at 10 a busy machine left them a few per cent
    of a core); anything else there is named in the log and ignored."""
    given = os.environ.get(NICE_VARIABLE)
    if given is None:
        return MEASURE_NICE
    if given.isdigit() and int(given) <= 19:
        return int(given)
    log.warning("%s=%r is not a niceness from 0 to 19: measuring at %d", NICE_VARIABLE, given,
                MEASURE_NICE)  # fmt: skip
    return MEASURE_NICE


def _serve_calls(conn: Any, nice: int) -> None:
    """The child's loop: (name, args) in, the call's result out, until the pipe closes."""
    as_child()
    # Measuring is background work: readers' requests and learners' training come first. At
    # the normal priority a class joining a server that had just begun its sweeps waited for
    # them (300 ms of CPU a page went to the measuring); a seed sweep's processes inherit this.
    os.nice(nice)
    while True:
        try:
            name, args = conn.recv()
        except (EOFError, OSError):
            return
        conn.send(_CALLS[name](*args))


def cheap_first(ids: Iterable[str]) -> list[str]:
    """The ids in their order, those whose fast check is `costly` moved to the end."""
    ids, checks = list(ids), all_checks()
    costly = {cid for cid in ids if any(c.costly and not c.slow for c in checks[cid])}
    return [cid for cid in ids if cid not in costly] + [cid for cid in ids if cid in costly]


class MeasuringProcess:
    """A spawned process that measures claims, one call at a time, and keeps their caches.

    Started on first use; `close()` (from any thread) ends it, a sweep in progress with it, and
    for good: a call after it raises EOFError rather than start a process nobody would end.
    Not a daemon, as a seed sweep starts processes of its own: so it must be ended before the
    interpreter exits (multiprocessing's exit hook would wait for it), `_close_all` makes sure.
    """

    def __init__(self, *, nice: int | None = None) -> None:
        self.nice = measure_nice() if nice is None else nice  # above the server's
        self._lock = threading.Lock()  # a start and a close never interleave
        self._proc: Any = None
        self._conn: Any = None
        self._closed = False
        _OPEN.add(self)

    def call(self, name: str, *args: Any) -> Any:
        """`_CALLS[name](*args)` in the child (started if need be); EOFError if it is closed or
        dies meanwhile. One thread calls at a time (the runner's worker)."""
        with self._lock:
            if self._closed:
                raise EOFError("the measuring process is closed")
            if self._proc is None or not self._proc.is_alive():
                conn, child = spawn_context().Pipe()
                proc = spawn_context().Process(
                    target=_serve_calls, args=(child, self.nice), name="attnlab-claims"
                )
                proc.start()
                child.close()
                self._proc, self._conn = proc, conn
            conn = self._conn
        conn.send((name, args))
        return conn.recv()

    def close(self) -> None:
        """End the process now (what it measures is dropped: the server is stopping). Its own
        children, a seed sweep's, then find their parent gone and end themselves."""
        with self._lock:
            self._closed = True
            proc, self._proc, self._conn = self._proc, None, None
        if proc is not None:
            stop_processes([proc], timeout_s=0)
        _OPEN.discard(self)


_OPEN: weakref.WeakSet[MeasuringProcess] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    """A backstop for an app that exits without its shutdown (runs before multiprocessing's
    exit hook, registered earlier, which would wait for the non-daemon child forever)."""
    for measuring in list(_OPEN):
        measuring.close()


class InThisProcess:
    """Measure in the calling thread's process (tests that patch the engine use this)."""

    def call(self, name: str, *args: Any) -> Any:
        return _CALLS[name](*args)

    def close(self) -> None:
        pass


@dataclass
class RunState:
    """Progress of one measuring run, as the page shows it."""

    run: int  # 1 for the run at startup, then one more for each re-run
    kind: str  # "start", "rerun", "sweeps" or "asked" (a request's claims)
    phase: str = "fast"  # "fast" checks, then "sweeps" the text quotes
    done: int = 0
    total: int = 0
    current: str | None = None  # the claim being measured now
    started: float = field(default_factory=time.time)  # epoch seconds
    seconds: float | None = None  # how long the whole run took, once it has finished
    error: str | None = None


class Measurements:
    """Claim results measured by one worker thread; thread-safe reads for the request handlers.

    ids: the claims to measure (None: every claim of the registry, in its order).
    text_needs: the "ID.name" values the lesson's text quotes (None: ask `attnlab.lesson`). A
    claim whose fast check lacks one of them gets its slow check (a seed sweep) measured too.
    in_process: measure in this process (tests that patch the engine); nice: the measuring
    process's niceness above this one's (None: `measure_nice()`).
    Every store is keyed by claim id (and mode), so it holds at most 2 × len(CLAIM_IDS) entries.
    """

    def __init__(
        self,
        *,
        ids: Iterable[str] | None = None,
        text_needs: Iterable[str] | None = None,
        in_process: bool = False,
        nice: int | None = None,
    ) -> None:
        self._ids = None if ids is None else frozenset(ids)
        self._where = InThisProcess() if in_process else MeasuringProcess(nice=nice)
        self._lock = threading.Lock()  # guards everything below; never held while measuring
        self.measuring = threading.Lock()  # held by the worker around each claim it measures
        self._cancel = threading.Event()
        self._active = False  # a worker thread is measuring (set and cleared under the lock)
        self._thread: threading.Thread | None = None
        self._state: RunState | None = None
        self._results: dict[str, dict[str, Any]] = {}  # id → ClaimResult dict + seconds, seq
        self._answers: dict[Key, dict[str, Any]] = {}  # (id, full) → ClaimResult dict
        self._asked: dict[Key, None] = {}  # measurements requests wait for, in order asked
        self._seq = 0  # counts stored results, so a poller asks only for what is new
        self._changed: dict[str, int] = {}  # id → seq of its latest result or sweep
        self._sweeps: dict[str, dict[str, Any]] = {}  # id → values of its slow check
        self._sweeps_wanted = False
        self._sweeps_done = False
        self._needs = None if text_needs is None else frozenset(text_needs)

    @property
    def running(self) -> bool:
        with self._lock:
            return self._active

    def start(self, *, fresh: bool = False) -> bool:
        """Measure the fast checks in a worker thread (`fresh`: forget cached results first).

        False, and nothing happens, while a run is going on.
        """
        with self._lock:
            if self._active:
                return False
            if fresh:  # what requests read is forgotten at once; the worker clears the caches
                self._answers.clear()
            self._launch("rerun" if fresh else "start", fast=True, fresh=fresh)
        return True

    def want_sweeps(self) -> None:
        """Measure the seed sweeps the text quotes: after the current run, or now if idle."""
        with self._lock:
            if self._sweeps_done or self._sweeps_wanted:
                return
            self._sweeps_wanted = True
            if not self._active:  # else the running worker takes them on (it checks, locked)
                self._launch("sweeps", fast=False, fresh=False)

    def answer(
        self, ids: Iterable[str] | None, full: bool
    ) -> tuple[list[dict[str, Any]], list[str]]:
        """(results measured for the selected claims, ids still to measure), without waiting.

        Ids not measured yet are queued for the worker (started if idle); ask again later.
        ParamError for an unknown id.
        """
        wanted = select(ids)
        with self._lock:
            missing = [cid for cid in wanted if (cid, full) not in self._answers]
            if not missing:
                return [self._answers[(cid, full)] for cid in wanted], []
            self._asked.update(dict.fromkeys((cid, full) for cid in missing))
            if not self._active:
                self._launch("asked", fast=False, fresh=False)
            return [], missing

    def _launch(self, kind: str, *, fast: bool, fresh: bool) -> None:
        """Start a worker thread; the caller holds the lock and has checked `_active`."""
        run = self._state.run + 1 if self._state else 1
        self._state = RunState(run=run, kind=kind, phase="fast" if fast else "sweeps")
        self._active = True
        self._cancel.clear()
        self._thread = threading.Thread(
            target=self._work, args=(fast, fresh), name="attnlab-claims", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        """Stop now: the claim being measured is dropped (the server is shutting down)."""
        self._cancel.set()
        self._where.close()

    def wait(self, timeout: float) -> bool:
        """Wait for the current run to end; True if it has (for tests and scripts)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return not self.running

    def values(self) -> dict[str, dict[str, Any]]:
        """id → every value measured for it (a sweep's values under the fast check's)."""
        with self._lock:
            ids = self._results.keys() | self._sweeps.keys()
            return {
                cid: {**self._sweeps.get(cid, {}), **self._results.get(cid, {}).get("values", {})}
                for cid in ids
            }

    def snapshot(self, since: int = 0) -> dict[str, Any]:
        """Progress of the latest run, and the results and values stored after `since`.

        `seq` in the answer is the latest result's number: pass it as `since` next time to get
        only what changed (the page polls while a run goes on).
        """
        values = self.values()
        with self._lock:
            fresh = {cid for cid, seq in self._changed.items() if seq > since}
            return {
                "running": self._active,
                "state": asdict(self._state) if self._state else None,
                "seq": self._seq,
                "claims": [r for cid, r in self._results.items() if cid in fresh],
                "values": {cid: v for cid, v in values.items() if cid in fresh},
            }

    # --- the worker thread ----------------------------------------------------------------

    def _work(self, fast: bool, fresh: bool) -> None:
        t0 = time.perf_counter()
        try:
            checks = select(None if self._ids is None else sorted(self._ids))
            if fresh:
                with self.measuring:
                    self._where.call("clear")
            if fast:
                self._measure([(cid, False) for cid in cheap_first(checks)], phase="fast")
            while self._take_more(t0):
                if asked := self._asked_now():
                    self._measure(asked, phase="asked")
                if self._sweeps_wanted_now():
                    sweeps = [(cid, True) for cid in self._sweeps_needed(checks)]
                    self._measure(sweeps, phase="sweeps")
                    with self._lock:
                        self._sweeps_done = not self._cancel.is_set()
        except Exception as err:  # a broken claims module: say so in the panel, keep serving
            log.exception("measuring the claims failed")
            self._update(error=f"{type(err).__name__}: {err}")
        finally:
            with self._lock:
                self._end_run(t0)

    def _take_more(self, t0: float) -> bool:
        """Whether more is wanted (asked claims, sweeps); if not, the run ends under the same
        lock, so an `answer()` or `want_sweeps()` either sees this run going on (and is taken)
        or a new one starts."""
        with self._lock:
            asked = any(k not in self._answers for k in self._asked)
            go = (asked or self._sweeps_wanted) and not self._cancel.is_set()
            if not go:
                self._end_run(t0)
            return go

    def _asked_now(self) -> list[Key]:
        """What requests wait for, not measured yet (so `_take_more` cannot loop on the rest)."""
        with self._lock:
            for key in [k for k in self._asked if k in self._answers]:
                del self._asked[key]
            return list(self._asked)

    def _sweeps_wanted_now(self) -> bool:
        with self._lock:
            go, self._sweeps_wanted = self._sweeps_wanted, False
            return go

    def _end_run(self, t0: float) -> None:
        """Mark this thread's run as finished (once); the caller holds the lock."""
        if self._thread is not threading.current_thread() or not self._active:
            return
        self._active = False
        self._asked.clear()  # only after a cancel: a request will ask again
        if self._state is not None:
            self._state.current = None
            self._state.seconds = round(time.perf_counter() - t0, 3)

    def _measure(self, keys: list[Key], *, phase: str) -> None:
        """Measure `keys` in order, and before each one whatever a request is waiting for."""
        self._update(phase=phase, done=0, total=len(keys))
        for i, key in enumerate(keys):
            self._update(done=i)
            while not self._cancel.is_set() and not self._has(key):
                self._measure_one(key)
            if self._cancel.is_set():
                return
        self._update(done=len(keys))

    def _measure_one(self, planned: Key) -> None:
        """Measure the first claim a request waits for, or else `planned`."""
        with self.measuring:  # chosen once it is this thread's turn: a request may come first
            if self._cancel.is_set():  # closed while this thread waited for the lock
                return
            key = self._first_asked() or planned
            self._update(current=key[0])
            t0 = time.perf_counter()
            try:
                result = self._where.call("measure", *key)
            except (EOFError, OSError):  # the process was closed or died while it measured
                if self._cancel.is_set():
                    return
                result = {"id": key[0], "ok": False, "error": "the measuring process ended"}
        if "error" in result:
            self._update(error=f"{key[0]}: {result['error']}")
        self._store(key, result, round(time.perf_counter() - t0, 4))

    def _has(self, key: Key) -> bool:
        with self._lock:
            return key in self._answers

    def _first_asked(self) -> Key | None:
        """The oldest request's claim not measured yet."""
        asked = self._asked_now()
        return asked[0] if asked else None

    def _store(self, key: Key, result: dict[str, Any], seconds: float) -> None:
        cid, full = key
        with self._lock:
            self._asked.pop(key, None)
            self._answers[key] = result
            self._seq += 1
            self._changed[cid] = self._seq
            if full:
                self._sweeps[cid] = dict(result.get("values", {}))
            else:
                self._results[cid] = {**result, "seconds": seconds}

    def _sweeps_needed(self, checks: list[str]) -> list[str]:
        """Claims whose text values only their slow check gives, and not measured yet."""
        from attnlab.claims import all_checks

        needs = self._needs if self._needs is not None else _text_needs()
        have = self.values()
        return [
            cid
            for cid in checks
            if any(c.slow for c in all_checks()[cid]) and _names_missing(cid, needs, have)
        ]

    def _update(self, **changes: Any) -> None:
        with self._lock:
            if self._state is not None:
                for key, value in changes.items():
                    setattr(self._state, key, value)


def _names_missing(cid: str, needs: frozenset[str], have: dict[str, dict[str, Any]]) -> list[str]:
    names = [n[len(cid) + 1 :] for n in needs if n.startswith(f"{cid}.")]
    return [n for n in names if n not in have.get(cid, {})]


def _text_needs() -> frozenset[str]:
    from attnlab.lesson import LANGS, placeholders

    return frozenset().union(*(placeholders(lang) for lang in LANGS))
