"""Position encodings: the sinusoidal table and rotary embedding (RoPE). §4 part 2, §5, FIG 4.

Self-attention treats its input as a set (M1): permuting the tokens only permutes the outputs.
Two ways to let it see order:

- sinusoidal: add PE(p) to token p; dims 2i and 2i+1 hold sin(ω_i p) and cos(ω_i p) with
  ω_i = 10000^(-2i/d), so PE(p)·PE(p') = Σ_i cos(ω_i (p − p')) depends only on p − p'.
- RoPE: leave the tokens alone and rotate each pair (2i, 2i+1) of q by the angle m·ω_i and of k by
  n·ω_i; since R(a)ᵀR(b) = R(b − a), the score q_m·k_n depends only on n − m.

Pure NumPy, no I/O.
"""

from __future__ import annotations

import numpy as np

__all__ = ["rope_rotate", "sinusoidal_encoding", "sinusoidal_frequencies"]

# The base of the original Transformer: the fastest pair turns 1 rad per position, the slowest
# 10000^(-(d-2)/d) rad per position.
BASE = 10_000.0


def sinusoidal_frequencies(d: int, *, base: float = BASE) -> np.ndarray:
    """ω_i = base^(-2i/d) for the d/2 pairs, shape (d/2,), in rad per position."""
    if d < 2 or d % 2:
        raise ValueError(f"d must be a positive even number, got {d}")
    i = np.arange(d // 2)
    return base ** (-2.0 * i / d)


def sinusoidal_encoding(n_positions: int, d: int, *, base: float = BASE) -> np.ndarray:
    """The sinusoidal table PE, shape (n_positions, d): PE[p, 2i] = sin(ω_i p), PE[p, 2i+1] = cos.

    Every pair has length 1, so PE(p)·PE(p) = d/2; FIG 4 divides by d/2 to show a similarity
    that peaks at exactly 1.
    """
    if n_positions < 1:
        raise ValueError(f"n_positions must be at least 1, got {n_positions}")
    omega = sinusoidal_frequencies(d, base=base)  # (d/2,)
    angle = np.arange(n_positions)[:, None] * omega[None, :]  # (n_positions, d/2)
    pe = np.empty((n_positions, d))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle)
    return pe


def rope_rotate(x: np.ndarray, positions: np.ndarray, omega: np.ndarray | float) -> np.ndarray:
    """Rotate each pair (x[..., 2i], x[..., 2i+1]) of every token by the angle position·ω_i.

    x: (..., n, d) with d even; positions: (n,) (ints or floats); omega: (d/2,) or a scalar used
    for every pair. Returns a new array of x's shape. The rotation is
    R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]] acting on the column (x_2i, x_2i+1).
    """
    x = np.asarray(x, dtype=float)
    if x.ndim < 2 or x.shape[-1] % 2:
        raise ValueError(f"x must be (..., n, d) with d even, got shape {x.shape}")
    n, d = x.shape[-2:]
    positions = np.asarray(positions, dtype=float)
    if positions.shape != (n,):
        raise ValueError(f"positions must have shape ({n},), got {positions.shape}")
    omega = np.broadcast_to(np.asarray(omega, dtype=float), (d // 2,))
    theta = positions[:, None] * omega[None, :]  # (n, d/2)
    cos, sin = np.cos(theta), np.sin(theta)
    even, odd = x[..., 0::2], x[..., 1::2]  # (..., n, d/2) each
    out = np.empty_like(x)
    out[..., 0::2] = cos * even - sin * odd
    out[..., 1::2] = sin * even + cos * odd
    return out
