"""Slots and the line on /ws/train: who trains, who waits, and who holds nothing."""

from __future__ import annotations

import contextlib
import time

from tests.web.test_training_socket import _opened, _paused, _read_until


def _capacity(client) -> dict:
    answer = client.get("/api/training/capacity")
    assert answer.status_code == 200
    return answer.json()


def test_the_server_states_its_capacity(make_client) -> None:
    stated = _capacity(make_client())
    assert stated["worker_processes"] >= 1 and stated["capacity"] >= 1
    assert stated["steps_per_s"] > 0 and stated["derived"] is True
    assert stated["stacked_steps_per_s"] > 0
    assert (stated["active"], stated["queued"], stated["watch_pace"]) == (0, 0, 200)
    assert _capacity(make_client(train_capacity=3))["capacity"] == 3


def test_sockets_that_never_train_hold_no_slot(make_client) -> None:
    client = make_client(train_capacity=1)
    with contextlib.ExitStack() as stack:
        idle = [stack.enter_context(client.websocket_connect("/ws/train")) for _ in range(3)]
        for ws in idle:
            _opened(ws)
        assert _capacity(client)["active"] == 0
        with client.websocket_connect("/ws/train") as trainer:
            _opened(trainer)
            trainer.send_json({"type": "start", "pace": 50})
            assert trainer.receive_json()["running"] is True  # not queued behind the idle ones
            assert _capacity(client)["active"] == 1


def test_past_the_capacity_a_reader_is_queued_and_moves_up(make_client) -> None:
    client = make_client(train_capacity=1)
    with client.websocket_connect("/ws/train") as a:
        _opened(a)
        a.send_json({"type": "start", "pace": 50})
        assert a.receive_json()["running"] is True
        with client.websocket_connect("/ws/train") as b, client.websocket_connect("/ws/train") as c:
            _opened(b), _opened(c)
            b.send_json({"type": "start", "pace": 50})
            assert b.receive_json() == {"type": "queued", "place": 1, "capacity": 1}
            c.send_json({"type": "start", "pace": 50})
            assert c.receive_json() == {"type": "queued", "place": 2, "capacity": 1}
            assert (_capacity(client)["active"], _capacity(client)["queued"]) == (1, 2)
            a.close()  # the slot goes to b, and c moves up
            assert b.receive_json()["running"] is True
            assert c.receive_json() == {"type": "queued", "place": 1, "capacity": 1}
            b.send_json({"type": "pause"})  # paused: b keeps its slot for the grace period
            _read_until(b, _paused)
            assert _capacity(client)["queued"] == 1


def test_a_pause_keeps_the_slot_for_the_grace_period_only(make_client) -> None:
    client = make_client(train_capacity=1, train_grace_s=2.0)
    with client.websocket_connect("/ws/train") as a, client.websocket_connect("/ws/train") as b:
        _opened(a), _opened(b)
        a.send_json({"type": "step", "n": 5})
        _read_until(a, _paused)  # a's run ended: its slot is kept, a moment, for its next run
        b.send_json({"type": "start", "pace": 50})
        assert b.receive_json()["type"] == "queued"
        assert b.receive_json()["running"] is True  # the grace is over: the slot is b's
        assert (_capacity(client)["active"], _capacity(client)["queued"]) == (1, 0)


def test_closed_sockets_free_their_slots_before_the_next_are_admitted(make_client) -> None:
    client = make_client(train_capacity=4)
    for _ in range(5):
        with contextlib.ExitStack() as stack:
            sockets = [stack.enter_context(client.websocket_connect("/ws/train")) for _ in range(4)]
            for ws in sockets:
                _opened(ws)
                ws.send_json({"type": "start", "pace": 50})
                reply = ws.receive_json()
                assert reply["type"] == "state" and reply["running"] is True, reply
        # all four closed here: the next four (a reload) are none of them queued
    assert _capacity(client)["active"] == 0


def test_a_closed_socket_frees_its_session_in_the_worker(make_client) -> None:
    client = make_client()
    service = client.app.state.training

    def held() -> tuple[int, int]:
        counts = client.portal.call(service.pool.worker_counts)
        return sum(c["sessions"] for c in counts), sum(c["running"] for c in counts)

    before = held()
    with client.websocket_connect("/ws/train") as ws:
        _opened(ws)
        ws.send_json({"type": "start"})
        _read_until(ws, lambda m: m["type"] == "progress" and m["step"] > 0)
        assert held() == (before[0] + 1, before[1] + 1)
    assert held() == before  # the worker dropped the session and trains nothing for it


def test_open_sockets_are_bounded(make_client) -> None:
    client = make_client(max_open_sockets=2)
    with client.websocket_connect("/ws/train") as a, client.websocket_connect("/ws/train") as b:
        _opened(a), _opened(b)
        with client.websocket_connect("/ws/train") as c:
            assert c.receive_json()["code"] == "full"
    with client.websocket_connect("/ws/train") as d:  # the others have gone: room again
        assert _opened(d)[0]["type"] == "state"


def test_a_trainer_behind_its_pace_makes_the_capacity_what_the_workers_deliver(make_client):
    """The capacity stated while readers drag is an estimate; when a paced session gets less
    than its pace, it is what the workers measured they deliver (capacity.delivered)."""
    client = make_client()
    with client.websocket_connect("/ws/train") as trainer:
        _opened(trainer)
        trainer.send_json({"type": "start", "pace": 20_000})  # no machine trains one this fast
        assert trainer.receive_json()["running"] is True
        deadline = time.monotonic() + 20
        while (stated := _capacity(client))["behind_pace"] == 0:
            assert time.monotonic() < deadline, stated
            time.sleep(0.2)
        assert stated["paced_trainers"] >= 1 and stated["delivered_steps_per_s"] > 0
        assert stated["capacity_delivered"] == max(1, int(stated["delivered_steps_per_s"] // 200))
        assert stated["capacity_while_dragging"] <= stated["capacity_delivered"]
        trainer.send_json({"type": "pause"})
