"""Recent answers, kept a few seconds, so that a class asking the same thing costs one compute.

Forty learners open the join link at once and their pages ask for the same figures at the same
settings; a class following the teacher drags to the same values. An answer (its encoded bytes)
asked for in the last `ttl_s` seconds by anyone is sent again, and a request that arrives while
the same answer is being computed waits for that compute instead of starting its own (single
flight). The cache is bounded in entries and in bytes; an answer larger than the byte bound is
sent but not kept, and a failed compute is not kept either (each waiter gets its error).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from dataclasses import dataclass


@dataclass(frozen=True)
class CacheStats:
    entries: int
    bytes: int
    hits: int
    computes: int


class AnswerCache:
    """Encoded answers by key: bounded (entries, bytes), expiring, one compute per key at once.

    Thread-safe: the figure routes call it from the server's worker threads.
    """

    def __init__(
        self,
        *,
        max_entries: int = 512,
        max_bytes: int = 32 * 1024 * 1024,
        ttl_s: float = 15.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_entries < 1 or max_bytes < 1 or ttl_s <= 0:
            raise ValueError("an answer cache needs room for one entry and a positive lifetime")
        self.max_entries, self.max_bytes, self.ttl_s = max_entries, max_bytes, ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        # key → (expiry, answer), least recently used first
        self._kept: OrderedDict[Hashable, tuple[float, bytes]] = OrderedDict()
        # key → expiry, in the order kept: every entry lives ttl_s, so this is also the order
        # they expire in, and the expired ones are found at its front (a scan of every entry on
        # each keep cost a third of a millisecond, as much as many a figure's compute)
        self._expiry: OrderedDict[Hashable, float] = OrderedDict()
        self._bytes = 0
        self._flying: dict[Hashable, Future[bytes]] = {}
        self._hits = 0
        self._computes = 0

    def get(self, key: Hashable, compute: Callable[[], bytes]) -> bytes:
        """The answer for `key`: kept, being computed by another request, or computed now."""
        with self._lock:
            kept = self._fresh(key)
            if kept is not None:
                self._hits += 1
                return kept
            flying = self._flying.get(key)
            if flying is None:
                mine: Future[bytes] = Future()
                self._flying[key] = mine
                self._computes += 1
        if flying is not None:
            with self._lock:
                self._hits += 1
            return flying.result()
        return self._compute(key, compute, mine)

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(len(self._kept), self._bytes, self._hits, self._computes)

    def _compute(self, key: Hashable, compute: Callable[[], bytes], mine: Future[bytes]) -> bytes:
        try:
            answer = compute()
        except BaseException as err:
            with self._lock:
                del self._flying[key]
            mine.set_exception(err)
            raise
        with self._lock:
            del self._flying[key]
            self._keep(key, answer)
        mine.set_result(answer)
        return answer

    def _fresh(self, key: Hashable) -> bytes | None:
        kept = self._kept.get(key)
        if kept is None:
            return None
        if kept[0] <= self._clock():
            self._drop(key)
            return None
        self._kept.move_to_end(key)
        return kept[1]

    def _keep(self, key: Hashable, answer: bytes) -> None:
        if len(answer) > self.max_bytes:
            return  # sent, never kept: it would push out everything else
        if key in self._kept:
            self._drop(key)
        now = self._clock()
        self._kept[key] = (now + self.ttl_s, answer)
        self._expiry[key] = now + self.ttl_s
        self._bytes += len(answer)
        while self._expiry and next(iter(self._expiry.values())) <= now:
            self._drop(next(iter(self._expiry)))
        while len(self._kept) > self.max_entries or self._bytes > self.max_bytes:
            self._drop(next(iter(self._kept)))  # the least recently used

    def _drop(self, key: Hashable) -> None:
        _, answer = self._kept.pop(key)
        del self._expiry[key]
        self._bytes -= len(answer)
