"""FIG 2's fused gradients against their readable twin built from attnlab.nn
(tabletop/reference.py), the twin against finite differences, and the F2.8 readout."""

from __future__ import annotations

import numpy as np
import pytest

from attnlab.nn.gradcheck import central_gradient
from attnlab.tabletop import gradient_check
from attnlab.tabletop.mlp import SlotMLP
from attnlab.tabletop.model import CrossAttention
from attnlab.tabletop.reference import (
    fused_gradient,
    reference_gradient,
    reference_gradient_mlp,
)
from attnlab.tabletop.scenes import sample_scenes
from attnlab.tabletop.seed_batch import SeedBatch


def _theta(heads: int, seed: int, scale: float) -> np.ndarray:
    """Fresh weights, scaled (a larger scale sharpens the softmax), and a non-zero bias."""
    rng = np.random.default_rng(seed)
    m = CrossAttention(heads)
    theta = m.init(rng) * scale
    theta[-2:] = rng.normal(size=2)
    return theta


def _assert_same(fused: tuple[float, np.ndarray], reference: tuple[float, np.ndarray]) -> None:
    (loss_f, grad_f), (loss_r, grad_r) = fused, reference
    assert loss_f == pytest.approx(loss_r, rel=1e-12)
    np.testing.assert_allclose(grad_f, grad_r, rtol=1e-12, atol=1e-12 * np.abs(grad_r).max())
    assert np.abs(grad_r).max() > 1e-3  # a real gradient, not zeros on both sides


@pytest.mark.parametrize("heads", [1, 2, 4])
@pytest.mark.parametrize("task", ["fetch", "vector"])
@pytest.mark.parametrize("seed", [0, 7, 31])
def test_fused_gradient_equals_the_nn_reference(heads, task, seed):
    m = CrossAttention(heads)
    theta = _theta(heads, seed, scale=1.0 + seed % 3)
    sc = sample_scenes(np.random.default_rng(100 + seed), 32, task=task)
    _assert_same(fused_gradient(m, theta, sc), reference_gradient(m, theta, sc))


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_fused_gradient_equals_the_reference_after_training(heads):
    """Trained weights make the softmax sharp (weights ~0.98), with six-object scenes too."""
    batch = SeedBatch("vector", heads, [3])
    with np.errstate(under="ignore"):
        batch.advance(300)
    m = batch.attn
    theta = batch.theta[0, : m.n_params]
    for objects in ((2, 5), (6, 6)):
        sc = sample_scenes(np.random.default_rng(5), 16, task="vector", objects=objects)
        with np.errstate(under="ignore"):  # a sharp softmax: tails below the smallest double
            _assert_same(fused_gradient(m, theta, sc), reference_gradient(m, theta, sc))


def test_the_comparison_would_catch_a_wrong_backward(monkeypatch):
    m = CrossAttention(2)
    theta = _theta(2, 4, scale=2.0)
    sc = sample_scenes(np.random.default_rng(4), 8, task="vector")
    real = CrossAttention.backward

    def off_in_the_ninth_digit(self, g, cache, params, grads):  # finite differences miss this
        real(self, g, cache, params, grads)
        grads.W_V[...] *= 1.0 + 1e-9

    monkeypatch.setattr(CrossAttention, "backward", off_in_the_ninth_digit)
    with pytest.raises(AssertionError):
        _assert_same(fused_gradient(m, theta, sc), reference_gradient(m, theta, sc))


@pytest.mark.parametrize("heads", [1, 2])
def test_the_reference_matches_finite_differences(heads):
    m = CrossAttention(heads)
    theta = _theta(heads, 8, scale=2.0)
    sc = sample_scenes(np.random.default_rng(8), 8, task="vector")
    grad = reference_gradient(m, theta, sc)[1]
    moved = theta.copy()  # central_gradient perturbs it in place
    numeric = central_gradient(lambda: reference_gradient(m, moved, sc)[0], moved, 1e-3)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("task", ["fetch", "vector"])
def test_mlp_fused_gradient_equals_the_nn_reference(task):
    mlp = SlotMLP()
    rng = np.random.default_rng(11)
    theta = mlp.init(rng) + 0.05 * rng.normal(size=mlp.n_params)  # non-zero biases too
    sc = sample_scenes(rng, 32, task=task)
    _assert_same(fused_gradient(mlp, theta, sc), reference_gradient_mlp(mlp, theta, sc))


def test_readout_for_the_two_head_vector_model():
    g = gradient_check(35)
    assert g["task"] == "vector" and g["heads"] == 2 and g["n_params"] == 362
    assert g["max_rel_error"] < 1e-6 and g["max_abs_error"] < 1e-9
    assert gradient_check(35) == g  # cached, and a fresh copy each time
    g["max_rel_error"] = 1.0
    assert gradient_check(35)["max_rel_error"] < 1e-6


def test_readout_would_catch_a_wrong_backward(monkeypatch):
    from attnlab.tabletop import reference

    real = CrossAttention.backward

    def off_by_a_bit(self, g, cache, params, grads):
        real(self, g, cache, params, grads)
        grads.W_K[...] *= 1.001

    monkeypatch.setattr(CrossAttention, "backward", off_by_a_bit)
    reference._gradient_check.cache_clear()
    try:
        assert gradient_check(1)["max_rel_error"] > 1e-4
    finally:
        reference._gradient_check.cache_clear()
