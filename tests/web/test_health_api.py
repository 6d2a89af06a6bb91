"""GET /healthz: 200 once training can take learners, 503 while starting or degraded, cheap."""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args

from attnlab import __version__
from attnlab.trainpool.health import State
from attnlab.web import WebSettings, create_app
from attnlab.web.health_api import Health

from .conftest import LocalClient

# A frame length no other test uses: these tests get a pool of their own (pools are shared per
# process by their settings), so killing its worker or holding its start disturbs no one else.
OWN_POOL = {"train_workers": 1, "frame_s": 0.043}
README = Path(__file__).resolve().parents[2] / "README.md"
TOKEN = "join-me-0123456789"


def _until(client: LocalClient, done: Callable[[Any], bool], timeout: float = 60.0) -> Any:
    """Poll /healthz until `done(answer)`; the answers seen on the way are not asserted."""
    end = time.monotonic() + timeout
    while True:
        answer = client.get("/healthz")
        if done(answer) or time.monotonic() > end:
            return answer
        time.sleep(0.01)


def _ok(answer: Any) -> bool:
    return answer.status_code == 200


def test_ok_once_the_workers_run_and_the_capacity_is_known(make_client) -> None:
    client = make_client(train_workers=1)
    answer = _until(client, _ok)
    assert answer.status_code == 200 and answer.headers["cache-control"] == "no-store"
    body = answer.json()
    assert (body["status"], body["version"], body["pid"]) == ("ok", __version__, os.getpid())
    assert body["server_processes"] == 1 and body["uptime_s"] >= 0
    training = body["training"]
    assert (training["state"], training["workers"], training["workers_alive"]) == ("ok", 1, 1)
    assert training["capacity"] == client.get("/api/training/capacity").json()["capacity"]
    assert (training["training"], training["queued"], training["problem"]) == (0, 0, None)
    assert isinstance(body["claims"]["measuring"], bool)
    head = client.head("/healthz")
    assert (head.status_code, head.content) == (200, b"")


def test_an_open_training_socket_is_counted(make_client) -> None:
    client = make_client(train_workers=1)
    _until(client, _ok)
    before = client.get("/healthz").json()["training"]["open_sessions"]
    with client.websocket_connect("/ws/train") as ws:
        assert ws.receive_json()["type"] == "state"  # its model now lives in a worker
        assert client.get("/healthz").json()["training"]["open_sessions"] == before + 1


def _held_start(app: Any, monkeypatch, gate: threading.Event) -> None:
    pool = app.state.training.pool
    start = pool.start

    def held() -> None:
        assert gate.wait(60), "the test never let the pool start"
        start()

    monkeypatch.setattr(pool, "start", held)


def test_starting_answers_503_until_the_capacity_is_known(monkeypatch) -> None:
    app, gate = create_app(WebSettings(**OWN_POOL)), threading.Event()
    _held_start(app, monkeypatch, gate)
    with LocalClient(app) as client:
        answer = client.get("/healthz")
        assert answer.status_code == 503
        body = answer.json()
        assert (body["status"], body["training"]["capacity"]) == ("starting", None)
        assert body["training"]["workers_alive"] == 0 and body["training"]["problem"] is None
        assert client.head("/healthz").status_code == 503
        gate.set()
        assert _until(client, _ok).json()["status"] == "ok"


def test_workers_that_fail_to_start_are_degraded(monkeypatch) -> None:
    app = create_app(WebSettings(**OWN_POOL))

    def fails() -> None:
        raise RuntimeError("no process may be spawned here")

    monkeypatch.setattr(app.state.training.pool, "start", fails)
    with LocalClient(app) as client:
        answer = _until(client, lambda a: a.json()["status"] != "starting")
        assert answer.status_code == 503 and answer.json()["status"] == "degraded"
        assert "no process may be spawned here" in answer.json()["training"]["problem"]


def test_a_killed_worker_is_degraded_until_its_replacement_runs() -> None:
    with LocalClient(create_app(WebSettings(**OWN_POOL))) as client:
        assert _until(client, _ok).status_code == 200
        pool = client.app.state.training.pool
        (dead,) = pool._workers
        dead.process.kill()
        # The pool replaces a dead worker: the new one times itself first (about a second),
        # and until it runs, the dead one is what the pool has.
        down = _until(client, lambda a: a.status_code == 503, timeout=10)
        body = down.json()
        assert (down.status_code, body["status"]) == (503, "degraded")
        assert (body["training"]["workers"], body["training"]["workers_alive"]) == (1, 0)
        assert body["training"]["problem"] == "1 of 1 training worker processes not running"
        assert _until(client, _ok).status_code == 200
        assert pool._workers[0] is not dead and pool._workers[0].process.is_alive()


def test_the_guard_applies_and_loopback_needs_no_token() -> None:
    app = create_app(WebSettings(join_token=TOKEN))
    with LocalClient(app, client=("127.0.0.1", 50000)) as local:  # a probe on this machine
        assert local.get("/healthz").status_code in (200, 503)  # needs no token
        assert local.get("/healthz", headers={"host": "evil.example"}).status_code == 400
    with LocalClient(app, client=("10.1.2.3", 50000)) as monitor:
        assert monitor.get("/healthz").status_code == 401
        shown = monitor.get("/healthz", headers={"authorization": f"Bearer {TOKEN}"})
        assert shown.status_code in (200, 503) and "status" in shown.json()


def test_the_openapi_description_has_both_answers(client) -> None:
    responses = client.get("/openapi.json").json()["paths"]["/healthz"]["get"]["responses"]
    for code in ("200", "503"):
        schema = responses[code]["content"]["application/json"]["schema"]
        assert schema == {"$ref": "#/components/schemas/Health"}


def _readme_answers() -> list[dict[str, Any]]:
    text = README.read_text(encoding="utf-8")
    section = text.split("### What /healthz answers", 1)[1].split("\n## ", 1)[0]
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", section, re.S)]


def test_the_readme_shows_each_state_as_the_server_answers_it(client) -> None:
    examples = _readme_answers()
    assert sorted(e["status"] for e in examples) == sorted(get_args(State))
    live = _until(client, _ok).json()
    for example in examples:
        Health.model_validate(example)
        assert set(example) == set(live) and set(example["training"]) == set(live["training"])
        assert example["training"]["state"] == example["status"]


def test_it_asks_no_worker_anything(client, monkeypatch) -> None:
    """Cheap, and it answers while every worker is busy: nothing is sent down a pipe."""
    from attnlab.trainpool import pool

    _until(client, _ok)

    def refuse(*_: Any) -> None:
        raise AssertionError("/healthz sent a worker a command")

    monkeypatch.setattr(pool._Worker, "send", refuse)
    assert client.get("/healthz").status_code == 200
