"""The F2.8 readout (tabletop/gradcheck.py) and its finite-difference helpers."""

from __future__ import annotations

import numpy as np

from attnlab.tabletop import gradient_check
from attnlab.tabletop.gradcheck import (
    central_gradient,
    central_gradient_batched,
    piecewise_gradient,
)


def test_readout_for_the_two_head_vector_model():
    g = gradient_check(35)
    assert g["task"] == "vector" and g["heads"] == 2 and g["n_params"] == 362
    assert g["max_rel_error"] < 1e-6 and g["max_abs_error"] < 1e-9
    assert gradient_check(35) == g  # cached, and a fresh copy each time
    g["max_rel_error"] = 1.0
    assert gradient_check(35)["max_rel_error"] < 1e-6


def test_readout_would_catch_a_wrong_backward(monkeypatch):
    from attnlab.tabletop import gradcheck
    from attnlab.tabletop.model import CrossAttention

    real = CrossAttention.backward

    def off_by_a_bit(self, g, cache, params, grads):
        real(self, g, cache, params, grads)
        grads.W_K[...] *= 1.001

    monkeypatch.setattr(CrossAttention, "backward", off_by_a_bit)
    gradcheck._gradient_check.cache_clear()
    try:
        assert gradient_check(1)["max_rel_error"] > 1e-4
    finally:
        gradcheck._gradient_check.cache_clear()


def test_fourth_order_differences_of_a_smooth_function():
    x = np.array([0.3, -1.2, 2.0])
    grad = central_gradient(lambda: float(np.sum(np.sin(x) * x**3)), x, 1e-3)
    np.testing.assert_allclose(grad, np.cos(x) * x**3 + 3 * x**2 * np.sin(x), rtol=1e-10)


def test_batched_differences_equal_one_at_a_time():
    x = np.array([0.3, -1.2, 2.0, 0.7])

    def f_rows(batch: np.ndarray) -> np.ndarray:  # one loss per row of perturbed parameters
        return np.sum(np.sin(batch) * batch**3, axis=1)

    moved = x.copy()  # central_gradient perturbs this one in place
    one_by_one = central_gradient(lambda: float(f_rows(moved[None])[0]), moved, 1e-3)
    np.testing.assert_allclose(central_gradient_batched(f_rows, x, 1e-3), one_by_one, rtol=1e-9)


def test_kinks_shrink_the_step():
    x = np.array([1e-4, -0.5])  # the first entry sits 1e-4 from the kink of relu

    def f():
        return float(np.sum(np.maximum(x, 0.0) ** 2 + x)), x > 0

    np.testing.assert_allclose(piecewise_gradient(f, x, 1e-2), [2e-4 + 1, 1.0], rtol=1e-8)
