"""Masks and the KV cache: who may see whom, and what must be recomputed (§4 part 4, FIG 6, E3).

Generation reads a prefix (a robot policy's observation tokens) in one pass, the *prefill*, then
produces new tokens one at a time. Without a cache every pass recomputes the whole sequence. With
a cache each layer keeps the keys and values it has computed and a pass only computes the new
token's query, key and value. That is exact only if old tokens never change: under a causal or
block mask token i depends on tokens ≤ i alone; under a bidirectional mask the old tokens of
layer 2 and above should see the new token, and the cache keeps stale values.

The model here is a small GPT-style stack of Pre-LN blocks (attnlab.nn.block). Full
recomputation runs `block_forward`; the cached path below computes attention on its own from the
cached K and V, so the equality test compares two independent implementations.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from attnlab.nn.attention import attention, causal_mask, prefix_causal_mask
from attnlab.nn.block import BlockConfig, BlockParams, block_forward, layer_norm, mlp_forward
from attnlab.nn.cost import MASK_KINDS, MaskKind
from attnlab.nn.ops import Array

__all__ = [
    "CELL_STATES",
    "GenerationRun",
    "KVCache",
    "cached_step",
    "cell_states",
    "full_forward",
    "generate",
    "generation_mask",
    "kv_cache_counts",
]

GPT_BLOCK = BlockConfig(residual=True, norm="pre", mlp=True)

# What a cell (query row i, key column j) of the attention matrix is during one pass (FIG 6).
CELL_STATES = ("future", "masked", "computed", "cached", "stale")


def generation_mask(kind: MaskKind, n: int, n_prefix: int) -> Array:
    """(n, n) bool, True = query i may attend key j.

    causal: j ≤ i; block: as causal, but the prefix (observations) also sees itself whole;
    bidirectional: everything sees everything (BERT, ViT encoders).
    """
    if kind == "causal":
        return causal_mask(n)
    if kind == "block":
        return prefix_causal_mask(n, n_prefix)
    if kind == "bidirectional":
        return np.ones((n, n), dtype=bool)
    raise ValueError(f"mask must be one of {MASK_KINDS}, got {kind!r}")


def _pass_lengths(n_prefix: int, n_new: int) -> list[int]:
    """Sequence length after each pass: the prefill, then one more token per step."""
    return [n_prefix + s for s in range(n_new + 1)]


def _row_pass(n_prefix: int, n: int) -> Array:
    """(n,) the pass in which each row (query token) is first computed: 0 for the prefix."""
    return np.maximum(np.arange(n) - n_prefix + 1, 0)


def cell_states(kind: MaskKind, *, cached: bool, step: int, n_prefix: int, n_new: int) -> Array:
    """(n, n) array of CELL_STATES names for pass `step` (0 = prefill, s = s-th new token).

    future: the row or column token does not exist yet; masked: the mask forbids it; computed: a
    dot product done in this pass; cached: done in an earlier pass, its key and value reused;
    stale: allowed by the mask but never computed, because its row was cached before the column's
    token existed (only bidirectional + cache has these: the old token should now see the new one).
    """
    n = n_prefix + n_new
    length = _pass_lengths(n_prefix, n_new)[step]
    mask = generation_mask(kind, n, n_prefix)
    row_pass = _row_pass(n_prefix, n)
    # the sequence length when each row was computed: its keys up to there were seen
    seen = np.array(_pass_lengths(n_prefix, n_new))[row_pass]
    i, j = np.indices((n, n))
    out = np.full((n, n), "computed", dtype=object)
    if cached:
        out[(row_pass[i] < step) & (j < seen[i])] = "cached"
        out[(row_pass[i] < step) & (j >= seen[i])] = "stale"
    out[~mask] = "masked"
    out[(i >= length) | (j >= length)] = "future"
    return out


def kv_cache_counts(kind: MaskKind, *, cached: bool, n_prefix: int, n_new: int) -> dict[str, int]:
    """Dot products per pass, counted cell by cell from the mask: {"prefill": …, "a1": …, …}.

    The sum is the total (F6.1: causal 105 with the cache, 525 without, for 6 + 8 tokens).
    cost.generation_dot_products gives the same totals from closed forms.
    """
    n = n_prefix + n_new
    mask = generation_mask(kind, n, n_prefix).astype(np.int64)
    # unmasked cells of the top-left L × L block, for every L at once
    block_sums = mask.cumsum(axis=0).cumsum(axis=1)
    out: dict[str, int] = {}
    for step, length in enumerate(_pass_lengths(n_prefix, n_new)):
        name = "prefill" if step == 0 else f"a{step}"
        full = int(block_sums[length - 1, length - 1])
        if cached and step > 0:
            out[name] = int(mask[length - 1, :length].sum())  # only the new token's row
        else:
            out[name] = full
    return out


@dataclass
class KVCache:
    """Per layer, the keys and values of every token so far: K[l], V[l] of shape (H, t, d_h)."""

    K: list[Array] = field(default_factory=list)
    V: list[Array] = field(default_factory=list)

    @property
    def length(self) -> int:
        return 0 if not self.K else self.K[0].shape[-2]

    def extend(self, layer: int, k: Array, v: Array) -> tuple[Array, Array]:
        """Append new keys and values (H, m, d_h) to layer `layer`; return the layer's full K, V."""
        if layer == len(self.K):
            self.K.append(k)
            self.V.append(v)
        else:
            self.K[layer] = np.concatenate([self.K[layer], k], axis=-2)
            self.V[layer] = np.concatenate([self.V[layer], v], axis=-2)
        return self.K[layer], self.V[layer]


