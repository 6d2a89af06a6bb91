"""The trainer of FIG 2 (tabletop/trainer.py): the interface the CLI and the page use,
determinism, and the lesson's learning behaviour on a few seeds."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attnlab.params import ParamError
from attnlab.tabletop import COLOURS, DEFAULT_SEED, TrainConfig, Trainer

KEYS = {"step", "attn_err_cm", "attn_err6_cm", "mlp_err_cm", "mlp_err6_cm", "head_weight"}


def test_config_is_validated_and_coerced():
    cfg = TrainConfig(task="vector", heads="2", seed="7")
    assert (cfg.task, cfg.heads, cfg.seed) == ("vector", 2, 7)
    assert TrainConfig().seed == DEFAULT_SEED
    for bad, name in (
        ({"task": "juggle"}, "task"),
        ({"heads": 3}, "heads"),
        ({"seed": -1}, "seed"),
    ):
        with pytest.raises(ParamError) as err:
            TrainConfig(**bad)
        assert err.value.name == name


def test_advance_returns_the_records_of_the_multiples_of_25_crossed():
    tr = Trainer(TrainConfig(heads=2, seed=3))
    assert tr.step == 0 and [r["step"] for r in tr.history] == [0]
    assert tr.advance(0) == []
    assert [r["step"] for r in tr.advance(30)] == [25]
    assert [r["step"] for r in tr.advance(20)] == [50]
    assert [r["step"] for r in tr.advance(60)] == [75, 100]
    assert tr.step == 110 and [r["step"] for r in tr.history] == [0, 25, 50, 75, 100]
    rec = tr.history[-1]
    assert set(rec) >= KEYS and len(rec["head_weight"]) == 2
    assert tr.history[0]["attn_loss"] is None and rec["attn_loss"] > 0
    json.dumps(tr.history, allow_nan=False)
    with pytest.raises(ParamError):
        tr.advance(-1)


def test_vector_records_carry_weights_on_a_and_b_per_head():
    tr = Trainer(TrainConfig(task="vector", heads=4, seed=1))
    w = np.array(tr.advance(25)[0]["head_weight"])
    assert w.shape == (4, 2) and np.all((w >= 0) & (w <= 1))


def test_training_in_pieces_equals_training_at_once():
    one = Trainer(TrainConfig(task="vector", heads=2, seed=5))
    one.advance(260)
    pieces = Trainer(TrainConfig(task="vector", heads=2, seed=5))
    for n in (1, 7, 24, 100, 3, 125):
        pieces.advance(n)
    assert pieces.history == one.history
    np.testing.assert_array_equal(pieces.seed_batch.theta, one.seed_batch.theta)


def test_run_yields_each_record_once():
    tr = Trainer(TrainConfig(seed=2))
    steps = [r["step"] for r in tr.run(110)]
    assert steps == [25, 50, 75, 100] and tr.step == 110
    assert [r["step"] for r in tr.run(15)] == [125]


def test_predict_on_a_hand_made_scene():
    tr = Trainer(TrainConfig(task="fetch", seed=4))
    positions = [[10.0, 70.0], [60.0, 20.0], [40.0, 40.0]]
    out = tr.predict(positions, [1, 4, 2], 4, None)  # step 0 works too
    assert set(out) == {"attn", "mlp", "truth", "weights"}
    assert out["truth"] == pytest.approx([60.0, 20.0])
    assert np.array(out["weights"]).shape == (1, 3)
    tr.advance(600)
    out = tr.predict(positions, [1, 4, 2], 4, 0)  # second is ignored for fetch
    assert np.linalg.norm(np.subtract(out["attn"], out["truth"])) < 3.0
    assert out["weights"][0][1] > 0.9
    six = tr.predict([[10.0 * i + 5, 70.0 - 10 * i] for i in range(6)], [5, 4, 3, 2, 1, 0], 3)
    assert np.linalg.norm(np.subtract(six["attn"], six["truth"])) < 3.0
    assert tr.predict([[33.0, 44.0]], [0], 0)["truth"] == pytest.approx([33.0, 44.0])


def test_predict_vector_answers_in_cm():
    tr = Trainer(TrainConfig(task="vector", heads=2, seed=0))
    out = tr.predict([[10.0, 70.0], [60.0, 20.0]], [3, 5], 3, 5)
    assert out["truth"] == pytest.approx([-50.0, 50.0])
    assert np.array(out["weights"]).shape == (2, 2)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (([[10, 10]], [0], 1, None), "target"),
        (([[10, 10], [20, 20]], [0, 0], 0, None), "colours"),
        (([[10, 10], [20, 90]], [0, 1], 0, None), "positions"),
        (([[10, 10]], [0, 1], 0, None), "positions"),
        (([[10, 10]] * 7, list(range(7)), 0, None), "positions"),
        (([[10, 10], [20, 20]], [0, 6], 0, None), "colours"),
        (([[np.nan, 10]], [0], 0, None), "positions"),
        (([[10, 10]], [0], True, None), "target"),
    ],
)
def test_predict_refuses_bad_scenes(args, field):
    with pytest.raises(ParamError) as err:
        Trainer(TrainConfig(seed=0)).predict(*args)
    assert err.value.name == field


def test_the_display_scene_kept_between_frames_changes_no_answer_and_no_refusal():
    """`predict` keeps the last scene it checked and encoded (a page asks for the same one every
    frame): the answer is the one a fresh trainer gives, and an equal-looking scene of other
    types (True for 1, 1.0 for the colour 1) is still refused."""
    tr, positions = Trainer(TrainConfig(seed=2)), [[10.0, 70.0], [60.0, 20.0]]
    tr.advance(50)
    first = tr.predict(positions, [1, 4], 1)
    assert tr.predict(positions, [1, 4], 1) == first
    tr.advance(25)
    fresh = Trainer(TrainConfig(seed=2))
    fresh.advance(75)
    assert tr.predict(positions, [1, 4], 1) == fresh.predict(positions, [1, 4], 1)
    assert tr.predict(positions, [1, 4], 4)["truth"] == pytest.approx([60.0, 20.0])
    for args, field in (
        ((positions, [1, 4], True), "target"),
        ((positions, [1.0, 4.0], 1), "colours"),
    ):
        with pytest.raises(ParamError) as err:
            tr.predict(*args)
        assert err.value.name == field


def test_vector_needs_a_second_colour_on_the_table():
    tr = Trainer(TrainConfig(task="vector", heads=2, seed=0))
    for second in (None, 2, 0):
        with pytest.raises(ParamError, match="second"):
            tr.predict([[10, 10], [20, 20]], [0, 1], 0, second)


def test_summary_reads_the_history():
    tr = Trainer(TrainConfig(seed=6))
    tr.advance(400)
    s = tr.summary()
    first = s["first_below_3cm"]
    assert first is not None and first % 25 == 0
    assert next(r for r in tr.history if r["step"] == first)["attn_err_cm"] < 3
    assert all(r["attn_err_cm"] >= 3 for r in tr.history if r["step"] < first)
    assert s["final"]["attn_err_cm"] == tr.history[-1]["attn_err_cm"]
    assert len(COLOURS) == 6
