"""`/ws/train`: FIG 2's live training over a socket, with its limits (web contract).

Training runs in worker processes; this process's pool is shared by every app in the test run
(`attnlab.trainpool.pool.shared_pool`), so the workers are spawned once.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

import pytest
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from attnlab.trainpool.pool import RESTARTED
from attnlab.web import WebSettings

FRAME_S = WebSettings().frame_s  # the frames these clients are paced in (0.04 s)

Message = dict


def _read_until(ws, stop: Callable[[Message], bool], limit: int = 10_000) -> list[Message]:
    """Messages up to and including the first for which `stop` is true."""
    out = []
    for _ in range(limit):
        out.append(ws.receive_json())
        if stop(out[-1]):
            return out
    raise AssertionError(f"no stop message in {limit}: last {out[-1]}")


def _paused(m: Message) -> bool:
    return m["type"] == "state" and not m["running"]


def _opened(ws) -> tuple[Message, Message]:
    state, progress = ws.receive_json(), ws.receive_json()
    assert (state["type"], progress["type"]) == ("state", "progress")
    return state, progress


def _step_now(ws) -> int:
    """The session's step, as the worker says (a scene message is answered with progress)."""
    ws.send_json({"type": "pause"})
    return _read_until(ws, _paused)[-1]["step"]


def test_a_new_socket_gets_its_state_and_starting_point(make_client) -> None:
    with make_client().websocket_connect("/ws/train") as ws:
        state, progress = _opened(ws)
    assert state["step"] == 0 and state["running"] is False
    assert state["max_steps"] == 20_000
    assert state["max_step_n"] == WebSettings().max_step_n  # the page's chunk for a link's step
    assert (state["config"]["task"], state["config"]["heads"]) == ("fetch", 1)
    assert [r["step"] for r in progress["records"]] == [0]
    assert set(progress["prediction"]) >= {"attn", "mlp", "truth", "weights"}
    assert progress["prediction"]["truth"] == progress["scene"]["positions"][0]  # target first


def test_step_trains_exactly_n_steps_then_pauses(make_client) -> None:
    with make_client().websocket_connect("/ws/train") as ws:
        _opened(ws)
        ws.send_json({"type": "step", "n": 60})
        messages = _read_until(ws, _paused)
    progress = [m for m in messages if m["type"] == "progress"]
    assert messages[0] == {**messages[-1], "running": True, "step": 0}
    assert progress[-1]["step"] == messages[-1]["step"] == 60
    assert [r["step"] for m in progress for r in m["records"]] == [25, 50]


def test_start_streams_batched_progress_until_pause(make_client) -> None:
    with make_client().websocket_connect("/ws/train") as ws:
        _opened(ws)
        ws.send_json({"type": "start"})
        assert ws.receive_json()["running"] is True
        messages = [ws.receive_json() for _ in range(10)]
        ws.send_json({"type": "pause"})
        messages += _read_until(ws, _paused)
        stopped = messages[-1]["step"]
        time.sleep(0.1)
        assert _step_now(ws) == stopped  # paused means paused
    steps = [m["step"] for m in messages if m["type"] == "progress"]
    gaps = [b - a for a, b in itertools.pairwise(steps)]
    assert min(gaps) > 0
    assert max(gaps) > 1  # a frame batches several steps
    records = [r["step"] for m in messages if m["type"] == "progress" for r in m["records"]]
    assert records == list(range(25, stopped + 1, 25))  # every record once, in order


def test_a_paced_start_trains_one_frame_of_steps_per_message(make_client) -> None:
    # pace 250 steps/s at 25 frames/s: 10 steps a frame, so the reader sees the curve move
    with make_client().websocket_connect("/ws/train") as ws:
        _opened(ws)
        sent = time.monotonic()  # one clock for every process (CLOCK_MONOTONIC)
        ws.send_json({"type": "start", "pace": 250})
        assert ws.receive_json()["running"] is True
        messages = [ws.receive_json() for _ in range(8)]
        elapsed = time.monotonic() - sent
        ws.send_json({"type": "pause"})
        _read_until(ws, _paused)
    steps = [m["step"] for m in messages]
    assert steps == [10 * (i + 1) for i in range(8)]
    # Frames are waited out, not rushed. The first frame starts on the worker's grid at or before
    # the start arrived (floor(t / f)·f > sent − f), frame k no earlier than k − 1 frames after
    # it, so the 8th is sent no sooner than 6 frames after `sent`: a bound that slowness can
    # only widen (a worker that falls behind does not owe frames, which is why it is not 7).
    assert elapsed > 6 * FRAME_S


