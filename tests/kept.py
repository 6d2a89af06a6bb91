"""One claims runner for the lesson servers a test process keeps (the e2e servers, the web
tests' shared client), in a module of its own so that the conftests and the tests that ask it
for the sweeps hold the same one.

Each app would measure every claim again (its fast checks at start-up, ~13 s of CPU; the seed
sweeps once a page asks for the text, about a minute more) beside the tests, for numbers that
cannot differ: one runner measures them once and each server shows them, the sweeps only when a
test asks for them (`kept_measurements().sweeps()`). It measures as an equal of the tests beside
it (nice 0): they wait for its numbers, and at MEASURE_NICE a busy machine left it a few per cent
of a core.
"""

from __future__ import annotations

from attnlab.claims.runner import Measurements


class KeptMeasurements(Measurements):
    def close(self) -> None:
        """A server's shutdown: kept for the next server (`end` ends it)."""

    def want_sweeps(self) -> None:
        """A page asked for the text: not here. Each process of the suite with a page open
        would sweep (a minute of CPU each) for numbers only the tests that call `sweeps()` read;
        that a page's request starts them is tests/web/test_lesson_api.py's."""

    def sweeps(self) -> None:
        super().want_sweeps()

    def end(self) -> None:
        super().close()


_KEPT: list[KeptMeasurements] = []


def kept_measurements() -> KeptMeasurements:
    """The claims runner of the servers this process keeps (made on first use)."""
    if not _KEPT:
        _KEPT.append(KeptMeasurements(nice=0))
    return _KEPT[0]


def end_kept_measurements() -> None:
    """The session's end: the runner's measuring process ends."""
    while _KEPT:
        _KEPT.pop().end()
