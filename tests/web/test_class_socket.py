"""/ws/class and /ws/teach: a learner's page reports, the teacher's view follows; a page
that does not say hello first is closed; a closed page leaves its seat."""

from __future__ import annotations

import json

import pytest
from starlette.websockets import WebSocketDisconnect

TEACHER = "teacher-token-" + "t" * 20
AS_TEACHER = {"authorization": f"Bearer {TEACHER}"}
A, B = "a" * 32, "b" * 32


@pytest.fixture
def lesson(make_client):
    return make_client(teacher_token=TEACHER, train_workers=1, train_capacity=2)


def _hello(ws, seat: str, name: str = "") -> dict:
    ws.send_text(json.dumps({"type": "hello", "seat": seat, "name": name}))
    return json.loads(ws.receive_text())


def _class(client) -> dict:
    return client.get("/api/teach/class", headers=AS_TEACHER).json()


def test_what_learners_report_is_the_class_at_a_glance(lesson) -> None:
    with lesson.websocket_connect("/ws/class") as one, lesson.websocket_connect("/ws/class") as two:
        assert _hello(one, A) == {"type": "seat", "number": 1, "name": ""}
        assert _hello(two, B, "Ada")["number"] == 2
        one.send_text(
            json.dumps({"type": "progress", "tries": ["sharpen"], "exercises": {"E1": 1}})
        )
        two.send_text(json.dumps({"type": "status", "shown": True, "training": True}))
        two.send_text(json.dumps({"type": "name", "name": "Bo"}))
        one.send_text(json.dumps({"type": "status", "shown": False}))
        one.send_text('{"type": "nope"}')  # answered with an error, then the seat is still there
        assert json.loads(one.receive_text())["type"] == "error"
        view = _class(lesson)
        assert [view[k] for k in ("joined", "reading", "training", "queued")] == [2, 0, 1, 0]
        assert [(s["number"], s["name"], s["state"]) for s in view["seats"]] == [
            (1, "", "away"), (2, "Bo", "training")]  # fmt: skip
        assert {t["id"]: t["done"] for t in view["tries"]}["sharpen"] == 1
        assert view["exercises"][0] == {"id": "E1", "answered": 1, "first_right": 1}
        assert view["load"]["capacity"] == 2  # the server's load beside the class
    assert _class(lesson)["joined"] == 0  # both pages closed: both seats are free


def test_the_teacher_s_socket_sends_the_class_when_it_changes(lesson) -> None:
    with lesson.websocket_connect("/ws/teach", headers=AS_TEACHER) as teacher:
        assert json.loads(teacher.receive_text())["joined"] == 0
        with lesson.websocket_connect("/ws/class") as learner:
            _hello(learner, A)
            assert json.loads(teacher.receive_text())["joined"] == 1
            learner.send_text(json.dumps({"type": "progress", "tries": ["rope-shift"]}))
            view = json.loads(teacher.receive_text())
            assert {t["id"]: t["done"] for t in view["tries"]}["rope-shift"] == 1
        assert json.loads(teacher.receive_text())["joined"] == 0


@pytest.mark.parametrize(
    "first", ['{"type": "status", "shown": true}', "{nope", '{"type":"hello"}']
)
def test_a_page_that_does_not_say_hello_first_is_closed(lesson, first: str) -> None:
    with lesson.websocket_connect("/ws/class") as ws:
        ws.send_text(first)
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
    assert closed.value.code == 1008


def test_past_the_last_seat_a_page_is_told_full(make_client) -> None:
    client = make_client(teacher_token=TEACHER, max_seats=1, train_workers=1, train_capacity=2)
    with client.websocket_connect("/ws/class") as one, client.websocket_connect("/ws/class") as two:
        _hello(one, A)
        two.send_text(json.dumps({"type": "hello", "seat": B}))
        with pytest.raises(WebSocketDisconnect) as closed:
            two.receive_text()
    assert closed.value.code == 1013
