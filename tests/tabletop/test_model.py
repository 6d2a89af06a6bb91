"""The cross-attention model of FIG 2 (tabletop/model.py): sizes, the fused kernels against the
lesson's formula, gradients against finite differences, and the permutation invariance (F2.9)."""

from __future__ import annotations

import numpy as np
import pytest

from attnlab.tabletop.model import CrossAttention, attend
from attnlab.tabletop.reference import check_model
from attnlab.tabletop.scenes import Scenes, sample_scenes
from attnlab.tabletop.seed_batch import SeedBatch


def _model(heads: int, rng: np.random.Generator, scale: float = 1.0):
    m = CrossAttention(heads)
    theta = (m.init(rng) * scale)[None].copy()
    theta[0, -2:] = rng.normal(size=2)  # a non-zero bias, so b is checked too
    return m, theta, m.views(theta)


def _forward(m, params, sc: Scenes):
    return m.forward(params, sc.x[None], sc.c[None], sc.mask[None])


def test_one_head_has_182_parameters():
    sizes = CrossAttention(1).sizes()
    assert sizes == {"W_Q": 96, "W_K": 64, "W_V": 16, "W_O": 4, "b": 2}
    assert CrossAttention(1).n_params == 182
    # per-head sizes stay fixed as heads are added: 176 per head, W_O grows by 4
    assert [CrossAttention(h).n_params for h in (2, 4)] == [362, 722]


def test_views_cover_theta_exactly_once():
    m = CrossAttention(2)
    theta = np.zeros((3, m.n_params))
    for i, v in enumerate(m.views(theta)):
        v += i + 1
    assert np.all(theta > 0) and theta.sum() == 3 * sum(
        (i + 1) * s for i, s in enumerate(m.sizes().values())
    )


@pytest.mark.parametrize("heads", [1, 2, 4])
@pytest.mark.parametrize("task", ["fetch", "vector"])
def test_fused_kernel_equals_the_lessons_formula(rng, heads, task):
    m, _, params = _model(heads, rng, scale=3.0)
    sc = sample_scenes(rng, 40, task=task)
    y_hat, cache = _forward(m, params, sc)
    for b in range(sc.size):
        n = int(sc.mask[b].sum())
        y_ref, alpha_ref = attend(params, sc.x[b, :n], sc.c[b])
        np.testing.assert_allclose(y_hat[0, b], y_ref, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(cache.alpha[0, b, :, :n], alpha_ref, rtol=1e-12, atol=1e-15)


def test_weights_are_a_distribution_and_skip_empty_slots(rng):
    m, _, params = _model(2, rng, scale=3.0)
    sc = sample_scenes(rng, 200, task="vector")
    alpha = _forward(m, params, sc)[1].alpha[0]  # (B, H, N)
    assert np.all(alpha >= 0)
    np.testing.assert_allclose(alpha.sum(axis=-1), 1.0, atol=1e-12)
    empty = ~sc.mask[:, None, :].repeat(2, axis=1)
    assert np.all(alpha[empty] == 0.0)


@pytest.mark.parametrize("heads", [1, 2, 4])
@pytest.mark.parametrize("task", ["fetch", "vector"])
def test_gradient_matches_finite_differences(rng, heads, task):
    m, theta, _ = _model(heads, rng)
    sc = sample_scenes(rng, 8, task=task)
    res = check_model(m, theta[0], sc)
    assert res["max_rel_error"] < 1e-6
    assert np.abs(res["analytic"]).max() > 1e-3  # a real gradient, not zeros on both sides


@pytest.mark.parametrize("heads", [1, 2, 4])
def test_gradient_matches_after_training(rng, heads):
    """Trained weights make the softmax sharp (weights ~0.98): the hard case for a backward."""
    batch = SeedBatch("vector", heads, [2])
    batch.advance(400)
    m = batch.attn
    res = check_model(m, batch.theta[0, : m.n_params], sample_scenes(rng, 8, task="vector"))
    assert res["max_rel_error"] < 1e-6
    assert batch.head_weight[-1].max() > 0.9  # it did sharpen


def test_permuting_objects_leaves_the_output_unchanged(rng):
    m, _, params = _model(2, rng, scale=3.0)
    sc = sample_scenes(rng, 1, task="vector", objects=(6, 6))
    y, cache = _forward(m, params, sc)
    for _ in range(5):
        order = rng.permutation(6)
        rows = sc.rows.copy()
        rows[0, :48] = sc.x[0, order].ravel()
        shuffled = Scenes(rows, sc.mask, sc.y, sc.target, sc.second, 6)
        y_p, cache_p = _forward(m, params, shuffled)
        np.testing.assert_allclose(y_p, y, rtol=0, atol=1e-14)
        np.testing.assert_allclose(cache_p.alpha[0, 0][:, np.argsort(order)], cache.alpha[0, 0])


def test_an_empty_slot_changes_nothing(rng):
    m, _, params = _model(1, rng, scale=3.0)
    sc = sample_scenes(rng, 50, task="fetch", objects=(3, 3))
    padded = Scenes(
        sc.rows,
        np.concatenate([sc.mask, np.zeros((50, 1), dtype=bool)], 1),
        sc.y,
        sc.target,
        sc.second,
        4,
    )
    np.testing.assert_allclose(
        _forward(m, params, sc)[0], _forward(m, params, padded)[0], atol=1e-14
    )


def test_a_seed_axis_computes_each_seed_alone(rng):
    m = CrossAttention(2)
    theta = np.stack([m.init(rng) for _ in range(3)])
    sc = sample_scenes(rng, 32, task="vector")
    together, _ = m.forward(m.views(theta), sc.x[None], sc.c[None], sc.mask[None])
    for i in range(3):
        alone, _ = m.forward(m.views(theta[i : i + 1]), sc.x[None], sc.c[None], sc.mask[None])
        np.testing.assert_array_equal(together[i], alone[0])


def test_init_schemes_have_the_stated_variance():
    m = CrossAttention(4)
    draws = np.stack([m.init(np.random.default_rng(s)) for s in range(200)])[:, None]
    W_Q = m.views(draws.reshape(200, -1)).W_Q  # (200, 4, 8, 12)
    assert W_Q.var() == pytest.approx(2 / (12 + 8), rel=0.05)
    fan_in = np.stack([m.init(np.random.default_rng(s), scheme="fan_in") for s in range(200)])
    assert m.views(fan_in).W_Q.var() == pytest.approx(1 / 12, rel=0.05)
    assert np.all(m.views(fan_in).b == 0)


def test_init_keeps_each_seeds_draws_from_the_column_layout():
    """Weights are row-major (x @ W) but drawn as (fan_out, fan_in), the order they were drawn
    in when stored column-major: every seed keeps the weights its measured numbers came from."""
    m = CrossAttention(2)
    p = m.views(m.init(np.random.default_rng(3))[None])
    rng = np.random.default_rng(3)
    for w in p[:4]:
        fan_in, fan_out = w.shape[-2:]
        draw = rng.normal(
            0.0, np.sqrt(2 / (fan_in + fan_out)), size=(*w.shape[1:-2], fan_out, fan_in)
        )
        np.testing.assert_array_equal(w[0], draw.swapaxes(-1, -2))
