"""Who may train now: up to `capacity` sessions hold a slot, the others wait in line, in order.

Pure bookkeeping (no clock, no I/O), changed only on the event loop: the socket asks for a
slot when its reader presses Train or Step, gives it back when the socket closes or its run
has been paused for the grace period, and leaves the line when it stops waiting. Whenever a
slot frees, the first in line gets it, and everyone behind is told their new place.
"""

from __future__ import annotations

from collections import deque
from typing import Protocol


class Waiter(Protocol):
    def admitted(self) -> None:
        """It now holds a slot (it was first in line)."""

    def moved(self, place: int) -> None:
        """Its place in line changed (1 = next)."""


class Admission:
    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.holders: set[Waiter] = set()
        self.line: deque[Waiter] = deque()

    def request(self, who: Waiter) -> int:
        """0 if `who` holds a slot now, else its place in line (1-based)."""
        if who in self.holders:
            return 0
        if who in self.line:
            return self.line.index(who) + 1
        if len(self.holders) < self.capacity and not self.line:
            self.holders.add(who)
            return 0
        self.line.append(who)
        return len(self.line)

    def release(self, who: Waiter) -> None:
        """`who` gives back its slot or leaves the line; whoever can moves up."""
        if who in self.holders:
            self.holders.discard(who)
        elif who in self.line:
            self.line.remove(who)
        else:
            return
        self._advance()

    def _advance(self) -> None:
        admitted = []
        while self.line and len(self.holders) < self.capacity:
            first = self.line.popleft()
            self.holders.add(first)
            admitted.append(first)
        for who in admitted:
            who.admitted()
        for place, who in enumerate(self.line, start=1):
            who.moved(place)

    def holds(self, who: Waiter) -> bool:
        return who in self.holders

    def place(self, who: Waiter) -> int | None:
        return self.line.index(who) + 1 if who in self.line else None
