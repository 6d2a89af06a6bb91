"""Scaled dot-product attention and multi-head attention, forward beside backward (§5).

    Attn(Q, K, V) = softmax(Q Kᵀ / √d_k + M) V

Shapes are written on the arrays: `...` is any batch of leading dimensions, `n_q` queries,
`n_k` keys (and values), `d_k` the query/key width, `d_v` the value width, `H` heads.
A mask is boolean and True where a query *may* attend, broadcastable to (..., n_q, n_k);
it is the −∞ of M in the formula, applied inside the softmax so masked weights are exactly 0.
"""

from __future__ import annotations

import numpy as np

from attnlab.nn.ops import Array, softmax, softmax_backward

__all__ = [
    "attention",
    "attention_backward",
    "attention_forward",
    "causal_mask",
    "multi_head_backward",
    "multi_head_forward",
    "prefix_causal_mask",
]


def attention_forward(
    q: Array, k: Array, v: Array, mask: Array | None = None, scale: bool = True
) -> tuple[Array, Array, tuple]:
    """(out, weights, cache) for q (..., n_q, d_k), k (..., n_k, d_k), v (..., n_k, d_v)."""
    c = 1.0 / np.sqrt(q.shape[-1]) if scale else 1.0
    s = (q @ np.swapaxes(k, -1, -2)) * c  # (..., n_q, n_k) scores
    alpha = softmax(s, axis=-1, mask=mask)  # (..., n_q, n_k) each row sums to 1
    with np.errstate(under="ignore"):  # weights of ~1e-300 times a value are 0, harmlessly
        out = alpha @ v  # (..., n_q, d_v) weighted average of the values
    return out, alpha, (q, k, v, alpha, c)


def attention_backward(dout: Array, cache: tuple) -> tuple[Array, Array, Array]:
    """(dq, dk, dv) from dout (..., n_q, d_v).

    ∂L/∂v_i = Σ_q α_qi g_q;  ∂L/∂s from the softmax backward;  then s = c·q kᵀ gives
    ∂L/∂q = c·∂L/∂s k and ∂L/∂k = c·(∂L/∂s)ᵀ q. Masked weights are 0, so they pass no gradient.
    """
    q, k, v, alpha, c = cache
    with np.errstate(under="ignore"):  # saturated rows: tiny weights underflow to 0, harmlessly
        dv = np.swapaxes(alpha, -1, -2) @ dout
        dalpha = dout @ np.swapaxes(v, -1, -2)
        ds = softmax_backward(dalpha, alpha) * c
    dq = ds @ k
    dk = np.swapaxes(ds, -1, -2) @ q
    # Broadcast inputs (e.g. one k shared by a batch of q) get their gradients summed back.
    return _unbroadcast(dq, q.shape), _unbroadcast(dk, k.shape), _unbroadcast(dv, v.shape)


def attention(
    q: Array, k: Array, v: Array, mask: Array | None = None, scale: bool = True
) -> tuple[Array, Array]:
    """Scaled dot-product attention: returns (out, weights).

    q: (..., n_q, d_k) queries, k: (..., n_k, d_k) keys, v: (..., n_k, d_v) values.
    mask: optional boolean, True = may attend, broadcastable to (..., n_q, n_k).
    scale: divide the scores by √d_k (True) or not (False, to see FIG 3's saturation).
    out: (..., n_q, d_v), the weighted averages; weights: (..., n_q, n_k), each row sums to 1
    (a fully masked row is all zeros and gives a zero output).

    >>> import numpy as np
    >>> q = np.array([[4.0, 0.0]]); k = np.array([[1.0, 0.0], [0.0, 1.0]]); v = np.eye(2)
    >>> out, w = attention(q, k, v)
    >>> bool(w[0, 0] > 0.9), float(w.sum())
    (True, 1.0)
    """
    q, k, v = (np.asarray(a, dtype=float) for a in (q, k, v))
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share d_k, got {q.shape[-1]} and {k.shape[-1]}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v must have the same n_k, got {k.shape[-2]} and {v.shape[-2]}")
    out, alpha, _ = attention_forward(q, k, v, mask=mask, scale=scale)
    return out, alpha


