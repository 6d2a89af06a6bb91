"""FIG 5 (§4 part 3, "the block"): 24 random blocks, with residual and LayerNorm switched off.

A stack of untrained blocks (8 tokens, d = 16, 2 heads) shows what each part is for. Without the
residual, attention averages the tokens into one vector within a few layers (rank collapse, Dong
et al. 2021); with the residual but no LayerNorm, the stream grows by a factor every layer;
Pre-LN keeps it small and keeps the tokens apart. Per layer (0 = the input) we report the token
diversity ‖X − 1x̄ᵀ‖_F / ‖X‖_F, the RMS of the residual stream and the tokens' cosine similarities.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from attnlab.nn.block import NORMS, BlockConfig, BlockParams, block_forward, init_block
from attnlab.nn.ops import Array
from attnlab.params import Param
from attnlab.plain import Encoded

NAME = "depth"

N_TOKENS, D, N_HEADS, MAX_DEPTH = 8, 16, 2, 24
# A typical seed: its Pre-LN RMS after 24 layers (7.9) is the median over seeds 0–199.
DEFAULT_SEED = 7

PARAMS: tuple[Param, ...] = (
    Param("residual", "bool", True, "residual connections x + f(x) on or off"),
    Param("norm", "choice", "pre", "LayerNorm: none, Pre-LN or Post-LN", choices=NORMS),
    Param("mlp", "bool", True, "the per-token MLP (width 4d) on or off"),
    Param("depth", "int", MAX_DEPTH, "number of blocks", lo=1, hi=MAX_DEPTH),
    Param(
        "layer", "int", MAX_DEPTH, "layer whose similarities are shown (0 = input)", 0, MAX_DEPTH
    ),
    Param("seed", "int", DEFAULT_SEED, "random weights and input tokens", lo=0, hi=999_999),
)


@lru_cache(maxsize=32)
def random_stack(seed: int) -> tuple[Array, tuple[BlockParams, ...]]:
    """The input tokens X₀ (8, 16) ~ N(0, 1) and 24 blocks of random weights for one seed.

    Drawn once for all 24 layers, so changing the depth keeps the same first blocks.
    """
    rng = np.random.default_rng(seed)
    x0 = rng.standard_normal((N_TOKENS, D))
    blocks = tuple(init_block(D, N_HEADS, rng) for _ in range(MAX_DEPTH))
    for p in blocks:  # cached and shared between calls: nobody may change them
        for w in p.values():
            w.flags.writeable = False
    x0.flags.writeable = False
    return x0, blocks


def token_diversity(x: Array) -> float:
    """‖X − 1x̄ᵀ‖_F / ‖X‖_F: 0 when every token is the same vector, about 1 for random tokens."""
    norm = np.linalg.norm(x)
    return float(np.linalg.norm(x - x.mean(axis=0)) / norm) if norm > 0 else 0.0


def rms(x: Array) -> float:
    """Root mean square of the residual stream's entries."""
    return float(np.sqrt(np.mean(x * x)))


def cosine_matrix(x: Array) -> Array:
    """(n, n) cosine similarity of every pair of tokens (rows of x)."""
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    u = x / np.maximum(norms, np.finfo(float).tiny)
    return np.clip(u @ u.T, -1.0, 1.0)


def run_stack(cfg: BlockConfig, depth: int, seed: int) -> list[Array]:
    """The residual stream at every layer: [X₀, X₁, …, X_depth], each (8, 16)."""
    x, blocks = random_stack(seed)
    stream = [x]
    for p in blocks[:depth]:
        x, _ = block_forward(x, p, cfg)
        stream.append(x)
    return stream


@lru_cache(maxsize=64)
def _layers(residual: bool, norm: str, mlp: bool, seed: int) -> tuple[Any, ...]:
    """All MAX_DEPTH layers of one switch setting and seed: diversity, RMS, the cosine matrices
    (each written once) and their minima. A shallower stack is a prefix of these: its blocks
    are the same first ones, run in the same order (cProfile: rerunning the stack and writing its
    matrices on every drag of the layer slider was most of a FIG 5 request)."""
    cfg = BlockConfig(residual=residual, norm=norm, mlp=mlp)  # type: ignore[arg-type]
    stream = run_stack(cfg, MAX_DEPTH, seed)
    cosines = [cosine_matrix(x) for x in stream]
    return (
        tuple(token_diversity(x) for x in stream),
        tuple(rms(x) for x in stream),
        tuple(Encoded(c) for c in cosines),
        tuple(float(c.min()) for c in cosines),
    )


def compute(
    *, residual: bool, norm: str, mlp: bool, depth: int, layer: int, seed: int
) -> dict[str, Any]:
    """Per-layer diversity, RMS and cosine similarities; `layer` beyond `depth` shows the last."""
    cfg = BlockConfig(residual=residual, norm=norm, mlp=mlp)  # type: ignore[arg-type]
    diversity, rms_by_layer, cosine_all, min_cosine = _layers(residual, norm, mlp, seed)
    shown = min(layer, depth)
    return {
        "n_tokens": N_TOKENS,
        "d": D,
        "n_heads": N_HEADS,
        "parts": cfg.parts(),
        "layers": list(range(depth + 1)),
        "diversity": list(diversity[: depth + 1]),
        "rms": list(rms_by_layer[: depth + 1]),
        "layer_shown": shown,
        "diversity_at_layer": diversity[shown],
        "rms_at_layer": rms_by_layer[shown],
        "cosine": cosine_all[shown],
        "min_cosine_at_layer": min_cosine[shown],
        "cosine_all": list(cosine_all[: depth + 1]),
    }
