"""The answer cache: bounded in entries and bytes, expiring, one compute for concurrent askers,
and what it sends is what a fresh compute sends."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from attnlab.figures import compute_figure
from attnlab.web.answer_cache import AnswerCache
from attnlab.web.figure_answers import FigureAnswers, encode
from attnlab.web.inputs import InputError


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_an_answer_is_computed_once_and_then_kept() -> None:
    cache = AnswerCache()
    calls = []
    for _ in range(3):
        assert cache.get("k", lambda: calls.append(1) or b"answer") == b"answer"
    assert len(calls) == 1
    assert cache.stats().hits == 2 and cache.stats().computes == 1


def test_answers_expire() -> None:
    clock = Clock()
    cache = AnswerCache(ttl_s=15.0, clock=clock)
    cache.get("k", lambda: b"old")
    clock.now = 14.9
    assert cache.get("k", lambda: b"new") == b"old"
    clock.now = 15.0
    assert cache.get("k", lambda: b"new") == b"new"


def test_expired_answers_leave_at_the_next_keep_even_when_used_since() -> None:
    """Their bytes are not held past ttl_s (an answer used often still expires: one used at 10 s
    is as old as it was computed), and only they leave."""
    clock = Clock()
    cache = AnswerCache(ttl_s=15.0, clock=clock)
    cache.get("a", lambda: b"1" * 10)
    clock.now = 5.0
    cache.get("b", lambda: b"2" * 20)
    clock.now = 10.0
    cache.get("a", lambda: b"x")  # a hit: a is the most recently used now
    clock.now = 16.0
    cache.get("c", lambda: b"3" * 30)  # a expired at 15
    assert (cache.stats().entries, cache.stats().bytes) == (2, 50)
    assert cache.get("b", lambda: b"recomputed") == b"2" * 20


def test_the_entry_bound_drops_the_least_recently_used() -> None:
    cache = AnswerCache(max_entries=2)
    cache.get("a", lambda: b"1")
    cache.get("b", lambda: b"2")
    cache.get("a", lambda: b"x")  # a is used again: b is now the oldest
    cache.get("c", lambda: b"3")
    assert cache.stats().entries == 2
    assert cache.get("a", lambda: b"recomputed") == b"1"
    assert cache.get("b", lambda: b"recomputed") == b"recomputed"


def test_the_byte_bound_holds_and_an_oversized_answer_is_sent_not_kept() -> None:
    cache = AnswerCache(max_bytes=100)
    for key in range(10):
        cache.get(key, lambda: b"x" * 30)
        assert cache.stats().bytes <= 100
    assert cache.stats().entries == 3
    assert cache.get("big", lambda: b"y" * 101) == b"y" * 101
    assert cache.stats().bytes <= 100
    assert cache.get("big", lambda: b"again") == b"again"


def test_forty_identical_requests_at_once_compute_once() -> None:
    cache = AnswerCache()
    calls = []
    started = threading.Event()

    def slow() -> bytes:
        calls.append(1)
        started.set()
        time.sleep(0.2)  # the others arrive while this computes
        return b"answer"

    with ThreadPoolExecutor(40) as pool:
        answers = list(pool.map(lambda _: cache.get("k", slow), range(40)))
    assert answers == [b"answer"] * 40
    assert len(calls) == 1


def test_a_failed_compute_reaches_every_waiter_and_is_not_kept() -> None:
    cache = AnswerCache()
    gate = threading.Event()

    def failing() -> bytes:
        gate.wait(2)
        raise ValueError("engine failed")

    with ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(cache.get, "k", failing) for _ in range(4)]
        time.sleep(0.1)
        gate.set()
        for future in futures:
            with pytest.raises(ValueError, match="engine failed"):
                future.result()
    assert cache.get("k", lambda: b"fine") == b"fine"


def test_bounds_must_leave_room() -> None:
    with pytest.raises(ValueError):
        AnswerCache(max_entries=0)
    with pytest.raises(ValueError):
        AnswerCache(ttl_s=0)


def test_a_cached_figure_answer_is_the_fresh_compute() -> None:
    answers = FigureAnswers(["scaling", "lookup"], AnswerCache())
    raw = {"d_k": "16", "scaled": "false"}
    first = answers.encoded("scaling", raw, "text", "query")
    again = answers.encoded("scaling", {"d_k": 16, "scaled": False}, "json", "body")
    assert first == again == encode(compute_figure("scaling", raw))
    assert answers.cache.stats().computes == 1  # "16" in a URL and 16 in a body: one entry


def test_bad_settings_are_refused_before_the_cache() -> None:
    answers = FigureAnswers(["scaling"], AnswerCache())
    with pytest.raises(InputError) as err:
        answers.encoded("scaling", {"d_k": "nope"}, "text", "query")
    assert err.value.loc == ("query", "d_k")
    assert answers.cache.stats().computes == 0
