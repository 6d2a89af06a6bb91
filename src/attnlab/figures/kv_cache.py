"""FIG 6 (§4 part 4): the mask decides who sees whom, the KV cache decides what each step costs.

The sequence is a robot policy's: 6 observation tokens (4 image patches I, 1 proprioception P, 1
instruction T) read in one pass, then 8 action tokens a1…a8 generated one at a time. For each pass
(`step` 0 = the prefill, s = action s) every cell of the 14 × 14 attention matrix is future,
masked, computed now, cached (reused) or stale (bidirectional + cache: it should have changed).
Beside the bookkeeping, a small random 2-layer model really generates the 8 actions with and
without the cache, and we report how far apart the two results are.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from attnlab.nn.block import init_block
from attnlab.nn.cost import MASK_KINDS, MaskKind, generation_dot_products, total
from attnlab.nn.kv_cache import CELL_STATES, cell_states, full_forward, generate, generation_mask
from attnlab.nn.kv_cache import kv_cache_counts as _counts
from attnlab.params import Param
from attnlab.plain import Encoded

NAME = "kv-cache"

TOKENS = ("I1", "I2", "I3", "I4", "P", "T", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8")
KINDS = ("image",) * 4 + ("proprio", "text") + ("action",) * 8
N_PREFIX, N_NEW = 6, 8
MODEL_LAYERS, MODEL_D, MODEL_HEADS = 2, 16, 2
EXACT_TOL = 1e-12  # cached and recomputed outputs this close count as equal (rounding only)
CONSTANTS = {"tokens": TOKENS, "n_prefix": N_PREFIX}  # the view sizes its grid before the data
_CHECKED = ("max_abs_diff", "output_scale", "exact", "kv_diff_by_layer")  # mask_check's fields

PARAMS: tuple[Param, ...] = (
    Param("mask", "choice", "causal", "attention mask", choices=MASK_KINDS),
    Param("cache", "bool", True, "keep keys and values of earlier tokens (KV cache)"),
    Param("step", "int", N_NEW, "generation pass: 0 = prefill, s = action token s", lo=0, hi=N_NEW),
    Param("seed", "int", 0, "random weights of the small model", lo=0, hi=999_999),
)


def counts(kind: MaskKind, cached: bool) -> dict[str, int]:
    """Dot products per pass (per layer, per head) for the figure's 6 + 8 tokens."""
    return _counts(kind, cached=cached, n_prefix=N_PREFIX, n_new=N_NEW)


@lru_cache(maxsize=16)
def _small_model(seed: int) -> tuple[list[Any], np.ndarray]:
    """The random 2-layer model of `seed` and its 6 prefix tokens (N_PREFIX, MODEL_D)."""
    rng = np.random.default_rng(seed)
    layers = [init_block(MODEL_D, MODEL_HEADS, rng) for _ in range(MODEL_LAYERS)]
    return layers, rng.standard_normal((N_PREFIX, MODEL_D))


@lru_cache(maxsize=3 * 16)
def mask_check(seed: int, kind: MaskKind) -> dict[str, Any]:
    """Generate the 8 actions with `seed`'s model under one mask, with and without the cache.

    max_abs_diff: largest difference between what the two runs emit at each pass (output_scale:
    the largest emitted number, for scale); kv_diff_by_layer: per layer, how far the cached K
    and V are from a full recomputation on the same inputs (bidirectional: layer 1 exact, layer
    2 on stale — E3). One mask a call: the page shows one, and a new seed costs a third.
    """
    layers, prefix = _small_model(seed)
    with_cache = generate(prefix, layers, n_new=N_NEW, kind=kind, cached=True)
    without = generate(prefix, layers, n_new=N_NEW, kind=kind, cached=False)
    diff = float(np.abs(with_cache.emitted - without.emitted).max())
    mask = generation_mask(kind, N_PREFIX + N_NEW, N_PREFIX)
    _, fresh = full_forward(with_cache.inputs, layers, mask)
    kv_diff = [
        float(max(np.abs(cK - fK).max(), np.abs(cV - fV).max()))
        for cK, cV, fK, fV in zip(
            with_cache.cache.K, with_cache.cache.V, fresh.K, fresh.V, strict=True
        )
    ]
    return {
        "max_abs_diff": diff,
        "output_scale": float(np.abs(without.emitted).max()),
        "exact": diff <= EXACT_TOL,
        "kv_diff_by_layer": kv_diff,
    }