@pytest.mark.parametrize(
    "bad",
    [
        '{"type": "start", "pace": -5}',
        '{"type": "start", "pace": "150"}',
        '{"type": "config", "heads": "2"}',
        '{"type": "config", "heads": true}',
    ],
)
def test_settings_are_strictly_typed_and_bounded(make_client, bad) -> None:
    with make_client().websocket_connect("/ws/train") as ws:
        _opened(ws)
        ws.send_text(bad)
        reply = ws.receive_json()
    assert reply["type"] == "error" and reply["code"] == "bad_message"
    assert ("pace" if "pace" in bad else "heads") in reply["message"]


def test_config_and_reset_start_a_new_run(make_client) -> None:
    with make_client().websocket_connect("/ws/train") as ws:
        _opened(ws)
        ws.send_json({"type": "config", "task": "vector", "heads": 2, "seed": 3})
        state, progress = _opened(ws)
        assert state["config"] == {"task": "vector", "heads": 2, "seed": 3}
        assert len(progress["prediction"]["weights"]) == 2  # one row of weights per head
        table = progress["colour_match"]["table"]  # per head: A's part, B's; instruction × block
        assert [len(table), len(table[0]), len(table[0][0]), len(table[0][0][0])] == [2, 2, 6, 6]
        assert [len(p) for p in progress["colour_match"]["peaks"]] == [2, 2]  # on A, on B
        ws.send_json({"type": "step", "n": 30})
        assert _read_until(ws, _paused)[-1]["step"] == 30
        ws.send_json({"type": "reset"})
        state, progress = _opened(ws)
    assert state["step"] == progress["step"] == 0
    assert state["config"] == {"task": "vector", "heads": 2, "seed": 3}


def test_a_scene_gets_its_prediction(make_client) -> None:
    scene = {"positions": [[10, 70], [60, 15]], "colours": [2, 5], "target": 5, "second": 2}
    with make_client().websocket_connect("/ws/train") as ws:
        _opened(ws)
        ws.send_json({"type": "scene", **scene})
        progress = ws.receive_json()
    assert progress["type"] == "progress"
    assert progress["scene"] == {**scene, "positions": [[10.0, 70.0], [60.0, 15.0]]}
    assert progress["prediction"]["truth"] == [60.0, 15.0]
    assert [len(w) for w in progress["prediction"]["weights"]] == [2]


@pytest.mark.parametrize(
    "bad",
    [
        "{oops",
        "[]",
        '{"type": "fly"}',
        '{"type": "step", "n": 100000}',
        '{"type": "step", "n": NaN}',
        '{"type": "config", "heads": "many"}',
        '{"type": "scene", "positions": [[1, 1e400]], "colours": [0], "target": 0}',
        '{"type": "start", "x": ' + "9" * 5000 + "}",
        "x" * 20_000,
    ],
)
def test_bad_messages_get_an_error_and_the_socket_stays_open(make_client, bad) -> None:
    with make_client().websocket_connect("/ws/train") as ws:
        _opened(ws)
        ws.send_text(bad)
        error = ws.receive_json()
        assert error["type"] == "error" and error["code"] == "bad_message"
        assert error["message"]
        ws.send_bytes(b'{"type": "start"}')  # text frames only
        assert ws.receive_json()["code"] == "bad_message"
        ws.send_json({"type": "step", "n": 1})
        assert _read_until(ws, _paused)[-1]["step"] == 1


def test_the_size_limit_counts_bytes_not_characters(make_client) -> None:
    # 6,000 "é" are 6,000 characters but 12,000 bytes: over a 10,000-byte limit
    with make_client(max_message_bytes=10_000).websocket_connect("/ws/train") as ws:
        _opened(ws)
        ws.send_text('{"type": "pause", "x": "' + "é" * 6_000 + '"}')
        error = ws.receive_json()
        assert (error["code"], "10000 bytes" in error["message"]) == ("bad_message", True)
        ws.send_text('{"type": "pause", "x": "' + "e" * 6_000 + '"}')  # fits: a field error
        assert "x" in ws.receive_json()["message"]


