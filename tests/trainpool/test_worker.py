"""The worker's loop, run in a thread on a pipe: commands in, the socket's messages out."""

from __future__ import annotations

import json
import multiprocessing
import threading

import pytest

from attnlab.tabletop import TrainConfig, Trainer
from attnlab.trainpool.worker import Worker


@pytest.fixture
def worker():
    server, child = multiprocessing.Pipe(duplex=True)
    loop = Worker(child, frame_s=0.04, factory=Trainer)
    thread = threading.Thread(target=loop.serve, daemon=True)
    thread.start()
    yield server, loop
    server.send(("stop",))
    thread.join(timeout=5)
    assert not thread.is_alive()


def _messages(conn, sid: int, until) -> list[dict]:
    out = []
    while True:
        assert conn.poll(10), f"no message; so far {out}"
        event = conn.recv()
        if event[0] == "send" and event[1] == sid:
            out.append({**json.loads(event[2]), "_ended": event[3]})
            if until(out[-1]):
                return out


def test_a_run_of_n_steps_ends_with_its_records_and_a_paused_state(worker) -> None:
    conn, _ = worker
    conn.send(("open", 1, TrainConfig(), 1000, 500))
    assert [m["type"] for m in _messages(conn, 1, lambda m: m["type"] == "progress")] == [
        "state",
        "progress",
    ]
    conn.send(("run", 1, 60, 0))
    run = _messages(conn, 1, lambda m: m["_ended"])
    assert run[0]["running"] is True
    assert run[-1] == {**run[0], "running": False, "step": 60, "_ended": True}
    assert [r["step"] for m in run if m["type"] == "progress" for r in m["records"]] == [25, 50]


def test_closing_a_session_frees_it_in_the_worker(worker) -> None:
    conn, loop = worker
    conn.send(("open", 2, TrainConfig(), 20_000, 500))
    conn.send(("run", 2, None, 0))
    _messages(conn, 2, lambda m: m["type"] == "progress" and m["step"] > 0)
    conn.send(("close", 2))
    conn.send(("stats", 99))
    while (event := conn.recv())[0] != "stats":
        pass
    assert event[2] == {"sessions": 0, "running": 0} and loop.runs == {}


def test_a_paced_run_trains_its_frame_quota(worker) -> None:
    conn, _ = worker
    conn.send(("open", 3, TrainConfig(), 1000, 500))
    _messages(conn, 3, lambda m: m["type"] == "progress")
    conn.send(("run", 3, None, 200))  # 200 steps/s × 0.04 s = 8 steps a frame
    frames = _messages(conn, 3, lambda m: m["type"] == "progress" and m["step"] >= 40)
    steps = [m["step"] for m in frames if m["type"] == "progress"]
    assert steps == [8, 16, 24, 32, 40]
    conn.send(("pause", 3))
    assert _messages(conn, 3, lambda m: m["_ended"])[-1]["running"] is False
