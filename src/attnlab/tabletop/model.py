"""The cross-attention model of FIG 2 (§3; backward pass as in §5, "backprop through softmax").

One query from the instruction token c, keys and values from the object tokens x_i (rows):

    q_h = c W_Q^h,  k_hi = x_i W_K^h,  v_hi = x_i W_V^h,  α_h = softmax_i(q_h · k_hi / √d_k),
    ŷ = [Σ_i α_1i v_1i, …, Σ_i α_Hi v_Hi] W_O + b,       L = ½‖ŷ − y‖².

Conventions are attnlab.nn's (see nn/__init__.py): a token is a row and a weight maps d_in → d_out
as x @ W, so W_Q^h is 12×8 and W_O stacks the heads' rows; a mask is boolean, True where a slot
holds an object. That is `nn.multi_head_forward`'s layout, so `reference.py` rebuilds this model
from nn's pieces without reshuffling, and the tests hold the fused gradients equal to it. (§3 of
the lesson writes the same model with column vectors, q = W_Q c and W_Q 8 × 12: the transpose.)

Sizes: d_k = 8 and d_v = 2 per head, whatever the number of heads H (1, 2 or 4). Note that this
differs from the d/H convention of §5, where heads split a fixed width: here each added head
brings its own full W_Q (12×8), W_K (8×8), W_V (8×2), so one head has 96 + 64 + 16 + 4 + 2 = 182
parameters and H heads have 176·H + 4·H + 2.

`attend` is the textbook version, one scene at a time. `forward`/`backward` are the fused,
batched kernels the trainer runs; they compute the same numbers in a cheaper order. Because
k and v are linear in x, a head's score is x_i · (W_K^h q_hᵀ) and its output (Σ_i α_i x_i) W_V^h:
the query is moved into token space (u_h = M_h cᵀ with M_h = W_K^h W_Q^hᵀ / √d_k, 8×12) and the
tokens are pooled before the value projection, which is then folded into W_O (P_h = W_V^h W_O^h,
8×2, kept transposed). M and P are stored token-axis-first so that the products are the same
BLAS calls as when the weights were column-major: training is bit-for-bit what it was.
Every array carries a leading seed axis S, so one call trains a whole sweep; the parameters of
all seeds sit in one (S, n_params) array and the kernels work on views of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from attnlab.nn.attention import attention
from attnlab.tabletop.scenes import INSTRUCTION_DIM, TOKEN_DIM

D_K = 8
D_V = 2
D_OUT = 2
SCALE = 1.0 / math.sqrt(D_K)  # a Python float: np.sqrt on every step costs a microsecond


class AttentionParams(NamedTuple):
    """Views into a (S, n_params) array; shapes with the seed axis S first (row vectors: x @ W)."""

    W_Q: np.ndarray  # (S, H, 12, d_k)
    W_K: np.ndarray  # (S, H, 8, d_k)
    W_V: np.ndarray  # (S, H, 8, d_v)
    W_O: np.ndarray  # (S, H·d_v, 2)
    b: np.ndarray  # (S, 2)


class AttentionCache(NamedTuple):
    x: np.ndarray  # (S, B, N, 8) object tokens
    c: np.ndarray  # (S, B, 12) instruction tokens
    alpha: np.ndarray  # (S, B, H, N) attention weights
    x_bar: np.ndarray  # (S, B, H·8) Σ_i α_hi x_i, per head
    P: np.ndarray  # (S, 2, H·8) (W_V^h W_O^h)ᵀ, heads side by side


@dataclass(frozen=True)
class CrossAttention:
    """Layout and kernels of the H-head cross-attention model (no state: parameters are passed)."""

    heads: int = 1

    def sizes(self) -> dict[str, int]:
        """Parameter counts by named part; their sum is the total (182 for one head)."""
        h = self.heads
        return {
            "W_Q": h * D_K * INSTRUCTION_DIM,
            "W_K": h * D_K * TOKEN_DIM,
            "W_V": h * D_V * TOKEN_DIM,
            "W_O": D_OUT * h * D_V,
            "b": D_OUT,
        }

    @property
    def n_params(self) -> int:
        return sum(self.sizes().values())

    def views(self, theta: np.ndarray) -> AttentionParams:
        """Named views into theta (S, n_params); writing to a view writes theta."""
        s, h = theta.shape[0], self.heads
        shapes = {
            "W_Q": (h, INSTRUCTION_DIM, D_K),
            "W_K": (h, TOKEN_DIM, D_K),
            "W_V": (h, TOKEN_DIM, D_V),
            "W_O": (h * D_V, D_OUT),
            "b": (D_OUT,),
        }
        out, at = {}, 0
        for name, size in self.sizes().items():
            out[name] = theta[:, at : at + size].reshape(s, *shapes[name])
            at += size
        return AttentionParams(**out)

    def init(self, rng: np.random.Generator, *, scheme: str = "xavier") -> np.ndarray:
        """Fresh parameters (n_params,): weights Gaussian, b = 0.

        scheme "xavier": variance 2/(fan_in + fan_out); "fan_in": variance 1/fan_in.
        (Chosen by a seed sweep of the 2-head vector task: see tabletop/__init__.py.)
        """
        theta = np.zeros((1, self.n_params))
        for w in self.views(theta)[:4]:
            fan_in, fan_out = w.shape[-2:]
            var = 2.0 / (fan_in + fan_out) if scheme == "xavier" else 1.0 / fan_in
            # drawn as (fan_out, fan_in) and transposed: the order the draws had when the weights
            # were stored that way, so every seed keeps the weights its measured numbers came from
            draw = rng.normal(0.0, np.sqrt(var), size=(*w.shape[:-2], fan_out, fan_in))
            w[...] = draw.swapaxes(-1, -2)
        return theta[0]

    def forward(
        self, params: AttentionParams, x: np.ndarray, c: np.ndarray, mask: np.ndarray
    ) -> tuple[np.ndarray, AttentionCache]:
        """ŷ (S, B, 2) for tokens x (S|1, B, N, 8), c (S|1, B, 12), bool mask (S|1, B, N).

        params: views of theta (from `views`, made once: building them costs more than a step).
        """
        W_Q, W_K, W_V, W_O, b = params
        s, h = W_Q.shape[0], self.heads
        M = np.matmul(W_K, W_Q.swapaxes(-1, -2))  # (S, H, 8, 12) = W_K^h W_Q^hᵀ, tokens first
        M *= SCALE
        # P_hᵀ = (W_V^h W_O^h)ᵀ: the value projection folded into the output, (S, 2, H·8)
        # (transposed, as ŷ = x̄ Pᵀ was computed before the weights became row-major)
        W_O_h = W_O.reshape(s, h, D_V, D_OUT).swapaxes(-1, -2)  # (S, H, 2, d_v)
        P = np.matmul(W_O_h, W_V.swapaxes(-1, -2))  # (S, H, 2, 8)
        P = P.swapaxes(1, 2).reshape(s, D_OUT, h * TOKEN_DIM)
        u = np.matmul(c, M.reshape(s, h * TOKEN_DIM, INSTRUCTION_DIM).swapaxes(-1, -2))
        u = u.reshape(*u.shape[:2], h, TOKEN_DIM)  # (S, B, H, 8): the query, in token space
        scores = np.matmul(u, x.swapaxes(-1, -2))  # (S, B, H, N) = q_h · k_hi / √d_k
        scores = np.where(mask[..., None, :], scores, -np.inf)  # empty slots: weight exactly 0
        scores -= scores.max(axis=-1, keepdims=True)
        alpha = np.exp(scores, out=scores)
        alpha /= alpha.sum(axis=-1, keepdims=True)
        x_bar = np.matmul(alpha, x).reshape(s, -1, h * TOKEN_DIM)  # (S, B, H·8)
        y_hat = np.matmul(x_bar, P.swapaxes(-1, -2))  # (S, B, 2)
        y_hat += b[:, None, :]
        return y_hat, AttentionCache(x, c, alpha, x_bar, P)

    def backward(
        self, g: np.ndarray, cache: AttentionCache, params: AttentionParams, grads: AttentionParams
    ) -> None:
        """Write ∂L/∂θ into the views `grads`, given g = ∂L/∂ŷ (S, B, 2).

        The softmax step is §5's ∂L/∂s_i = α_i (g·v_i − Σ_j α_j g·v_j); the rest is the chain
        rule through the two folded products M and P.
        """
        x, c, alpha, x_bar, P = cache
        W_Q, W_K, W_V, W_O, _ = params
        dW_Q, dW_K, dW_V, dW_O, db = grads
        s, h = W_Q.shape[0], self.heads
        np.sum(g, axis=1, out=db)
        dP = np.matmul(g.swapaxes(-1, -2), x_bar)  # (S, 2, H·8)
        dx_bar = np.matmul(g, P).reshape(*g.shape[:2], h, TOKEN_DIM)  # (S, B, H, 8)
        d_alpha = np.matmul(dx_bar, x.swapaxes(-1, -2))  # (S, B, H, N) = g · v_hi, per head
        d_scores = d_alpha - (alpha * d_alpha).sum(axis=-1, keepdims=True)
        d_scores *= alpha
        du = np.matmul(d_scores, x).reshape(s, -1, h * TOKEN_DIM)  # (S, B, H·8)
        dM = np.matmul(du.swapaxes(-1, -2), c).reshape(s, h, TOKEN_DIM, INSTRUCTION_DIM)
        dM *= SCALE
        np.matmul(dM.swapaxes(-1, -2), W_K, out=dW_Q)  # M = W_K W_Qᵀ / √d_k
        np.matmul(dM, W_Q, out=dW_K)
        dP = dP.reshape(s, D_OUT, h, TOKEN_DIM).swapaxes(1, 2)  # (S, H, 2, 8)
        W_O_h = W_O.reshape(s, h, D_V, D_OUT)  # (S, H, d_v, 2)
        np.matmul(dP.swapaxes(-1, -2), W_O_h.swapaxes(-1, -2), out=dW_V)  # P_h = W_V^h W_O^h
        np.matmul(W_V.swapaxes(-1, -2), dP.swapaxes(-1, -2), out=dW_O.reshape(s, h, D_V, D_OUT))


def attend(
    params: AttentionParams, x: np.ndarray, c: np.ndarray, *, seed_index: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """The model written as the lesson writes it, for one scene: (ŷ (2,), α (H, n)).

    x: (n, 8) object tokens, c: (12,) instruction. Slow and plain; the tests check that the fused
    kernels compute the same numbers, and `Trainer.predict` uses it for the display scene.
    """
    W_Q, W_K, W_V, W_O, b = (p[seed_index] for p in params)
    z, alphas = [], []
    for h in range(W_Q.shape[0]):
        q = c @ W_Q[h]  # (d_k,)
        k = x @ W_K[h]  # (n, d_k)
        v = x @ W_V[h]  # (n, d_v)
        z_h, alpha = attention(q[None], k, v)  # the engine's: softmax(q·k/√d_k) then Σ α v
        z.append(z_h[0])
        alphas.append(alpha[0])
    return np.concatenate(z) @ W_O + b, np.array(alphas)
