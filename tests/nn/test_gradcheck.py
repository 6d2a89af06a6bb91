"""The package's one gradient check (nn/gradcheck.py): each difference formula on functions whose
derivative is known, and the relative error."""

from __future__ import annotations

import numpy as np
import pytest

from attnlab.nn.gradcheck import (
    central_gradient,
    central_gradient_batched,
    numerical_gradient,
    piecewise_gradient,
    rel_error,
)


@pytest.mark.parametrize("eps", [1e-4, 1e-6])
def test_numerical_gradient_of_a_known_function(eps):
    x = np.array([1.0, -2.0, 0.5])
    num = numerical_gradient(lambda: float(np.sum(x**3)), x, eps=eps)
    assert rel_error(3 * x**2, num) < 1e-6


def test_numerical_gradient_of_a_matrix_restores_it():
    x = np.array([[0.5, -1.0], [2.0, 0.25]])
    before = x.copy()
    num = numerical_gradient(lambda: float(np.sum(np.sin(x))), x)
    np.testing.assert_allclose(num, np.cos(x), rtol=1e-8)
    np.testing.assert_array_equal(x, before)  # every entry put back exactly


def test_fourth_order_differences_of_a_smooth_function():
    x = np.array([0.3, -1.2, 2.0])
    grad = central_gradient(lambda: float(np.sum(np.sin(x) * x**3)), x, 1e-3)
    np.testing.assert_allclose(grad, np.cos(x) * x**3 + 3 * x**2 * np.sin(x), rtol=1e-10)


def test_fourth_order_beats_two_point_at_the_same_step():
    x = np.array([0.7])
    exact = np.cos(x) * np.exp(np.sin(x))

    def f():
        return float(np.exp(np.sin(x[0])))

    two = numerical_gradient(f, x, eps=1e-2)
    four = central_gradient(f, x, 1e-2)
    assert abs(four[0] - exact[0]) < abs(two[0] - exact[0]) / 100


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


def test_rel_error_sees_a_wrong_gradient():
    assert rel_error(np.array([1.0, 2.0]), np.array([1.0, 2.1])) > 1e-2


def test_rel_error_measures_rounding_noise_against_the_gradients_scale():
    analytic = np.array([1.0, 1e-12])
    numeric = np.array([1.0, 3e-12])  # "200 % off" elementwise, harmless against an entry of 1
    assert rel_error(analytic, numeric) < 1e-5
    assert rel_error(np.zeros(3), np.zeros(3)) == 0.0
