"""The class at a glance, from the seats: counts, a try-it's ticks, an exercise's first tries."""

from __future__ import annotations

from attnlab.classroom import Seat, class_counts
from attnlab.classroom.lessonids import lesson_ids


def test_counts_ticks_and_first_tries_follow_the_seats() -> None:
    ids = lesson_ids()
    (right,) = ids.exercises[0][1]
    wrong = (right + 1) % 4
    seats = [
        Seat("a" * 32, 1, tries=("sharpen", "rope-shift"), first={"E1": right}),
        Seat("b" * 32, 2, training=True, tries=("sharpen",), first={"E1": wrong}),
        Seat("c" * 32, 3, queued=True),
        Seat("d" * 32, 4, shown=False, name="Ada"),
    ]
    view = class_counts(seats, ids)
    assert [view[k] for k in ("joined", "reading", "training", "queued")] == [4, 1, 1, 1]
    done = {t["id"]: t["done"] for t in view["tries"]}
    assert done["sharpen"] == 2 and done["rope-shift"] == 1 and sum(done.values()) == 3
    assert [t["id"] for t in view["tries"]] == [i for i, _ in ids.tries]  # lesson order
    e1 = view["exercises"][0]
    assert (e1["id"], e1["answered"], e1["first_right"]) == ("E1", 2, 1)
    states = [(s["number"], s["name"], s["state"]) for s in view["seats"]]
    assert states == [
        (1, "", "reading"),
        (2, "", "training"),
        (3, "", "queued"),
        (4, "Ada", "away"),
    ]


def test_a_seat_is_plain_json_both_ways() -> None:
    seat = Seat("a" * 32, 7, name="Bo", tries=("sharpen",), first={"E2": 3})
    assert Seat.from_dict(seat.to_dict()) == seat
    assert seat.to_dict()["tries"] == ["sharpen"]
