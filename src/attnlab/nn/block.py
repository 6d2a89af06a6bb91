"""The Transformer block, with switches to take its parts away (§5 "the block", FIG 5).

    Pre-LN:   X' = X + MHA(LN(X)),      X'' = X' + MLP(LN(X'))
    Post-LN:  X' = LN(X + MHA(X)),      X'' = LN(X' + MLP(X'))
    no LN:    X' = X + MHA(X),          X'' = X' + MLP(X')

Turning the residual off drops the `X +`; turning the MLP off drops the second sub-layer. The MLP
acts on each token alone (width d → 4d → d, ReLU); only attention lets tokens exchange
information. Rows are tokens: X is (n, d).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from attnlab.nn.attention import multi_head_forward
from attnlab.nn.ops import Array, layer_norm_forward, relu_forward

Norm = Literal["none", "pre", "post"]
NORMS: tuple[Norm, ...] = ("none", "pre", "post")

__all__ = [
    "NORMS",
    "BlockConfig",
    "BlockParams",
    "block_forward",
    "init_block",
    "layer_norm",
    "mlp_forward",
]

BlockParams = dict[str, Array]


@dataclass(frozen=True)
class BlockConfig:
    """Which parts of the block are on (FIG 5's switches)."""

    residual: bool = True
    norm: Norm = "pre"
    mlp: bool = True

    def __post_init__(self) -> None:
        if self.norm not in NORMS:
            raise ValueError(f"norm must be one of {NORMS}, got {self.norm!r}")

    def parts(self) -> dict[str, bool]:
        """What the block diagram draws as switched on."""
        return {
            "attention": True,
            "residual": self.residual,
            "pre_ln": self.norm == "pre",
            "post_ln": self.norm == "post",
            "mlp": self.mlp,
        }


def init_block(d: int, n_heads: int, rng: np.random.Generator) -> BlockParams:
    """Random, untrained weights for one block of width d with n_heads heads of width d / n_heads.

    Attention matrices are N(0, 1/d), so a projection keeps the scale of a unit-variance token.
    Both MLP layers use He init, N(0, 2/fan_in), the usual choice in front of and after a ReLU: the
    ReLU halves the variance and the factor 2 gives it back, so the MLP's output is about as large
    as its input. With N(0, 1/fan_in) instead the MLP shrinks its input and FIG 5's explosion
    without LayerNorm is slower (it misses 1e5 at 24 layers for some seeds).
    """
    if d % n_heads:
        raise ValueError(f"d = {d} is not divisible by n_heads = {n_heads}")
    d_h, d_ff = d // n_heads, 4 * d
    s = 1.0 / np.sqrt(d)
    return {
        "W_Q": rng.normal(0.0, s, size=(n_heads, d, d_h)),
        "W_K": rng.normal(0.0, s, size=(n_heads, d, d_h)),
        "W_V": rng.normal(0.0, s, size=(n_heads, d, d_h)),
        "W_O": rng.normal(0.0, s, size=(d, d)),
        "W_1": rng.normal(0.0, np.sqrt(2.0 / d), size=(d, d_ff)),
        "b_1": np.zeros(d_ff),
        "W_2": rng.normal(0.0, np.sqrt(2.0 / d_ff), size=(d_ff, d)),
        "b_2": np.zeros(d),
        "gamma_1": np.ones(d),
        "beta_1": np.zeros(d),
        "gamma_2": np.ones(d),
        "beta_2": np.zeros(d),
    }


def layer_norm(x: Array, p: BlockParams, which: int) -> Array:
    """LayerNorm number `which` (1: around attention, 2: around the MLP) of a block."""
    out, _ = layer_norm_forward(x, p[f"gamma_{which}"], p[f"beta_{which}"])
    return out


def mlp_forward(x: Array, p: BlockParams) -> Array:
    """Per-token MLP: ReLU(x W_1 + b_1) W_2 + b_2, (n, d) → (n, 4d) → (n, d)."""
    h, _ = relu_forward(x @ p["W_1"] + p["b_1"])
    return h @ p["W_2"] + p["b_2"]


def _sublayer(x: Array, f, p: BlockParams, which: int, cfg: BlockConfig) -> Array:
    """One sub-layer f (attention or MLP) wrapped in the configured residual and LayerNorm."""
    inner = layer_norm(x, p, which) if cfg.norm == "pre" else x
    y = f(inner)
    if cfg.residual:
        y = x + y
    return layer_norm(y, p, which) if cfg.norm == "post" else y


def block_forward(
    x: Array, p: BlockParams, cfg: BlockConfig, *, mask: Array | None = None
) -> tuple[Array, Array]:
    """One block on x (n, d) → (out (n, d), attention weights (H, n, n)).

    mask: optional boolean (n, n), True = query i may attend key j (causal, block, …).
    """
    store: dict[str, Array] = {}

    def attend(h: Array) -> Array:
        # A large stream (no LayerNorm) gives near one-hot weights whose tiny entries underflow
        # to 0 in α V; attention_forward treats that as the harmless rounding it is.
        out, extra, _ = multi_head_forward(h, h, p, mask=mask)
        store["weights"] = extra["weights"]
        return out

    x = _sublayer(x, attend, p, 1, cfg)
    if cfg.mlp:
        x = _sublayer(x, lambda h: mlp_forward(h, p), p, 2, cfg)
    return x, store["weights"]