def _heads(x: Array, W: Array) -> Array:
    """(m, d) @ (H, d, d_h) → (H, m, d_h)."""
    return x[None] @ W


def cached_step(x_new: Array, layers: list[BlockParams], cache: KVCache, mask_rows: Array) -> Array:
    """One pass over the new tokens x_new (m, d) only; returns their outputs (m, d).

    mask_rows: (m, t + m) bool, the new rows of the mask against every key so far. Each layer
    computes q, k, v for the new tokens alone, appends k, v to the cache and attends over the
    whole cache. The old tokens' hidden states are not touched.
    """
    x = x_new
    for layer, p in enumerate(layers):
        h = layer_norm(x, p, 1)
        K, V = cache.extend(layer, _heads(h, p["W_K"]), _heads(h, p["W_V"]))
        z, _ = attention(_heads(h, p["W_Q"]), K, V, mask=mask_rows)  # (H, m, d_h)
        z_cat = np.swapaxes(z, 0, 1).reshape(x.shape[0], -1)  # (m, H·d_h): heads side by side
        x = x + z_cat @ p["W_O"]
        x = x + mlp_forward(layer_norm(x, p, 2), p)
    return x


def full_forward(x: Array, layers: list[BlockParams], mask: Array) -> tuple[Array, KVCache]:
    """Recompute everything on x (n, d): outputs (n, d) and, for comparison, every layer's K, V."""
    kv = KVCache()
    for layer, p in enumerate(layers):
        h = layer_norm(x, p, 1)
        kv.extend(layer, _heads(h, p["W_K"]), _heads(h, p["W_V"]))
        x, _ = block_forward(x, p, GPT_BLOCK, mask=mask)
    return x, kv


@dataclass(frozen=True)
class GenerationRun:
    """inputs (n, d): the prefix and each generated token's input; emitted (n_new + 1, d): the last
    row's output of every pass (the prediction that becomes the next input); cache: final K, V."""

    inputs: Array
    emitted: Array
    cache: KVCache


def generate(
    prefix: Array, layers: list[BlockParams], *, n_new: int, kind: MaskKind, cached: bool
) -> GenerationRun:
    """Autoregressive generation: the last token's output is fed back as the next token's input.

    Without the cache every pass runs `full_forward` on the whole sequence under the mask;
    with it, `cached_step` runs on the new tokens only.
    """
    n_prefix = prefix.shape[0]
    mask = generation_mask(kind, n_prefix + n_new, n_prefix)
    inputs = list(prefix)
    emitted: list[Array] = []
    cache = KVCache()
    new = prefix
    for length in _pass_lengths(n_prefix, n_new):
        if cached:
            out = cached_step(new, layers, cache, mask[length - new.shape[0] : length, :length])
        else:
            out, cache = full_forward(np.array(inputs), layers, mask[:length, :length])
        emitted.append(out[-1])
        new = out[-1:]  # the prediction becomes the next token's input
        if length < n_prefix + n_new:
            inputs.append(out[-1])
    return GenerationRun(inputs=np.array(inputs), emitted=np.array(emitted), cache=cache)