def test_a_foreign_page_is_refused(make_client) -> None:
    client = make_client()
    url = "ws://127.0.0.1:8000/ws/train"  # as the page at http://127.0.0.1:8000 would connect
    for origin in ("http://evil.example", "http://127.0.0.1:9999", "null"):
        with pytest.raises(WebSocketDenialResponse) as refused:  # the guard's 403, not a 101
            client.websocket_connect(url, headers={"origin": origin}).__enter__()
        assert refused.value.status_code == 403
    with client.websocket_connect(url, headers={"origin": "http://localhost:8000"}) as ws:
        assert ws.receive_json()["type"] == "state"


@pytest.mark.parametrize("asked", [{"type": "start"}, {"type": "step", "n": 400}])
def test_a_run_whose_worker_died_trains_again_from_step_0_by_itself(make_client, asked) -> None:
    client = make_client(idle_timeout_s=5.0)  # a model left paused is closed: no test hangs
    with client.websocket_connect("/ws/train") as ws:
        _opened(ws)
        ws.send_json(asked)
        _read_until(ws, lambda m: m["type"] == "progress" and m["step"] > 0)
        (home,) = [w for w in client.app.state.training.pool._workers if w.sessions]
        home.process.kill()
        lost = _read_until(ws, lambda m: m["type"] == "error")[-1]
        assert lost == {"type": "error", "code": "internal", "message": RESTARTED}
        again = _read_until(ws, lambda m: m["type"] == "progress" and m["step"] > 0)
        assert [m["step"] for m in again if m["type"] == "state"] == [0, 0]  # reopened, then run
        assert next(m for m in again if m["type"] == "progress")["step"] == 0  # from step 0
        assert _step_now(ws) > 0  # nothing was sent: it trained on by itself


def test_a_paused_model_whose_worker_died_is_back_at_step_0_and_paused(make_client) -> None:
    client = make_client()
    with client.websocket_connect("/ws/train") as ws:
        _opened(ws)
        ws.send_json({"type": "step", "n": 30})
        _read_until(ws, _paused)
        (home,) = [w for w in client.app.state.training.pool._workers if w.sessions]
        home.process.kill()
        _read_until(ws, lambda m: m["type"] == "error")
        state = ws.receive_json()
        assert (state["type"], state["step"], state["running"]) == ("state", 0, False)


def test_a_trainer_stops_at_the_step_limit(make_client) -> None:
    with make_client(max_steps=60).websocket_connect("/ws/train") as ws:
        assert _opened(ws)[0]["max_steps"] == 60
        ws.send_json({"type": "start"})
        messages = _read_until(ws, _paused)
        assert {"type": "done", "reason": "step_limit"} in messages
        assert messages[-1]["step"] == 60
        for again in ({"type": "start"}, {"type": "step", "n": 5}):
            ws.send_json(again)
            assert ws.receive_json() == {"type": "done", "reason": "step_limit"}
            assert _paused(ws.receive_json())
        ws.send_json({"type": "reset"})  # a new run may train again
        assert _opened(ws)[0]["step"] == 0


def test_a_silent_paused_socket_is_closed(make_client) -> None:
    with make_client(idle_timeout_s=0.3).websocket_connect("/ws/train") as ws:
        _opened(ws)
        sent = time.monotonic()
        ws.send_json({"type": "step", "n": 10})  # the clock restarts when a run ends
        _read_until(ws, _paused)
        assert ws.receive_json() == {"type": "done", "reason": "idle"}
        # the run ended after `sent`, so the idle close came ≥ 0.3 s after it however slow the
        # machine; the upper bound only tells a close from a hang (typical: 0.35 s)
        assert 0.3 <= time.monotonic() - sent < 30
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1000


def test_a_running_socket_is_not_idle(make_client) -> None:
    with make_client(idle_timeout_s=0.2).websocket_connect("/ws/train") as ws:
        _opened(ws)
        ws.send_json({"type": "start"})
        t0 = time.perf_counter()
        messages = _read_until(ws, lambda m: time.perf_counter() - t0 > 0.5)
    assert {m["type"] for m in messages} == {"state", "progress"}
