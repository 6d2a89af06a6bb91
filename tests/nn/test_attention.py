from __future__ import annotations

import numpy as np
import pytest

from attnlab.nn import (
    attention,
    attention_backward,
    attention_forward,
    causal_mask,
    multi_head_backward,
    multi_head_forward,
    numerical_gradient,
    prefix_causal_mask,
    rel_error,
    softmax,
)


def test_attention_is_a_weighted_average_of_values(rng):
    q, k, v = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    out, w = attention(q, k, v)
    np.testing.assert_allclose(w, softmax(q @ k.T / 2.0))
    np.testing.assert_allclose(out, w @ v)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0)


def test_attention_without_scaling(rng):
    q, k, v = rng.normal(size=(2, 9)), rng.normal(size=(4, 9)), rng.normal(size=(4, 3))
    _, w = attention(q, k, v, scale=False)
    np.testing.assert_allclose(w, softmax(q @ k.T))


def test_attention_batched_matches_loop(rng):
    q, k, v = (
        rng.normal(size=(2, 3, 4, 8)),
        rng.normal(size=(2, 3, 6, 8)),
        rng.normal(size=(2, 3, 6, 5)),
    )
    out, _ = attention(q, k, v)
    for i in range(2):
        for j in range(3):
            np.testing.assert_allclose(out[i, j], attention(q[i, j], k[i, j], v[i, j])[0])


def test_attention_mask_blocks_the_future(rng):
    x = rng.normal(size=(5, 4))
    out, w = attention(x, x, x, mask=causal_mask(5))
    assert np.all(np.triu(w, 1) == 0.0)
    # the first token can only see itself
    np.testing.assert_allclose(out[0], x[0])


def test_attention_fully_masked_row_is_zero_not_nan(rng):
    x = rng.normal(size=(3, 4))
    mask = np.ones((3, 3), dtype=bool)
    mask[1] = False
    out, w = attention(x, x, x, mask=mask)
    assert np.all(w[1] == 0.0) and np.all(out[1] == 0.0)


def test_attention_rejects_mismatched_shapes(rng):
    with pytest.raises(ValueError, match="d_k"):
        attention(rng.normal(size=(2, 3)), rng.normal(size=(2, 4)), rng.normal(size=(2, 4)))
    with pytest.raises(ValueError, match="n_k"):
        attention(rng.normal(size=(2, 3)), rng.normal(size=(2, 3)), rng.normal(size=(5, 4)))


def test_prefix_causal_mask():
    m = prefix_causal_mask(5, 2)
    assert m[0, 1] and m[1, 0]  # the prefix sees itself both ways
    assert m[4, 0] and m[4, 3] and not m[2, 3]  # actions: prefix and earlier actions only


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("scale", [False, True])
def test_attention_backward(rng, masked, scale):
    q, k, v = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 4, 2))
    mask = causal_mask(4) if masked else None
    g = rng.normal(size=(2, 4, 2))

    def loss() -> float:
        return float(np.sum(g * attention_forward(q, k, v, mask, scale)[0]))

    dq, dk, dv = attention_backward(g, attention_forward(q, k, v, mask, scale)[2])
    for analytic, param in ((dq, q), (dk, k), (dv, v)):
        assert rel_error(analytic, numerical_gradient(loss, param)) < 1e-6


def test_attention_backward_with_broadcast_keys(rng):
    q = rng.normal(size=(3, 2, 4))  # a batch of queries against one shared set of keys
    k, v = rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    g = rng.normal(size=(3, 2, 2))

    def loss() -> float:
        return float(np.sum(g * attention_forward(q, k, v)[0]))

    dq, dk, dv = attention_backward(g, attention_forward(q, k, v)[2])
    assert dk.shape == k.shape and dv.shape == v.shape
    for analytic, param in ((dq, q), (dk, k), (dv, v)):
        assert rel_error(analytic, numerical_gradient(loss, param)) < 1e-6


def _mha_params(rng, H=2, d_q=5, d_x=4, d_k=3, d_v=2, d_out=3):
    return {
        "W_Q": rng.normal(size=(H, d_q, d_k)),
        "W_K": rng.normal(size=(H, d_x, d_k)),
        "W_V": rng.normal(size=(H, d_x, d_v)),
        "W_O": rng.normal(size=(H * d_v, d_out)),
        "b_O": rng.normal(size=d_out),
    }


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_multi_head_backward(rng, heads):
    p = _mha_params(rng, H=heads)
    x_q, x_kv = rng.normal(size=(2, 3, 5)), rng.normal(size=(2, 4, 4))
    g = rng.normal(size=(2, 3, 3))

    def loss() -> float:
        return float(np.sum(g * multi_head_forward(x_q, x_kv, p)[0]))

    dx_q, dx_kv, grads = multi_head_backward(g, multi_head_forward(x_q, x_kv, p)[2])
    assert rel_error(dx_q, numerical_gradient(loss, x_q)) < 1e-6
    assert rel_error(dx_kv, numerical_gradient(loss, x_kv)) < 1e-6
    for name, param in p.items():
        assert rel_error(grads[name], numerical_gradient(loss, param)) < 1e-6, name


def test_multi_head_equals_heads_computed_one_by_one(rng):
    p = _mha_params(rng, H=2)
    x_q, x_kv = rng.normal(size=(3, 5)), rng.normal(size=(4, 4))
    out, aux, _ = multi_head_forward(x_q, x_kv, p)
    z = [attention(x_q @ p["W_Q"][h], x_kv @ p["W_K"][h], x_kv @ p["W_V"][h])[0] for h in range(2)]
    np.testing.assert_allclose(out, np.concatenate(z, axis=-1) @ p["W_O"] + p["b_O"])
    assert aux["weights"].shape == (2, 3, 4)
