"""FIG 2's static parts (figures/training.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attnlab.figures import compute_figure
from attnlab.params import ParamError
from attnlab.tabletop import DEFAULT_SEED


def test_defaults():
    d = compute_figure("training")
    assert d["settings"] == {"task": "fetch", "heads": 1, "seed": DEFAULT_SEED, "n_objects": 4}
    assert d["params"]["attention"]["total"] == 182 and d["params"]["mlp"]["total"] == 8194
    assert sum(d["params"]["mlp"]["parts"].values()) == 8194
    assert d["test_sets"]["objects_2_5"] == d["test_sets"]["objects_6"] == 200
    assert d["gradcheck"]["max_rel_error"] < 1e-6 and d["gradcheck"]["n_params"] == 362
    assert len(d["colours"]) == 6 and d["history"][0]["step"] == 0
    json.dumps(d, allow_nan=False)


@pytest.mark.parametrize("n", [2, 6])
@pytest.mark.parametrize("task", ["fetch", "vector"])
def test_display_scene(task, n):
    d = compute_figure("training", {"task": task, "heads": 2, "n_objects": n})
    sc = d["scene"]
    p = np.array(sc["positions"])
    assert p.shape == (n, 2) and np.all((p >= 0) & (p <= 80))  # on the 80 × 80 cm table
    assert len(set(sc["colours"])) == n and sc["target"] in sc["colours"]
    assert sc["second"] in sc["colours"] and sc["second"] != sc["target"]
    t = p[sc["colours"].index(sc["target"])]
    want = t if task == "fetch" else t - p[sc["colours"].index(sc["second"])]
    np.testing.assert_allclose(sc["truth"], want, atol=1e-9)
    assert np.array(d["prediction"]["weights"]).shape == (2, n)
    assert d["params"]["attention"]["total"] == 362
    again = compute_figure("training", {"task": task, "heads": 2, "n_objects": n})
    assert again["scene"] == sc  # reproducible


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ({"n_objects": 7}, "n_objects"),
        ({"n_objects": 1}, "n_objects"),
        ({"heads": 8}, "heads"),
        ({"seed": "x"}, "seed"),
        ({"steps": 5}, "steps"),
    ],
)
def test_bad_settings(raw, name):
    with pytest.raises(ParamError) as err:
        compute_figure("training", raw)
    assert err.value.name == name


@pytest.mark.parametrize(
    ("task", "heads", "seed"), [("fetch", 1, 35), ("fetch", 4, 0), ("vector", 2, 999_999)]
)
def test_untrained_models_are_the_trainer_s_at_step_0_exactly(task, heads, seed):
    from attnlab.figures.training import Untrained, figure_data
    from attnlab.tabletop import TrainConfig, Trainer

    config = TrainConfig(task=task, heads=heads, seed=seed)
    direct, trainer = Untrained(config), Trainer(config)
    assert direct.history == trainer.history  # same weights, same step-0 evaluation, bit for bit
    assert figure_data(direct, 5) == figure_data(trainer, 5)


def test_the_figure_is_answered_without_building_a_trainer(monkeypatch):
    from attnlab.figures import training

    def no_trainer(*args, **kwargs):
        raise AssertionError("the figure built a Trainer")

    monkeypatch.setattr(training, "Trainer", no_trainer)
    d = compute_figure("training", {"task": "vector", "heads": 4, "seed": 12})
    assert d["history"][0]["step"] == 0 and len(d["history"][0]["head_weight"]) == 4