def _unbroadcast(grad: Array, shape: tuple[int, ...]) -> Array:
    """Sum `grad` down to `shape`, undoing NumPy broadcasting."""
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


# --- masks ---------------------------------------------------------------------------------------


def causal_mask(n: int) -> Array:
    """(n, n) bool: query i may attend key j iff j ≤ i (no peeking at later tokens)."""
    return np.tril(np.ones((n, n), dtype=bool))


def prefix_causal_mask(n: int, n_prefix: int) -> Array:
    """(n, n) bool block mask: the first `n_prefix` tokens (observations) see each other freely;
    later tokens (actions) see the whole prefix and the earlier actions only."""
    mask = causal_mask(n)
    mask[:n_prefix, :n_prefix] = True
    return mask


# --- multi-head ----------------------------------------------------------------------------------


def multi_head_forward(
    x_q: Array, x_kv: Array, params: dict[str, Array], mask: Array | None = None
) -> tuple[Array, dict[str, Array], tuple]:
    """MHA(x_q, x_kv) = [z_1 … z_H] W_O + b_O with z_h = Attn(x_q W_Q^h, x_kv W_K^h, x_kv W_V^h).

    x_q: (..., n_q, d_q); x_kv: (..., n_k, d_x) (pass the same array for self-attention).
    params: W_Q (H, d_q, d_k), W_K (H, d_x, d_k), W_V (H, d_x, d_v), W_O (H·d_v, d_out),
    optional b_O (d_out,). Returns (out (..., n_q, d_out), {"weights": (..., H, n_q, n_k)}, cache).
    """
    W_Q, W_K, W_V, W_O = params["W_Q"], params["W_K"], params["W_V"], params["W_O"]
    H, _, d_v = W_V.shape
    xq = x_q[..., None, :, :]  # (..., 1, n_q, d_q): broadcast over the head axis
    xkv = x_kv[..., None, :, :]
    Q, K, V = xq @ W_Q, xkv @ W_K, xkv @ W_V  # (..., H, n, d_k|d_v)
    z, alpha, att_cache = attention_forward(Q, K, V, mask=mask)  # z: (..., H, n_q, d_v)
    z_cat = np.swapaxes(z, -3, -2).reshape(*z.shape[:-3], z.shape[-2], H * d_v)  # concat heads
    out = z_cat @ W_O
    if "b_O" in params:
        out = out + params["b_O"]
    cache = (xq, xkv, params, att_cache, z_cat)
    return out, {"weights": alpha}, cache


def multi_head_backward(dout: Array, cache: tuple) -> tuple[Array, Array, dict[str, Array]]:
    """(dx_q, dx_kv, grads) with grads keyed like params."""
    xq, xkv, params, att_cache, z_cat = cache
    W_Q, W_K, W_V, W_O = params["W_Q"], params["W_K"], params["W_V"], params["W_O"]
    H, _, d_v = W_V.shape
    d_out = dout.shape[-1]
    grads = {"W_O": z_cat.reshape(-1, z_cat.shape[-1]).T @ dout.reshape(-1, d_out)}
    if "b_O" in params:
        grads["b_O"] = dout.reshape(-1, d_out).sum(axis=0)
    dz_cat = dout @ W_O.T  # (..., n_q, H·d_v)
    dz = np.swapaxes(dz_cat.reshape(*dz_cat.shape[:-1], H, d_v), -3, -2)  # (..., H, n_q, d_v)
    dQ, dK, dV = attention_backward(dz, att_cache)

    def weight_grad(x: Array, d: Array) -> Array:  # Σ over batch of xᵀ d, per head
        g = np.swapaxes(x, -1, -2) @ d  # (..., H, d_in, d_head)
        return g.reshape(-1, *g.shape[-3:]).sum(axis=0)

    grads["W_Q"] = weight_grad(xq, dQ)
    grads["W_K"] = weight_grad(xkv, dK)
    grads["W_V"] = weight_grad(xkv, dV)
    dx_q = (dQ @ np.swapaxes(W_Q, -1, -2)).sum(axis=-3)
    dx_kv = (dK @ np.swapaxes(W_K, -1, -2) + dV @ np.swapaxes(W_V, -1, -2)).sum(axis=-3)
    return dx_q, dx_kv, grads
