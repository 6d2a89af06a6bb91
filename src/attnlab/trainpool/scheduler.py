"""Fair shares of a worker's time between the sessions that are training.

Each running session is charged the seconds its chunks of steps took; the next chunk goes to
the session, among those due now, that has been charged least (as Linux's CFS picks the task
with the least virtual runtime). So N sessions that all want more than the machine has get
1/N each; a paced session, which asks for little, stays behind the unpaced ones in charged
time and is served first whenever its frame is due ("fastest" never starves it); a session
that joins starts level with the least-charged one, so it neither waits for the others to
catch up nor takes a burst of the machine for itself.
"""

from __future__ import annotations

from collections.abc import Iterable


class FairShare:
    """Charged seconds per session id; `pick` the least-charged of the candidates."""

    def __init__(self) -> None:
        self._charged: dict[int, float] = {}

    def __contains__(self, sid: int) -> bool:
        return sid in self._charged

    def add(self, sid: int) -> None:
        """A session starts (or resumes) training: level with the least-charged running one."""
        floor = min(self._charged.values(), default=0.0)
        self._charged[sid] = max(self._charged.get(sid, floor), floor)

    def remove(self, sid: int) -> None:
        self._charged.pop(sid, None)

    def charge(self, sid: int, seconds: float) -> None:
        if sid in self._charged:
            self._charged[sid] += seconds

    def pick(self, candidates: Iterable[int]) -> int | None:
        """The least-charged candidate (ties: the lowest id, so the order is reproducible)."""
        known = [sid for sid in candidates if sid in self._charged]
        return min(known, key=lambda sid: (self._charged[sid], sid), default=None)

    def charged(self, sid: int) -> float:
        return self._charged[sid]
