"""The slot MLP baseline of FIG 2 (tabletop/mlp.py)."""

from __future__ import annotations

import numpy as np
import pytest

from attnlab.tabletop.mlp import SlotMLP
from attnlab.tabletop.reference import check_model
from attnlab.tabletop.scenes import sample_scenes


def test_it_has_8194_parameters():
    sizes = SlotMLP().sizes()
    assert sizes == {"W1": 3840, "b1": 64, "W2": 4096, "b2": 64, "W3": 128, "b3": 2}
    assert SlotMLP().n_params == 60 * 64 + 64 + 64 * 64 + 64 + 64 * 2 + 2 == 8194


def test_gradient_matches_finite_differences(rng):
    mlp = SlotMLP()
    theta = mlp.init(rng)
    theta += 0.05 * rng.normal(size=theta.shape)  # non-zero biases too
    res = check_model(mlp, theta, sample_scenes(rng, 8, task="vector"))
    assert res["max_rel_error"] < 1e-6
    assert np.abs(res["analytic"]).max() > 1e-3


def test_he_init_for_hidden_layers_and_zero_biases():
    mlp = SlotMLP()
    draws = np.stack([mlp.init(np.random.default_rng(s)) for s in range(50)])
    p = mlp.views(draws)
    assert p.W1.var() == pytest.approx(2 / 60, rel=0.05)
    assert p.W2.var() == pytest.approx(2 / 64, rel=0.05)
    assert p.W3.var() == pytest.approx(1 / 64, rel=0.1)
    assert np.all(p.b1 == 0) and np.all(p.b2 == 0) and np.all(p.b3 == 0)


def test_slot_order_matters_to_the_mlp(rng):
    mlp = SlotMLP()
    theta = mlp.init(rng)[None]
    sc = sample_scenes(rng, 1, task="fetch", objects=(5, 5))
    rows = sc.rows.copy()
    rows[0, :40] = sc.x[0, ::-1].ravel()
    y, _ = mlp.forward(mlp.views(theta), sc.rows[None])
    y_rev, _ = mlp.forward(mlp.views(theta), rows[None])
    assert np.abs(y - y_rev).max() > 1e-3
