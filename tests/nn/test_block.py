from __future__ import annotations

import numpy as np
import pytest

from attnlab.nn import attention, causal_mask
from attnlab.nn.block import NORMS, BlockConfig, block_forward, init_block, mlp_forward

D, H, N = 16, 2, 8


def _ln(x: np.ndarray) -> np.ndarray:
    """LayerNorm with γ = 1, β = 0 (the init values), written out."""
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5)


def _mha(x: np.ndarray, p: dict, mask: np.ndarray | None = None) -> np.ndarray:
    """Multi-head self-attention head by head, concatenated, then W_O."""
    heads = [
        attention(x @ p["W_Q"][h], x @ p["W_K"][h], x @ p["W_V"][h], mask=mask)[0]
        for h in range(p["W_Q"].shape[0])
    ]
    return np.concatenate(heads, axis=-1) @ p["W_O"]


def _mlp(x: np.ndarray, p: dict) -> np.ndarray:
    return np.maximum(x @ p["W_1"] + p["b_1"], 0) @ p["W_2"] + p["b_2"]


def _reference(x: np.ndarray, p: dict, cfg: BlockConfig) -> np.ndarray:
    """The lesson's block equations, one configuration at a time."""
    r = 1.0 if cfg.residual else 0.0
    if cfg.norm == "pre":
        x = r * x + _mha(_ln(x), p)
        return r * x + _mlp(_ln(x), p) if cfg.mlp else x
    if cfg.norm == "post":
        x = _ln(r * x + _mha(x, p))
        return _ln(r * x + _mlp(x, p)) if cfg.mlp else x
    x = r * x + _mha(x, p)
    return r * x + _mlp(x, p) if cfg.mlp else x


@pytest.mark.parametrize("residual", [True, False])
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("mlp", [True, False])
def test_block_matches_the_equations(rng, residual, norm, mlp):
    cfg = BlockConfig(residual=residual, norm=norm, mlp=mlp)
    p = init_block(D, H, rng)
    p["gamma_1"], p["gamma_2"] = np.ones(D), np.ones(D)  # the reference LN has γ = 1, β = 0
    x = rng.normal(size=(N, D))
    out, weights = block_forward(x, p, cfg)
    np.testing.assert_allclose(out, _reference(x, p, cfg), rtol=1e-12, atol=1e-12)
    assert weights.shape == (H, N, N)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)


def test_post_ln_output_is_normalised_per_token(rng):
    p = init_block(D, H, rng)
    out, _ = block_forward(rng.normal(size=(N, D)) * 50, p, BlockConfig(norm="post"))
    np.testing.assert_allclose(out.mean(axis=-1), 0.0, atol=1e-12)
    np.testing.assert_allclose(out.std(axis=-1), 1.0, atol=1e-4)  # eps = 1e-5 shaves a little


def test_permuting_tokens_permutes_the_output(rng):
    p = init_block(D, H, rng)
    x = rng.normal(size=(N, D))
    perm = rng.permutation(N)
    out, _ = block_forward(x, p, BlockConfig())
    out_perm, _ = block_forward(x[perm], p, BlockConfig())
    np.testing.assert_allclose(out_perm, out[perm], atol=1e-12)


def test_causal_mask_hides_later_tokens(rng):
    p = init_block(D, H, rng)
    x = rng.normal(size=(N, D))
    changed = x.copy()
    changed[5:] = rng.normal(size=(N - 5, D))
    a, _ = block_forward(x, p, BlockConfig(), mask=causal_mask(N))
    b, _ = block_forward(changed, p, BlockConfig(), mask=causal_mask(N))
    np.testing.assert_array_equal(a[:5], b[:5])
    assert not np.allclose(a[5:], b[5:])


def test_mlp_acts_on_each_token_alone(rng):
    p = init_block(D, H, rng)
    x = rng.normal(size=(N, D))
    rows = np.stack([mlp_forward(x[i : i + 1], p)[0] for i in range(N)])
    np.testing.assert_allclose(mlp_forward(x, p), rows, atol=1e-12)


def test_init_scales():
    p = init_block(64, 4, np.random.default_rng(0))
    assert p["W_Q"].shape == (4, 64, 16) and p["W_O"].shape == (64, 64)
    assert p["W_1"].shape == (64, 256) and p["W_2"].shape == (256, 64)
    # N(0, 1/d) for attention, He N(0, 2/fan_in) for the MLP: sample variances within 10%
    assert p["W_Q"].var() * 64 == pytest.approx(1.0, rel=0.1)
    assert p["W_1"].var() * 64 / 2 == pytest.approx(1.0, rel=0.1)
    assert p["W_2"].var() * 256 / 2 == pytest.approx(1.0, rel=0.1)


def test_bad_configurations_are_refused(rng):
    with pytest.raises(ValueError, match="norm"):
        BlockConfig(norm="batch")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="divisible"):
        init_block(10, 3, rng)


def test_parts_follow_the_switches():
    parts = BlockConfig(residual=False, norm="post", mlp=False).parts()
    assert parts == {
        "attention": True,
        "residual": False,
        "pre_ln": False,
        "post_ln": True,
        "mlp": False,
    }
