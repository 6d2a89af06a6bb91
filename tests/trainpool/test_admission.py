"""Slots and the line, as bookkeeping: who holds, who waits, who is told what."""

from __future__ import annotations

from attnlab.trainpool.admission import Admission


class Reader:
    def __init__(self, name: str) -> None:
        self.name, self.told = name, []

    def admitted(self) -> None:
        self.told.append("admitted")

    def moved(self, place: int) -> None:
        self.told.append(place)


def test_up_to_the_capacity_hold_then_a_line_in_order() -> None:
    slots = Admission(2)
    a, b, c, d = (Reader(n) for n in "abcd")
    assert [slots.request(r) for r in (a, b, c, d)] == [0, 0, 1, 2]
    assert slots.request(c) == 1  # asking again keeps the place
    slots.release(a)
    assert c.told == ["admitted"] and d.told == [1]
    assert slots.holds(c) and slots.place(d) == 1


def test_leaving_the_line_moves_those_behind() -> None:
    slots = Admission(1)
    a, b, c, d = (Reader(n) for n in "abcd")
    for r in (a, b, c, d):
        slots.request(r)
    slots.release(b)  # b stops waiting
    assert (slots.place(c), slots.place(d)) == (1, 2)
    assert c.told == [1] and d.told == [2]
    slots.release(Reader("never asked"))  # nothing changes
    assert len(slots.holders) == 1 and len(slots.line) == 2


def test_a_freed_slot_is_not_taken_past_the_line() -> None:
    slots = Admission(1)
    a, b, c = Reader("a"), Reader("b"), Reader("c")
    slots.request(a), slots.request(b)
    slots.release(a)
    assert slots.holds(b)
    assert slots.request(c) == 1  # full again: c waits, though it came when b was admitted
