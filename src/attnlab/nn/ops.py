"""The elementary layers, each forward beside its backward (cs231n style).

`foo_forward(...) -> (out, cache)` keeps what the backward pass needs;
`foo_backward(dout, cache) -> grads` returns the gradient of the loss with respect to each input.
Row-vector convention throughout: a token is a row, `x @ W` maps d_in → d_out.
"""

from __future__ import annotations

import numpy as np

Array = np.ndarray


# --- softmax -------------------------------------------------------------------------------------


def softmax(x: Array, axis: int = -1, mask: Array | None = None) -> Array:
    """Numerically stable softmax along `axis`; `mask` (bool, True = keep) zeroes entries exactly.

    Subtracting the row maximum changes nothing mathematically (it cancels in the ratio) but keeps
    exp() from overflowing. Masked entries become −inf, so exp gives exactly 0. A row with every
    entry masked has no distribution at all: it returns all zeros, never NaN.
    """
    if mask is not None:
        x = np.where(mask, x, -np.inf)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)  # fully masked row: max is −inf, shift by 0 instead
    # exp of a very negative score, and a tiny weight divided by the row total, round to 0:
    # that is the right answer, not a floating-point error
    with np.errstate(under="ignore"):
        e = np.exp(x - m)
        total = np.sum(e, axis=axis, keepdims=True)
        return e / np.where(total > 0, total, 1.0)


def softmax_backward(dalpha: Array, alpha: Array, axis: int = -1) -> Array:
    """∂L/∂s from ∂L/∂α through α = softmax(s).

    The Jacobian is ∂α_i/∂s_j = α_i(δ_ij − α_j), so ∂L/∂s_i = α_i (g_i − Σ_j α_j g_j): a score's
    gradient is its weight times how much better its own upstream gradient is than the average.
    Both a saturated row (α ≈ one-hot) and a tiny weight make it vanish (FIG 3).
    """
    return alpha * (dalpha - np.sum(dalpha * alpha, axis=axis, keepdims=True))


def softmax_jacobian(alpha: Array) -> Array:
    """diag(α) − ααᵀ for each row of `alpha` (..., n) → (..., n, n)."""
    return alpha[..., :, None] * np.eye(alpha.shape[-1]) - alpha[..., :, None] * alpha[..., None, :]


def softmax_jacobian_norm(alpha: Array) -> Array:
    """‖diag(α) − ααᵀ‖_F for each row of `alpha` (..., n) → (...), without building the matrix.

    Squaring the entries and summing: the diagonal gives Σ α_i²(1 − α_i)², the off-diagonal
    Σ_{i≠j} α_i² α_j²; together Σα² − 2Σα³ + (Σα²)². O(n) per row instead of O(n²); as a row
    saturates (one α near 1) the terms cancel: exact to ~1e-12 absolute, not relative.
    """
    s2 = np.sum(alpha * alpha, axis=-1)
    s3 = np.sum(alpha * alpha * alpha, axis=-1)
    return np.sqrt(np.maximum(s2 - 2 * s3 + s2 * s2, 0.0))  # ≥ 0 up to rounding


# --- linear --------------------------------------------------------------------------------------


def linear_forward(x: Array, W: Array, b: Array | None = None) -> tuple[Array, tuple]:
    """out = x W + b for x (..., d_in), W (d_in, d_out), b (d_out,)."""
    out = x @ W
    if b is not None:
        out = out + b
    return out, (x, W, b is not None)


def linear_backward(dout: Array, cache: tuple) -> tuple[Array, Array, Array | None]:
    """(dx, dW, db); leading batch dimensions of x are summed out of dW and db."""
    x, W, has_b = cache
    dx = dout @ W.T
    x2 = x.reshape(-1, x.shape[-1])
    d2 = dout.reshape(-1, dout.shape[-1])
    dW = x2.T @ d2
    db = d2.sum(axis=0) if has_b else None
    return dx, dW, db


# --- ReLU ----------------------------------------------------------------------------------------


def relu_forward(x: Array) -> tuple[Array, Array]:
    return np.maximum(x, 0.0), x


def relu_backward(dout: Array, cache: Array) -> Array:
    # The gradient passes where the input was positive and stops elsewhere.
    return dout * (cache > 0)


# --- LayerNorm -----------------------------------------------------------------------------------


def layer_norm_forward(
    x: Array, gamma: Array, beta: Array, eps: float = 1e-5
) -> tuple[Array, tuple]:
    """LN(x) = γ ⊙ (x − μ)/σ + β, with μ, σ over the last axis: one token's own features.

    Unlike BatchNorm nothing is shared across the batch, so one sample at inference works alike.
    """
    mu = x.mean(axis=-1, keepdims=True)
    xc = x - mu
    var = (xc * xc).mean(axis=-1, keepdims=True)
    inv_sigma = 1.0 / np.sqrt(var + eps)
    xhat = xc * inv_sigma
    return gamma * xhat + beta, (xhat, inv_sigma, gamma)


def layer_norm_backward(dout: Array, cache: tuple) -> tuple[Array, Array, Array]:
    """(dx, dγ, dβ). Normalisation couples the features of a token: the gradient of x̂ has its
    mean and its projection on x̂ removed, since shifting or scaling x leaves x̂ unchanged."""
    xhat, inv_sigma, gamma = cache
    d = xhat.shape[-1]
    dgamma = (dout * xhat).reshape(-1, d).sum(axis=0)
    dbeta = dout.reshape(-1, d).sum(axis=0)
    dxhat = dout * gamma
    dx = inv_sigma * (
        dxhat
        - dxhat.mean(axis=-1, keepdims=True)
        - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True)
    )
    return dx, dgamma, dbeta