def model_check(seed: int, kinds: tuple[MaskKind, ...] = MASK_KINDS) -> dict[str, Any]:
    """`mask_check` for each of `kinds`, keyed by mask under each measured name, with the
    model's size and the tolerance: {"max_abs_diff": {"causal": …, …}, "exact": {…}, …}."""
    checks = {kind: mask_check(seed, kind) for kind in kinds}
    return {
        "layers": MODEL_LAYERS,
        "d": MODEL_D,
        "n_heads": MODEL_HEADS,
        "tolerance": EXACT_TOL,
        **{name: {k: c[name] for k, c in checks.items()} for name in _CHECKED},
    }


def _passes(kind: MaskKind, cached: bool) -> list[dict[str, Any]]:
    """Per pass: sequence length, dot products now, running total, stale cells."""
    out, running = [], 0
    for step, (name, now) in enumerate(counts(kind, cached).items()):
        running += now
        states = cell_states(kind, cached=cached, step=step, n_prefix=N_PREFIX, n_new=N_NEW)
        out.append(
            {
                "step": step,
                "name": name,
                "length": N_PREFIX + step,
                "computed": now,
                "cumulative": running,
                "stale": int((states == "stale").sum()),
            }
        )
    return out


def _total(kind: MaskKind, cached: bool) -> int:
    """All 9 passes, from the closed forms (the per-pass list above counts cells instead)."""
    parts = generation_dot_products(n_prefix=N_PREFIX, n_new=N_NEW, mask=kind, cached=cached)
    return int(total(parts))


# Parts of the answer that depend on the mask and the cache switch, on the seed, or on nothing:
# counted and written once (cProfile: counting the cells of all nine passes was most of a request).


@lru_cache(maxsize=2 * len(MASK_KINDS))
def _kept_passes(kind: MaskKind, cached: bool) -> tuple[list[dict[str, Any]], Encoded]:
    passes = _passes(kind, cached)
    return passes, Encoded(passes)


@lru_cache(maxsize=1)
def _totals() -> Encoded:
    return Encoded(
        {k: {"cached": _total(k, True), "uncached": _total(k, False)} for k in MASK_KINDS}
    )


@lru_cache(maxsize=3 * 16)
def _model_text(seed: int, kind: MaskKind) -> Encoded:
    return Encoded(model_check(seed, (kind,)))


def compute(*, mask: str, cache: bool, step: int, seed: int) -> dict[str, Any]:
    """Cell states at pass `step`, dot-product counts, totals for every mask × cache, and the
    small model's cached-against-recomputed differences under the mask shown."""
    kind: MaskKind = mask  # type: ignore[assignment]
    states = cell_states(kind, cached=cache, step=step, n_prefix=N_PREFIX, n_new=N_NEW)
    passes, passes_text = _kept_passes(kind, cache)
    return {
        "tokens": list(TOKENS),
        "kinds": list(KINDS),
        "n_prefix": N_PREFIX,
        "n_new": N_NEW,
        "states": list(CELL_STATES),
        "mask_matrix": generation_mask(kind, N_PREFIX + N_NEW, N_PREFIX),
        "cells": states.tolist(),
        "rows_computed": np.flatnonzero((states == "computed").any(axis=1)),
        "passes": passes_text,
        "count_now": passes[step]["computed"],
        "count_so_far": passes[step]["cumulative"],
        "count_total": passes[-1]["cumulative"],
        "stale_now": passes[step]["stale"],
        "totals": _totals(),
        "model": _model_text(seed, kind),
        "cache_exact": mask_check(seed, kind)["exact"],
    }
