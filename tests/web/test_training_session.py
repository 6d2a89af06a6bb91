"""Frames of FIG 2 training: as many steps as fit, stopped by a goal, a limit or a cancel flag."""

from __future__ import annotations

import threading
import time

from attnlab.web import training_session
from attnlab.web.training_messages import DEFAULT_SCENE, Scene
from attnlab.web.training_session import TrainingSession

FETCH = {"task": "fetch", "heads": 1, "seed": 0}


def _session(config: dict = FETCH, max_steps: int = 20_000) -> TrainingSession:
    return TrainingSession(
        factory=training_session.real_trainer, config=config, max_steps=max_steps
    )


def test_a_frame_stops_at_its_goal_and_carries_its_records() -> None:
    s = _session()
    message = s.frame(60, 10.0, threading.Event())
    assert s.step == message["step"] == 60
    assert [r["step"] for r in message["records"]] == [25, 50]
    assert message["type"] == "progress"
    assert message["scene"] == DEFAULT_SCENE.to_dict()


def test_a_frame_batches_steps_and_keeps_to_its_time() -> None:
    s = _session()
    t0 = time.perf_counter()
    message = s.frame(20_000, 0.05, threading.Event())
    elapsed = time.perf_counter() - t0
    assert 1 < message["step"] < 20_000
    assert elapsed < 1.0  # 50 ms asked; a busy machine may add some, but not the whole run


def test_the_step_limit_caps_every_goal() -> None:
    s = _session(max_steps=40)
    assert s.frame(1_000, 10.0, threading.Event())["step"] == 40
    assert s.frame(1_000, 10.0, threading.Event())["records"] == []
    assert s.state(running=False) == {
        "type": "state",
        "config": FETCH,
        "step": 40,
        "running": False,
        "max_steps": 40,
    }


def test_a_cancelled_frame_trains_nothing_but_still_predicts() -> None:
    cancel = threading.Event()
    cancel.set()
    message = _session().frame(100, 10.0, cancel)
    assert (message["step"], message["records"]) == (0, [])
    assert set(message["prediction"]) >= {"attn", "mlp", "truth", "weights"}


def test_cancelling_from_another_thread_stops_a_long_frame_within_a_chunk() -> None:
    s, cancel = _session(), threading.Event()
    worker = threading.Thread(target=s.frame, args=(20_000, 30.0, cancel))
    worker.start()
    time.sleep(0.1)
    t0 = time.perf_counter()
    cancel.set()
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert time.perf_counter() - t0 < 1.0  # chunks last ≤ 20 ms (more on a busy machine)
    assert 0 < s.step < 20_000


def test_a_new_config_starts_over_and_keeps_a_scene_that_still_fits() -> None:
    s = _session()
    s.frame(30, 10.0, threading.Event())
    single = Scene(positions=((40.0, 40.0),), colours=(2,), target=2, second=2)
    s.set_scene(single)
    s.configure({"task": "fetch", "heads": 2, "seed": 1})
    assert (s.step, s.scene) == (0, single)
    s.configure({"task": "vector", "heads": 2, "seed": 1})  # needs A and B on the table
    assert s.scene == DEFAULT_SCENE
    assert len(s.progress()["prediction"]["weights"]) == 2
    s.frame(30, 10.0, threading.Event())
    s.reset()
    assert s.step == 0
    assert s.config == {"task": "vector", "heads": 2, "seed": 1}
    assert [r["step"] for r in s.progress(full_history=True)["records"]] == [0]
