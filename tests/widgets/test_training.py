"""FIG 2's widget: training in a kernel thread, the page's socket messages over the comm."""

from __future__ import annotations

import time

import numpy as np
import pytest

from attnlab.tabletop import TrainConfig, Trainer
from attnlab.widgets import ParamError, training
from tests.widgets.conftest import from_view

RECORD_KEYS = {"step", "attn_err_cm", "attn_err6_cm", "mlp_err_cm", "mlp_err6_cm",
               "head_weight", "attn_loss", "mlp_loss"}  # fmt: skip


@pytest.fixture
def widget(catch):
    w = training(task="fetch", heads=1, seed=9)
    sent = catch(w)
    yield w, sent
    w.pause()


def test_train_runs_in_a_thread_and_matches_the_trainer(widget) -> None:
    w, sent = widget
    assert w.train(300) is w  # returns before the run is over
    assert w.wait(timeout=60)
    reference = Trainer(TrainConfig(task="fetch", heads=1, seed=9))
    reference.advance(300)
    assert w.history == reference.history  # the same records as `attnlab train --json`
    assert set(w.history[-1]) == RECORD_KEYS
    kinds = [m["type"] for m in sent.of("train")]
    assert kinds[0] == "state" and kinds[-1] == "state" and "progress" in kinds
    streamed = [
        r["step"] for m in sent.of("train") if m["type"] == "progress" for r in m["records"]
    ]
    assert streamed == [r["step"] for r in w.history[1:]]  # every record once, in order


def test_pause_stops_a_run_and_keeps_the_model(widget) -> None:
    w, sent = widget
    w.train(20_000, pace=200)  # 100 s at the page's pace: paused long before
    deadline = time.monotonic() + 30
    while w.trainer.step == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    w.pause()
    step = w.trainer.step
    assert 0 < step < 20_000
    assert sent.of("train")[-1] == w.session.state(running=False)
    assert w.wait(timeout=0)  # the run's thread has ended: nothing trains on
    assert w.trainer.step == step


def test_trained_parameters_are_reachable(widget) -> None:
    w, _ = widget
    before = w.parameters()
    w.train(50).wait(30)
    after = w.parameters()
    assert after["attention"]["W_Q"].shape == (1, 12, 8)  # row vectors: c (12) @ W_Q → q (8)
    assert not np.array_equal(before["attention"]["W_Q"], after["attention"]["W_Q"])
    assert set(after["mlp"]) == {"W1", "b1", "W2", "b2", "W3", "b3"}


def test_bad_arguments_raise(widget) -> None:
    w, _ = widget
    with pytest.raises(ParamError, match=r"steps: 20001 is out of range"):
        w.train(20_001)
    with pytest.raises(ParamError, match="heads: 3 is not allowed"):
        training(heads=3)


def test_the_views_messages_are_the_sockets(widget) -> None:
    w, sent = widget
    from_view(w, "train", {"type": "step", "n": 50})
    w.wait(30)
    assert w.trainer.step == 50
    from_view(w, "train", {"type": "step", "n": 501})  # the server's max_step_n
    assert sent.of("train")[-1]["type"] == "error"
    assert "less than or equal to 500" in sent.of("train")[-1]["message"]
    from_view(w, "train", {"type": "scene", "positions": [[10, 10], [70, 70]], "colours": [0, 4]})
    assert sent.of("train")[-1]["scene"]["colours"] == [0, 4]  # the prediction on it
    from_view(w, "train", {"type": "reset"})
    assert w.trainer.step == 0 and len(w.history) == 1


def test_a_config_from_the_view_is_a_settings_change(widget) -> None:
    w, sent = widget
    w.train(25).wait(30)
    from_view(w, "train", {"type": "config", "task": "fetch", "heads": 1, "seed": 9})
    assert w.trainer.step == 25  # the same run: a new view is told where it is
    assert sent.of("train")[-1]["records"][-1]["step"] == 25
    from_view(w, "train", {"type": "config", "task": "vector", "heads": 2, "seed": 3})
    assert w.settings["task"] == "vector" and w.settings["heads"] == 2
    assert w.trainer.step == 0 and w.trainer.config == TrainConfig("vector", 2, 3)
    w.settings = {"seed": 4}  # and from Python
    assert w.trainer.config.seed == 4


def test_history_is_what_attnlab_train_json_prints(widget, capsys) -> None:
    import json

    from attnlab.cli import main

    assert main(["train", "--task", "fetch", "--heads", "1", "--seed", "9", "--steps", "100",
                 "--json"]) == 0  # fmt: skip
    printed = json.loads(capsys.readouterr().out)["history"]
    w, _ = widget
    w.train(100).wait(30)
    assert json.loads(json.dumps(w.history)) == printed
