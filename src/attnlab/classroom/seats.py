"""A learner's seat, and the class at a glance computed from all of them.

A seat is what the teacher's view knows of one open page: a number ("Seat 7"), the name the
learner typed (optional), whether the page is shown, training or waiting in line, which
try-its it has ticked through and the first option it chose in each exercise. Nothing else:
no address, no account, and it is forgotten when the page closes or goes quiet.
`to_dict` / `from_dict` are the seat as plain JSON (a shared store keeps it that way).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from attnlab.classroom.lessonids import LessonIds


@dataclass
class Seat:
    key: str  # the page's random id (lib/presence.js), never shown
    number: int
    name: str = ""
    shown: bool = True
    training: bool = False
    queued: bool = False
    tries: tuple[str, ...] = ()  # try-its with every stage ticked
    first: dict[str, int] = field(default_factory=dict)  # exercise → first option chosen
    result: dict[str, Any] | None = None  # "one seed each": its FIG 2's final errors

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "tries": list(self.tries)}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Seat:
        return cls(**{**raw, "tries": tuple(raw.get("tries", ()))})

    @property
    def reading(self) -> bool:
        return self.shown and not (self.training or self.queued)


def class_counts(seats: list[Seat], ids: LessonIds) -> dict[str, Any]:
    """What the teacher's page draws: counts, each try-it's ticks, each exercise's first tries."""
    ordered = sorted(seats, key=lambda s: s.number)
    return {
        "joined": len(ordered),
        "reading": sum(s.reading for s in ordered),
        "training": sum(s.training for s in ordered),
        "queued": sum(s.queued for s in ordered),
        "seats": [_seat_line(s) for s in ordered],
        "tries": [
            {"id": t, "figure": fig, "done": sum(t in s.tries for s in ordered)}
            for t, fig in ids.tries
        ],
        "exercises": [
            {
                "id": e,
                "answered": sum(e in s.first for s in ordered),
                "first_right": sum(e in s.first and ids.right(e, s.first[e]) for s in ordered),
            }
            for e, _, _ in ids.exercises
        ],
    }


def _seat_line(seat: Seat) -> dict[str, Any]:
    state = "training" if seat.training else "queued" if seat.queued else "reading"
    return {
        "number": seat.number,
        "name": seat.name,
        "state": state if seat.shown or state != "reading" else "away",
        "tries": len(seat.tries),
    }
