"""FIG 8 (§5, compute and memory): FlashAttention's idea, online softmax over tiles of keys.

n tokens of random queries, keys and values (a fixed seed) go through `nn.flash.flash_attention`
tile by tile. `step` is how many key tiles have arrived (0 = none); for the selected query `row`
the figure reports the running maximum m, the running sum ℓ and the partial output O/ℓ after each
tile, and the factor exp(m_old − m_new) that rescaled the old sums. Beside it: the scores held now
against the n × n a plain implementation stores, and the finished output against full softmax
attention (`nn.attention`), with the largest difference over every row.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attnlab.nn.attention import attention, causal_mask
from attnlab.nn.flash import CELL_STATES, cell_states, flash_attention, n_tiles
from attnlab.params import Param

NAME = "flash"

N_MAX = 32  # the grid must stay readable on a phone
D_K, D_V = 4, 3
SEED = 8
SCORE_SPREAD = 1.5  # queries and keys of this size make scores of spread ~2: maxima move visibly

PARAMS: tuple[Param, ...] = (
    Param("n", "int", 12, "tokens (queries = keys)", lo=2, hi=N_MAX),
    Param("tile", "int", 4, "keys per tile (more than n: one tile of all n keys)", lo=1, hi=N_MAX),
    Param("causal", "bool", False, "causal mask: blocks above the diagonal are skipped"),
    Param("step", "int", 1, "key tiles read so far (0 = none; past the last: all)", lo=0, hi=N_MAX),
    Param("row", "int", 11, "the query row followed (n or more: the last row)", lo=0, hi=N_MAX - 1),
)


def inputs(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q, k (n, D_K) and v (n, D_V): the first n rows of one fixed random draw, so changing n
    adds or removes tokens without changing the others."""
    rng = np.random.default_rng(SEED)
    q = rng.standard_normal((N_MAX, D_K)) * SCORE_SPREAD
    k = rng.standard_normal((N_MAX, D_K)) * SCORE_SPREAD
    v = rng.standard_normal((N_MAX, D_V))
    return q[:n], k[:n], v[:n]


def shown(n: int, tile: int, step: int, row: int) -> dict[str, int]:
    """The tile, step and row drawn: each setting is bounded alone, and one that does not fit
    the others means its limit (a tile wider than n is one tile of all n keys, a step past the
    last tile has read them all, a row past n is the last row)."""
    tile = min(tile, n)
    return {"tile": tile, "step": min(step, n_tiles(n, tile)), "row": min(row, n - 1)}


def _row_trace(steps: list, row: int) -> dict[str, list[Any]]:
    """One query row through every tile: m, ℓ, partial output, rescale, and whether m grew."""
    m = [float(s.m[row]) for s in steps]
    before = [-np.inf, *m[:-1]]
    return {
        "m": m,
        "l": [float(s.ell[row]) for s in steps],
        "o": [s.o[row].tolist() for s in steps],
        "rescale": [float(s.rescale[row]) for s in steps],
        "grew": [bool(now > old) for now, old in zip(m, before, strict=True)],
        "read": [bool(s.rows <= row) for s in steps],  # False: the block was skipped (causal)
    }


def _now(trace: dict[str, list[Any]], step: int) -> dict[str, Any] | None:
    """The row's state after `step` tiles (None before the first: no maximum yet)."""
    if step == 0:
        return None
    return {key: values[step - 1] for key, values in trace.items()}


def compute(*, n: int, tile: int, causal: bool, step: int, row: int) -> dict[str, Any]:
    """The tiled run traced tile by tile, the cells' states at `step`, memory, and the check."""
    at = shown(n, tile, step, row)
    tile, step, row = at["tile"], at["step"], at["row"]
    q, k, v = inputs(n)
    run = flash_attention(q, k, v, tile=tile, causal=causal, trace=True)
    full, _ = attention(q, k, v, mask=causal_mask(n) if causal else None)
    trace = _row_trace(run.steps, row)
    tiles = [
        {"keys": list(s.keys), "rows": s.rows, "blocks": s.blocks, "scores_held": s.scores_held}
        for s in run.steps
    ]
    # a row that has read no tile yet shows m = −inf: JSON has no infinity, so it is left out
    trace["m"] = [m if np.isfinite(m) else None for m in trace["m"]]
    return {
        "n": n,
        "shown": at,
        "n_tiles": len(run.steps),
        "d_k": D_K,
        "d_v": D_V,
        "states": list(CELL_STATES),
        "cells": cell_states(n, tile, causal=causal, step=step).tolist(),
        "tiles": tiles,
        "trace": trace,
        "now": _now(trace, step),
        "memory": {
            "held_now": tiles[step - 1]["scores_held"] if step else 0,
            "peak": run.peak_scores_held,
            "full": n * n,
            "state": n * (2 + D_V),  # m, ℓ and O for every row: what the tiles leave behind
        },
        "blocks": {
            "so_far": sum(t["blocks"] for t in tiles[:step]),
            "computed": run.blocks_computed,
            "total": run.blocks_total,
        },
        "final": {
            "tiled": run.out[row],
            "full": full[row],
            "max_abs_diff": float(np.abs(run.out - full).max()),
        },
    }
