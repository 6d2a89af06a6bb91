"""Readers present: counted for a while, bounded, guarded, and in the stated capacity."""

from __future__ import annotations

import pytest

from attnlab.web import create_app
from attnlab.web.presence import Presence
from attnlab.web.readercost import NO_FIGURE, figure_request_cpu_s, get_status, stack_cpu_s
from tests import aio

A, B, C = "a" * 32, "b" * 32, "c" * 32


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_reader_counts_until_it_has_not_been_heard_from_for_the_expiry() -> None:
    clock = Clock()
    p = Presence(expiry_s=60, max_readers=10, clock=clock)
    p.ping(A)
    p.ping(B)
    p.ping(A)  # the same tab again is one reader
    assert p.count() == 2
    clock.now += 40
    p.ping(B)
    clock.now += 30  # A last heard 70 s ago, B 30 s ago
    assert p.count() == 1


def test_the_table_is_bounded_and_the_one_heard_from_longest_ago_makes_room() -> None:
    clock = Clock()
    p = Presence(expiry_s=60, max_readers=2, clock=clock)
    for reader in (A, B, C):  # at 100, 101, 102: A makes room for C
        p.ping(reader)
        clock.now += 1
    assert p.count() == 2
    p.ping(B)  # at 103: B heard from again, so C (102) is now the one heard longest ago
    clock.now += 1
    p.ping(A)  # at 104: back, and C makes room (not B, who came first)
    clock.now = 162.5  # C would be 60.5 s old (gone anyway), B 59.5, A 58.5: both still here
    assert p.count() == 2
    clock.now = 163.5  # B gone
    assert p.count() == 1


@pytest.mark.parametrize("bad", ["", "abc", "A" * 32, "g" * 32, "a" * 65, "a" * 31 + "\n"])
def test_an_id_that_is_not_hexadecimal_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="hexadecimal"):
        Presence(expiry_s=60, max_readers=2).ping(bad)


def test_the_page_says_it_is_here_and_the_capacity_counts_it(make_client) -> None:
    client = make_client(reader_expiry_s=60)
    before = client.get("/api/training/capacity").json()
    assert before["readers"] == 0
    answer = client.post("/api/presence", json={"reader": A})
    assert answer.status_code == 200
    load = answer.json()
    assert load["readers"] == 1 and load["class_size"] == 1
    assert load["capacity_while_dragging"] <= load["capacity"]
    assert load["over_capacity"] is (load["capacity_while_dragging"] < 1)
    client.post("/api/presence", json={"reader": B})
    assert client.get("/api/training/capacity").json()["readers"] == 2


@pytest.mark.parametrize(
    ("body", "status"),
    [({"reader": "zz"}, 422), ({"reader": 5}, 422), ({"id": A}, 422), ([A], 422),
     ({"reader": A, "more": 1}, 422), ({"reader": "a" * 100_000}, 413)],
)  # fmt: skip
def test_a_bad_presence_is_told_what_is_wrong(make_client, body, status: int) -> None:
    answer = make_client().post("/api/presence", json=body)
    assert answer.status_code == status
    assert answer.json()["detail"]


def test_presence_is_guarded_like_every_post(make_client) -> None:
    client = make_client()
    foreign = client.post("/api/presence", json={"reader": A},
                          headers={"origin": "https://elsewhere.example"})  # fmt: skip
    assert foreign.status_code == 403
    form = client.post("/api/presence", content=f"reader={A}",
                       headers={"content-type": "application/x-www-form-urlencoded"})  # fmt: skip
    assert form.status_code == 415
    assert client.get("/api/training/capacity").json()["readers"] == 0


def test_a_figure_request_costs_a_measured_positive_time() -> None:
    cost = figure_request_cpu_s(["lookup", "scaling"])
    assert 0 < cost < 1.0  # seconds of CPU for one warm answer: milliseconds, not nothing
    with pytest.raises(ValueError):
        figure_request_cpu_s([])


def test_the_app_s_own_stack_is_measured_through_a_request_that_computes_nothing() -> None:
    app = create_app()
    assert aio.run(get_status(app, NO_FIGURE)) == 404  # the guard let it in; no figure ran
    assert 0 < aio.in_thread(stack_cpu_s, app) < 1.0  # as the start-up thread measures
