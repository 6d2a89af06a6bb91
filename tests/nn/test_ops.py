from __future__ import annotations

import numpy as np

from attnlab.nn import (
    layer_norm_backward,
    layer_norm_forward,
    linear_backward,
    linear_forward,
    numerical_gradient,
    rel_error,
    relu_backward,
    relu_forward,
    softmax,
    softmax_backward,
    softmax_jacobian,
    softmax_jacobian_norm,
)


def test_softmax_rows_are_distributions(rng):
    x = rng.normal(size=(4, 7)) * 30
    a = softmax(x)
    assert np.all(a >= 0)
    np.testing.assert_allclose(a.sum(axis=-1), 1.0)


def test_softmax_is_stable_for_huge_scores():
    a = softmax(np.array([1000.0, 999.0, -1000.0]))
    np.testing.assert_allclose(a, [1 / (1 + np.exp(-1)), np.exp(-1) / (1 + np.exp(-1)), 0.0])


def test_softmax_mask_gives_exact_zeros_and_fully_masked_rows_are_zero(rng):
    x = rng.normal(size=(3, 4))
    mask = np.array([[1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]], dtype=bool)
    a = softmax(x, mask=mask)
    assert np.all(a[~mask] == 0.0)
    np.testing.assert_allclose(a[:2].sum(axis=-1), 1.0)
    assert np.all(a[2] == 0.0) and np.all(np.isfinite(a))


def test_softmax_along_other_axis(rng):
    x = rng.normal(size=(5, 3))
    np.testing.assert_allclose(softmax(x, axis=0), softmax(x.T).T)


def test_softmax_backward_matches_finite_differences(rng):
    s = rng.normal(size=(3, 5))
    g = rng.normal(size=(3, 5))
    ds = softmax_backward(g, softmax(s))
    num = numerical_gradient(lambda: float(np.sum(g * softmax(s))), s)
    assert rel_error(ds, num) < 1e-6


def test_softmax_jacobian_matches_backward(rng):
    alpha = softmax(rng.normal(size=(2, 4)))
    g = rng.normal(size=(2, 4))
    via_jacobian = np.einsum("bij,bi->bj", softmax_jacobian(alpha), g)
    np.testing.assert_allclose(via_jacobian, softmax_backward(g, alpha), atol=1e-14)


def test_softmax_jacobian_norm_is_the_frobenius_norm_of_the_matrix(rng):
    alpha = softmax(rng.normal(size=(50, 16)) * np.geomspace(0.1, 30, 50)[:, None])  # flat→peaked
    want = np.linalg.norm(softmax_jacobian(alpha), axis=(-2, -1))
    np.testing.assert_allclose(softmax_jacobian_norm(alpha), want, rtol=1e-9, atol=1e-11)


def test_linear_backward(rng):
    x, W, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 5)), rng.normal(size=5)
    g = rng.normal(size=(2, 3, 5))

    def loss() -> float:
        return float(np.sum(g * linear_forward(x, W, b)[0]))

    dx, dW, db = linear_backward(g, linear_forward(x, W, b)[1])
    for analytic, param in ((dx, x), (dW, W), (db, b)):
        assert rel_error(analytic, numerical_gradient(loss, param)) < 1e-6


def test_relu_backward(rng):
    x = rng.normal(size=(4, 6))
    x[np.abs(x) < 1e-3] = 0.5  # keep away from the kink, where no derivative exists
    g = rng.normal(size=x.shape)
    dx = relu_backward(g, relu_forward(x)[1])
    num = numerical_gradient(lambda: float(np.sum(g * relu_forward(x)[0])), x)
    assert rel_error(dx, num) < 1e-6


def test_layer_norm_normalises_each_token(rng):
    x = rng.normal(3.0, 5.0, size=(6, 16))
    out, _ = layer_norm_forward(x, np.ones(16), np.zeros(16), eps=0.0)
    np.testing.assert_allclose(out.mean(axis=-1), 0.0, atol=1e-12)
    np.testing.assert_allclose(out.std(axis=-1), 1.0, atol=1e-12)


def test_layer_norm_backward(rng):
    x = rng.normal(size=(2, 3, 6))
    gamma, beta = rng.normal(size=6), rng.normal(size=6)
    g = rng.normal(size=x.shape)

    def loss() -> float:
        return float(np.sum(g * layer_norm_forward(x, gamma, beta)[0]))

    dx, dgamma, dbeta = layer_norm_backward(g, layer_norm_forward(x, gamma, beta)[1])
    for analytic, param in ((dx, x), (dgamma, gamma), (dbeta, beta)):
        assert rel_error(analytic, numerical_gradient(loss, param)) < 1e-6
