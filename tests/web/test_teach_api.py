"""The teacher's view is the teacher's alone: /teach, /api/teach/… and /ws/teach need the
teacher's token, from every address; a learner's token, no token, a foreign host name and a
page of another site are refused, and a learner cannot send "show everyone"."""

from __future__ import annotations

import json

import pytest
from starlette.websockets import WebSocketDisconnect

TEACHER, JOIN = "teacher-token-" + "t" * 20, "join-token-" + "j" * 20
SEAT = "5eed" * 8
AS_TEACHER = {"authorization": f"Bearer {TEACHER}"}
AS_LEARNER = {"authorization": f"Bearer {JOIN}"}
SHOW = {"figure": "scaling", "settings": {"d_k": "256"}, "follow": False}
ROUTES = [("GET", "/teach"), ("GET", "/api/teach/class"), ("POST", "/api/teach/show")]


@pytest.fixture
def lesson(make_client):
    """A class: a join token for the learners, a teacher token for the teacher."""
    return make_client(join_token=JOIN, teacher_token=TEACHER, train_workers=1, train_capacity=2)


def _ask(client, method: str, path: str, headers: dict[str, str]):
    body = json.dumps(SHOW) if method == "POST" else None
    return client.request(method, path, content=body, headers=headers)


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_the_teacher_s_token_opens_the_teacher_s_routes(lesson, method: str, path: str) -> None:
    assert _ask(lesson, method, path, AS_TEACHER).status_code == 200


@pytest.mark.parametrize(("method", "path"), ROUTES)
@pytest.mark.parametrize(
    "who", [{}, AS_LEARNER, {"cookie": f"attnlab_token={JOIN}"}, {"authorization": "Bearer x"}]
)
def test_a_learner_s_token_or_none_is_refused(lesson, method, path, who) -> None:
    answer = _ask(lesson, method, path, who)
    assert answer.status_code == 401, answer.text


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_a_foreign_host_name_is_refused_even_with_the_teacher_s_token(lesson, method, path):
    answer = _ask(lesson, method, path, {**AS_TEACHER, "host": "evil.example"})
    assert answer.status_code == 400


@pytest.mark.parametrize(("method", "path"), ROUTES)
@pytest.mark.parametrize(
    "foreign", [{"origin": "http://evil.example"}, {"sec-fetch-site": "cross-site"}]
)
def test_another_site_s_page_is_refused_even_a_get(lesson, method, path, foreign) -> None:
    answer = _ask(lesson, method, path, {**AS_TEACHER, **foreign})
    assert answer.status_code == 403, answer.text


def test_the_teacher_link_stores_the_token_in_a_strict_cookie(make_client) -> None:
    client = make_client(teacher_token=TEACHER, train_workers=1, train_capacity=2)
    assert client.get("/teach?teacher=wrong", follow_redirects=False).status_code == 401
    answer = client.get(f"/teach?teacher={TEACHER}", follow_redirects=False)
    assert answer.status_code == 200 and 'url=/teach"' in answer.text
    cookie = answer.headers["set-cookie"]
    assert f"attnlab_teacher={TEACHER}" in cookie and "HttpOnly" in cookie
    assert "samesite=strict" in cookie.lower()
    assert client.get("/api/teach/class").status_code == 200  # the cookie is kept by the client


def test_the_teacher_s_token_passes_the_guard_beyond_loopback_too(lesson) -> None:
    # the test client's address is not loopback: the join token would be needed, or this one
    assert lesson.get("/api/figures", headers=AS_TEACHER).status_code == 200
    assert lesson.get("/api/figures").status_code == 401


def test_without_a_class_there_is_no_teacher_s_view(make_client) -> None:
    client = make_client(train_workers=1, train_capacity=2)
    assert client.get("/teach", headers=AS_TEACHER).status_code == 404
    assert client.get("/api/teach/class", headers=AS_TEACHER).status_code == 404
    with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws/class") as ws:
        ws.receive_text()


def test_the_teacher_s_token_must_differ_from_the_learners(make_client) -> None:
    with pytest.raises(ValueError, match="differ"):
        make_client(join_token=JOIN, teacher_token=JOIN)


@pytest.mark.parametrize(
    "who", [{}, AS_LEARNER, {**AS_TEACHER, "origin": "http://evil.example"},
            {**AS_TEACHER, "host": "evil.example"}],
)  # fmt: skip
def test_the_teacher_s_socket_refuses_all_but_the_teacher(lesson, who) -> None:
    with pytest.raises(WebSocketDisconnect):  # noqa: SIM117
        with lesson.websocket_connect("/ws/teach", headers=who) as ws:
            ws.receive_text()


def test_a_learner_cannot_show_everyone(lesson) -> None:
    """A "show" on the learner's socket is an unknown message; the POST needs the teacher."""
    with lesson.websocket_connect("/ws/class", headers=AS_LEARNER) as sender, \
            lesson.websocket_connect("/ws/class", headers=AS_LEARNER) as other:  # fmt: skip
        sender.send_text(json.dumps({"type": "hello", "seat": SEAT}))
        other.send_text(json.dumps({"type": "hello", "seat": "0" * 32}))
        assert json.loads(sender.receive_text())["type"] == "seat"
        assert json.loads(other.receive_text())["type"] == "seat"
        sender.send_text(json.dumps({"type": "show", "figure": "scaling", "settings": {}}))
        refused = json.loads(sender.receive_text())
        assert refused["type"] == "error"
        assert "hello, status, progress, name or result" in refused["message"]
        assert _ask(lesson, "POST", "/api/teach/show", AS_LEARNER).status_code == 401
        # what the teacher sends does reach the other page: it was the first thing it got
        assert _ask(lesson, "POST", "/api/teach/show", AS_TEACHER).status_code == 200
        assert json.loads(other.receive_text())["type"] == "show"
