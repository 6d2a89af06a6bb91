"""The stated capacity: learners at the watch pace, and fewer of them while readers drag."""

from __future__ import annotations

import math

import pytest

from attnlab.trainpool.capacity import (
    DRAG_REQUESTS_PER_S,
    UTILISATION,
    WATCH_PACE,
    class_load,
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
