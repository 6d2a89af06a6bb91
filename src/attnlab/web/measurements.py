"""The lesson's claims, measured in a worker thread so that the page never waits for them.

Measuring takes seconds (FIG 2 trains three models), while the lesson's text must appear at once.
So the server measures every claim's fast check in a worker thread from startup (the lesson
router's lifespan), and the page fills its number slots from `snapshot()` as results arrive and
shows them all in its "check the numbers" panel. A few numbers of the text come only from a seed
sweep (F2.2's 10th–90th percentile of steps: 20 seeds trained in two processes, seconds of every
core); `want_sweeps()` measures those once a page has asked for the text, after the fast checks.
`start(fresh=True)` is the panel's button: forget every cached result and measure the fast
checks again. One run at a time.

A run holds the lock `GET /api/claims` holds while it measures (web/claims_api.py), so the two
never measure the same claim at once: a request that arrives mid-run waits, then reads the cache.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from attnlab.web.claims_api import _LOCKS as MEASURING  # one lock per mode, shared with GET

log = logging.getLogger("attnlab.web")


@dataclass
class RunState:
    """Progress of one measuring run, as the page shows it."""

    run: int  # 1 for the run at startup, then one more for each re-run
    kind: str  # "start" or "rerun"
    phase: str = "fast"  # "fast" checks, then "sweeps" the text quotes
    done: int = 0
    total: int = 0
    current: str | None = None  # the claim being measured now
    started: float = field(default_factory=time.time)  # epoch seconds
    seconds: float | None = None  # how long the whole run took, once it has finished
    error: str | None = None


class Measurements:
    """Claim results measured by a worker thread; thread-safe reads for the request handlers.

    ids: the claims to measure (None: every claim of the registry, in its order).
    text_needs: the "ID.name" values the lesson's text quotes (None: ask `attnlab.lesson`). A
    claim whose fast check lacks one of them gets its slow check (a seed sweep) measured too.
    """

    def __init__(
        self, *, ids: Iterable[str] | None = None, text_needs: Iterable[str] | None = None
    ) -> None:
        self._ids = None if ids is None else frozenset(ids)
        self._lock = threading.Lock()  # guards everything below
        self._cancel = threading.Event()
        self._active = False  # a worker thread is measuring (set and cleared under the lock)
        self._thread: threading.Thread | None = None
        self._state: RunState | None = None
        self._results: dict[str, dict[str, Any]] = {}  # id → ClaimResult dict + seconds, seq
        self._sweeps: dict[str, dict[str, Any]] = {}  # id → values of its slow check
        self._seq = 0  # counts stored results, so a poller asks only for what is new
        self._changed: dict[str, int] = {}  # id → seq of its latest result or sweep
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
        """Stop after the claim being measured (the server is shutting down)."""
        self._cancel.set()

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
            from attnlab.claims import all_checks  # imports every figure's checks

            checks = {
                cid: group
                for cid, group in all_checks().items()
                if self._ids is None or cid in self._ids
            }
            if fast:
                with MEASURING[False]:
                    if fresh:
                        _forget_measured()
                    self._measure(list(checks), full=False, phase="fast")
            while self._take_sweeps(t0):
                with MEASURING[True]:
                    self._measure(self._sweeps_needed(checks), full=True, phase="sweeps")
                with self._lock:
                    self._sweeps_done = not self._cancel.is_set()
        except Exception as err:  # a broken claims module: say so in the panel, keep serving
            log.exception("measuring the claims failed")
            self._update(error=f"{type(err).__name__}: {err}")
        finally:
            with self._lock:
                self._end_run(t0)

    def _take_sweeps(self, t0: float) -> bool:
        """Whether to measure the sweeps now; if not, the run ends under the same lock, so a
        `want_sweeps()` either sees this run going on (and is taken) or a new one starts."""
        with self._lock:
            go = self._sweeps_wanted and not self._cancel.is_set()
            self._sweeps_wanted = False
            if not go:
                self._end_run(t0)
            return go

    def _end_run(self, t0: float) -> None:
        """Mark this thread's run as finished (once); the caller holds the lock."""
        if self._thread is not threading.current_thread() or not self._active:
            return
        self._active = False
        if self._state is not None:
            self._state.current = None
            self._state.seconds = round(time.perf_counter() - t0, 3)

    def _measure(self, ids: list[str], *, full: bool, phase: str) -> None:
        from attnlab.claims import run_claim

        self._update(phase=phase, done=0, total=len(ids))
        for i, cid in enumerate(ids):
            if self._cancel.is_set():
                return
            self._update(current=cid, done=i)
            t0 = time.perf_counter()
            try:
                result = run_claim(cid, full).to_dict()
            except Exception as err:  # one broken check must not hide the others
                log.exception("claim %s failed", cid)
                result = {"id": cid, "ok": False, "error": f"{type(err).__name__}: {err}"}
                self._update(error=f"{cid}: {result['error']}")
            result["seconds"] = round(time.perf_counter() - t0, 4)
            with self._lock:
                self._seq += 1
                self._changed[cid] = self._seq
                if full:
                    self._sweeps[cid] = dict(result.get("values", {}))
                else:
                    self._results[cid] = result
        self._update(done=len(ids))

    def _sweeps_needed(self, checks: dict[str, Any]) -> list[str]:
        """Claims whose text values only their slow check gives, and not measured yet."""
        needs = self._needs if self._needs is not None else _text_needs()
        have = self.values()
        return [
            cid
            for cid, group in checks.items()
            if any(c.slow for c in group) and _names_missing(cid, needs, have)
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


def _forget_measured() -> None:
    """Clear every cached result so that a re-run measures from scratch: the registry's cache
    (`run_claim`) and the caches of the claims modules (e.g. FIG 2's trained models)."""
    from attnlab.claims import run_claim

    run_claim.cache_clear()
    for name, module in list(sys.modules.items()):
        if not name.startswith("attnlab.claims.") or module is None:
            continue
        for obj in vars(module).values():
            if getattr(obj, "__module__", None) == name and hasattr(obj, "cache_clear"):
                obj.cache_clear()
