from __future__ import annotations

import numpy as np
import pytest

from attnlab.nn.positional import rope_rotate, sinusoidal_encoding, sinusoidal_frequencies


def rotation(theta: float) -> np.ndarray:
    return np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])


# --- sinusoidal ----------------------------------------------------------------------------------


def test_frequencies_fall_from_one_radian_per_position():
    omega = sinusoidal_frequencies(32)
    assert omega.shape == (16,)
    assert omega[0] == 1.0
    assert np.all(np.diff(omega) < 0)
    np.testing.assert_allclose(omega[-1], 10_000 ** (-30 / 32))


def test_table_layout_sin_on_even_cos_on_odd():
    pe = sinusoidal_encoding(64, 32)
    assert pe.shape == (64, 32)
    np.testing.assert_array_equal(pe[0, 0::2], 0.0)
    np.testing.assert_array_equal(pe[0, 1::2], 1.0)
    omega = sinusoidal_frequencies(32)
    np.testing.assert_allclose(pe[5, 2 * 3], np.sin(5 * omega[3]))
    np.testing.assert_allclose(pe[5, 2 * 3 + 1], np.cos(5 * omega[3]))
    # each (sin, cos) pair has length 1, so PE(p)·PE(p) = d/2
    np.testing.assert_allclose(np.einsum("pd,pd->p", pe, pe), 16.0)


def test_dot_product_depends_only_on_the_offset():
    pe = sinusoidal_encoding(64, 32)
    gram = pe @ pe.T
    omega = sinusoidal_frequencies(32)
    offset = np.arange(64)[:, None] - np.arange(64)[None, :]
    # §5: PE(p)·PE(p') = Σ_i cos(ω_i (p − p'))
    formula = np.cos(offset[..., None] * omega).sum(axis=-1)
    np.testing.assert_allclose(gram, formula, atol=1e-12)
    for o in (-40, -1, 0, 3, 63):
        diag = np.diagonal(gram, offset=o)
        assert np.ptp(diag) < 1e-12


@pytest.mark.parametrize("d", [0, 3, -2])
def test_odd_or_empty_width_is_refused(d):
    with pytest.raises(ValueError, match="even"):
        sinusoidal_encoding(8, d)


# --- RoPE ----------------------------------------------------------------------------------------


def test_one_pair_is_a_plain_rotation(rng):
    x = rng.standard_normal((5, 2))
    positions = np.arange(5)
    out = rope_rotate(x, positions, 0.35)
    for t in range(5):
        np.testing.assert_allclose(out[t], rotation(0.35 * t) @ x[t], atol=1e-15)


def test_position_zero_is_identity_and_norms_are_kept(rng):
    x = rng.standard_normal((3, 7, 8))  # a batch of 3 sequences
    positions = rng.integers(0, 100, 7)
    positions[0] = 0
    omega = sinusoidal_frequencies(8)
    out = rope_rotate(x, positions, omega)
    np.testing.assert_allclose(out[:, 0], x[:, 0], atol=1e-15)
    pair_norm = np.hypot(x[..., 0::2], x[..., 1::2])
    np.testing.assert_allclose(np.hypot(out[..., 0::2], out[..., 1::2]), pair_norm, atol=1e-13)


def test_rotations_compose(rng):
    x = rng.standard_normal((4, 6))
    omega = sinusoidal_frequencies(6)
    once = rope_rotate(x, np.full(4, 7.0), omega)
    twice = rope_rotate(rope_rotate(x, np.full(4, 3.0), omega), np.full(4, 4.0), omega)
    np.testing.assert_allclose(once, twice, atol=1e-14)


def test_score_depends_only_on_relative_position(rng):
    d = 8
    omega = sinusoidal_frequencies(d)
    q, k = rng.standard_normal((2, 1, d))
    m, n = 5, 12

    def score(m: int, n: int) -> float:
        return float(rope_rotate(q, [m], omega)[0] @ rope_rotate(k, [n], omega)[0])

    base = score(m, n)
    for shift in (1, 3, 17, 50):
        assert abs(score(m + shift, n + shift) - base) < 1e-12
    assert abs(score(m, n + 1) - base) > 1e-6  # the offset itself does matter
    # §5: q_m·k_n = Σ_i q^(i)ᵀ R((n − m) ω_i) k^(i)
    formula = sum(
        q[0, 2 * i : 2 * i + 2] @ rotation((n - m) * w) @ k[0, 2 * i : 2 * i + 2]
        for i, w in enumerate(omega)
    )
    assert abs(base - formula) < 1e-12


def test_rope_refuses_bad_shapes():
    with pytest.raises(ValueError, match="d even"):
        rope_rotate(np.zeros((4, 3)), np.arange(4), 0.1)
    with pytest.raises(ValueError, match="positions"):
        rope_rotate(np.zeros((4, 2)), np.arange(3), 0.1)
