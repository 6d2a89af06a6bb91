"""The seed sweep (tabletop/sweep.py): a seed's curve in a sweep is its curve alone."""

from __future__ import annotations

import json

import pytest

from attnlab.tabletop import TrainConfig, Trainer, sweep
from attnlab.tabletop.sweep import SweepResult, how_it_failed


def test_a_seed_in_a_sweep_draws_the_curve_of_a_single_run():
    seeds = [4, 5, 6]
    result = sweep("vector", 2, seeds, 100, workers=2)  # processes with chunks of 2 and 1 seeds
    assert result.seeds == seeds
    for seed in seeds:
        alone = Trainer(TrainConfig(task="vector", heads=2, seed=seed))
        alone.advance(100)
        assert result.curve(seed) == alone.history  # exactly, number for number
        table = result.tables[result.seeds.index(seed)]  # and the same model at the end
        assert table.tolist() == alone.colour_match()["table"]


def test_stats_and_json():
    result = sweep("fetch", 1, [0, 1, 2], 300, workers=1)
    st = result.stats()
    d = st["first_below_2cm"]
    assert d["n"] == 3 and d["missing"] == 0 and d["p10"] <= d["median"] <= d["p90"]
    assert st["failures"]["count"] == len(result.failures()) == 0
    assert set(st["final_weight_target"]) == {"n", "missing", "p10", "median", "p90"}
    out = json.loads(json.dumps(result.to_dict(histories=True), allow_nan=False))
    assert out["config"] == {"task": "fetch", "heads": 1, "steps": 300}
    assert len(out["histories"]["2"]) == 13 and out["summaries"][0]["seed"] == 0


def _final(err, weights):
    return {"attn_err_cm": err, "head_weight": weights}


@pytest.mark.parametrize(
    ("task", "final", "how"),
    [
        ("vector", _final(0.5, [[0.98, 0.0], [0.0, 0.97]]), None),
        ("vector", _final(27.4, [[0.0, 0.99], [0.0, 0.99]]), "every head on B"),
        ("vector", _final(27.4, [[0.99, 0.0], [0.98, 0.01]]), "every head on A"),
        ("vector", _final(27.6, [[0.99, 0.0]]), "the head on A"),
        (
            "vector",
            _final(1.3, [[0.9, 0.0], [0.0, 0.93]]),
            "one head on A, one on B, not yet below 1 cm",
        ),
        ("vector", _final(15.0, [[0.4, 0.3], [0.3, 0.3]]), "weights spread over the objects"),
        ("fetch", _final(1.5, [0.98]), None),
        ("fetch", _final(8.0, [0.3]), "attention not on the target"),
        ("fetch", _final(2.5, [0.9]), "on the target but slow"),
    ],
)
def test_failures_are_named(task, final, how):
    assert how_it_failed(task, final) == how


def test_a_failed_seed_is_reported_with_its_reason():
    history = [
        {
            "step": 0,
            "attn_err_cm": 27.4,
            "attn_err6_cm": 27.0,
            "mlp_err_cm": 30.0,
            "mlp_err6_cm": 30.0,
            "head_weight": [[0.0, 0.99], [0.0, 0.98]],
        }
    ]
    result = SweepResult("vector", 2, 0, [17], [history])
    assert result.failures() == [{"seed": 17, "how": "every head on B", "attn_err_cm": 27.4}]
    assert result.stats()["failures"] == {"count": 1, "how": {"every head on B": 1}}
