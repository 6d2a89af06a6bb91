"""The stated capacity: learners at the watch pace, and fewer of them while readers drag."""

from __future__ import annotations

import math

import pytest

from attnlab.trainpool.capacity import (
    DRAG_REQUESTS_PER_S,
    PACE_SHARE,
    UTILISATION,
    WATCH_PACE,
    class_load,
    delivered,
    derive,
    reader_cores,
    while_dragging,
)

MACHINE = {"cpus": 4, "server_processes": 1, "workers": 4, "steps_per_s": 900.0}


def _capacity(stacked: float = 1000.0, cost_s: float = 0.002, chosen: int | None = None):
    return derive(
        **MACHINE, stacked_steps_per_s=stacked, chosen=chosen, figure_request_cpu_s=cost_s
    )


def test_no_readers_leave_the_capacity_as_derived() -> None:
    c = _capacity()
    assert c.capacity == math.floor(4 * 1000.0 * UTILISATION / WATCH_PACE)  # 15
    assert while_dragging(c, 0) == c.capacity


def test_readers_take_their_figure_requests_cores_off_the_training() -> None:
    c = _capacity(cost_s=0.004)
    readers = 25
    taken = readers * DRAG_REQUESTS_PER_S * 0.004  # 1 core
    assert reader_cores(readers, 0.004) == pytest.approx(taken)
    expected = math.floor((4 - taken) * 1000.0 * UTILISATION / WATCH_PACE)
    assert while_dragging(c, readers) == expected < c.capacity
    # more readers never leave more room; enough of them leave none
    counts = [while_dragging(c, r) for r in range(0, 200, 10)]
    assert counts == sorted(counts, reverse=True)
    assert while_dragging(c, 1000) == 0


def test_a_chosen_capacity_is_what_the_teacher_chose() -> None:
    c = _capacity(chosen=3)
    assert while_dragging(c, 500) == 3


def test_the_class_is_over_when_more_are_here_than_can_train_while_dragging() -> None:
    c = _capacity(cost_s=0.004)
    room = while_dragging(c, 40)
    load = class_load(c, readers=40, trainers=5)
    assert load["capacity_while_dragging"] == room
    assert load["class_size"] == 40 and load["over_capacity"] is (room < 40)
    small = class_load(c, readers=2, trainers=3)  # a script's trainers count through sockets
    assert small["class_size"] == 3 and small["over_capacity"] is False
    assert load["reader_cores"] == pytest.approx(reader_cores(40, 0.004), abs=1e-3)


def test_the_capacity_states_the_reader_cost_it_counts_on() -> None:
    c = _capacity(cost_s=0.0025)
    stated = c.to_dict()
    assert stated["figure_request_cpu_s"] == pytest.approx(0.0025)
    assert stated["drag_requests_per_s"] == DRAG_REQUESTS_PER_S
    assert "2.5 ms" in c.sentence()


def test_paced_sessions_at_their_pace_leave_the_estimate_as_it_is() -> None:
    c = _capacity(cost_s=0.004)
    at_pace = [(WATCH_PACE * PACE_SHARE, WATCH_PACE), (WATCH_PACE + 3.0, WATCH_PACE)]
    load = class_load(c, readers=40, trainers=2, paced=at_pace)
    assert load["capacity_while_dragging"] == while_dragging(c, 40)
    assert (load["paced_trainers"], load["behind_pace"], load["capacity_delivered"]) == (2, 0, None)


def test_when_a_session_falls_behind_the_capacity_is_what_the_workers_deliver() -> None:
    c = _capacity(cost_s=0.0)  # the estimate: 15, whatever the readers
    got = [(85.0, WATCH_PACE)] * 31  # the class of benchmarks/classroom.py: 31 at 85 steps/s
    measured = delivered(got)
    assert measured["behind_pace"] == 31
    assert measured["delivered_steps_per_s"] == pytest.approx(31 * 85.0)
    assert measured["capacity_delivered"] == math.floor(31 * 85.0 / WATCH_PACE) == 13
    load = class_load(c, readers=40, trainers=31, paced=got)
    assert load["capacity_while_dragging"] == 13 and load["over_capacity"] is True
    # an estimate already below what is delivered stays (the smaller of the two is stated)
    slow = _capacity(stacked=100.0, cost_s=0.0)
    assert class_load(slow, readers=1, trainers=31, paced=got)["capacity_while_dragging"] == 1
    # a capacity set by hand is the teacher's: measured, said, not applied
    chosen = class_load(_capacity(chosen=30), readers=40, trainers=31, paced=got)
    assert chosen["capacity_while_dragging"] == 30 and chosen["capacity_delivered"] == 13


def test_one_learner_a_little_below_the_pace_is_not_a_class_over_capacity() -> None:
    c = _capacity(cost_s=0.0)
    load = class_load(c, readers=1, trainers=1, paced=[(180.0, WATCH_PACE)])
    assert load["behind_pace"] == 1 and load["capacity_delivered"] == 1
    assert load["capacity_while_dragging"] == 1 and load["over_capacity"] is False
