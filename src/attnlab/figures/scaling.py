"""§4 part 1, FIG 3: why the scores are divided by √d_k.

One query and 16 keys with iid standard-normal components, 200 draws, fixed seed. The score
q·k = Σ_j q_j k_j is a sum of d_k terms of variance 1, so its standard deviation is √d_k: without
scaling, large d_k spreads the scores so far apart that the softmax puts almost all weight on one
key, and its Jacobian diag(α) − ααᵀ (what the gradient flows through) shrinks towards zero.
Dividing by √d_k brings the spread back to 1 for every d_k.

A draw needs only the query's components and one number per key. The keys are iid standard
normal, and that distribution looks the same in every orthonormal basis; in one whose first axis
is q/‖q‖, key i's first coordinate z_i is standard normal and independent of q, and
q·k_i = ‖q‖ z_i. So the 16 scores of a draw are ‖q‖ times 16 independent standard normals: the
same joint distribution as the d_k · 16 key components drawn one by one, for 16 numbers instead of
16 · d_k. A request holds ~1.6 MB at d_k = 1024 and costs a millisecond, where drawing every key
component costs 3.5 million draws (26 MB at once, or tens of ms in blocks).

The query's components are drawn component-major (component j of all 200 draws before component
j + 1) and the figure at d_k uses the first d_k: ‖q‖ grows with d_k along one path, the z_i stay,
so the histogram changes smoothly as the slider moves, and one seed fixes the whole figure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

import numpy as np

from attnlab.nn.ops import softmax, softmax_jacobian_norm
from attnlab.params import Param

NAME = "scaling"

N_KEYS = 16
N_DRAWS = 200
D_K_MAX = 1024
GRID_D_K = tuple(2**i for i in range(11))  # 1, 2, 4, …, 1024: the x axis of the curves
HIST_LIMIT = 40.0  # the histogram's axis is ±HIST_LIMIT; scores beyond go to the edge bins
HIST_BINS = 80  # bins of width 1
DEFAULT_SEED = 0

PARAMS: tuple[Param, ...] = (
    Param("d_k", "int", 64, "dimension of queries and keys", lo=1, hi=D_K_MAX, log=True),
    Param("scaled", "bool", True, "divide the scores by √d_k"),
    Param("seed", "int", DEFAULT_SEED, "random seed of the 200 draws", lo=0, hi=2**31 - 1),
)


CACHED_SEEDS = 64  # seeds whose curves are kept (88 floats each): the LRU bound of `curves`
CACHED_DRAWS = 8  # seeds whose draws are kept (1.6 MB each): the LRU bound of `_draws`


def _generators(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """Two independent generators from one seed: the queries' components, the keys' z_i."""
    rng_q, rng_z = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    return rng_q, rng_z


def scores_along(seed: int, stops: Iterable[int]) -> Iterator[tuple[int, np.ndarray]]:
    """(d_k, unscaled scores q·k_i = ‖q_{:d_k}‖ z_i of the 200 draws, (200, 16)) per stop.

    Stops come in increasing order; only the query components up to the largest are drawn, and a
    stop's scores do not depend on the others (the draw is sequential, the sum a running one).
    """
    todo = sorted(set(stops))
    if not todo or todo[0] < 1 or todo[-1] > D_K_MAX:
        raise ValueError(f"stops must lie in [1, {D_K_MAX}], got {todo}")
    rng_q, rng_z = _generators(seed)
    q = rng_q.standard_normal((todo[-1], N_DRAWS))  # (d_k, 200): component-major
    z = rng_z.standard_normal((N_DRAWS, N_KEYS))  # each key's coordinate along its query
    norm2 = np.cumsum(np.square(q, out=q), axis=0, out=q)  # row j: ‖q_{:j+1}‖², in place
    for d_k in todo:
        yield d_k, np.sqrt(norm2[d_k - 1])[:, None] * z


def raw_scores(seed: int, d_k: int) -> np.ndarray:
    """Unscaled scores of the figure's draws for `seed`, shape (200, 16): `scores_along`'s at
    d_k, from the seed's draws made once for every d_k (dragging d_k draws nothing new)."""
    if not 1 <= d_k <= D_K_MAX:
        raise ValueError(f"d_k must lie in [1, {D_K_MAX}], got {d_k}")
    norms, z = _draws(seed)
    return norms[d_k - 1][:, None] * z


@lru_cache(maxsize=CACHED_DRAWS)
def _draws(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """‖q_{:d_k}‖ for every d_k up to D_K_MAX, (D_K_MAX, 200), and z (200, 16); read-only.

    The same numbers as `scores_along` makes for any stop: the draw is sequential and the sum a
    running one, so the rows up to d_k do not depend on how many more were drawn.
    """
    rng_q, rng_z = _generators(seed)
    q = rng_q.standard_normal((D_K_MAX, N_DRAWS))
    z = rng_z.standard_normal((N_DRAWS, N_KEYS))
    norms = np.sqrt(np.cumsum(np.square(q, out=q), axis=0, out=q), out=q)
    norms.flags.writeable = z.flags.writeable = False
    return norms, z


def saturation(scores: np.ndarray) -> tuple[float, float]:
    """Mean over draws of the largest weight and of ‖diag(α) − ααᵀ‖_F; scores (draws, n)."""
    alpha = softmax(scores, axis=-1)
    with np.errstate(under="ignore"):  # powers of a tiny weight of a saturated row are 0
        jac_norm = softmax_jacobian_norm(alpha)  # Frobenius, (draws,)
    return float(alpha.max(axis=-1).mean()), float(jac_norm.mean())


def curves_from(
    scores: Iterable[tuple[int, np.ndarray]],
) -> dict[str, list[float]]:
    """Mean max weight and mean Jacobian norm at each (d_k, scores), unscaled and scaled."""
    out: dict[str, list[float]] = {
        f"curve_{kind}_{mode}": []
        for kind in ("max_weight", "jacobian_norm")
        for mode in ("unscaled", "scaled")
    }
    for d_k, s in scores:
        for mode, x in (("unscaled", s), ("scaled", s / math.sqrt(d_k))):
            max_w, jac = saturation(x)
            out[f"curve_max_weight_{mode}"].append(max_w)
            out[f"curve_jacobian_norm_{mode}"].append(jac)
    return out


@lru_cache(maxsize=CACHED_SEEDS)
def curves(seed: int) -> dict[str, tuple[float, ...]]:
    """The figure's curves over GRID_D_K for `seed` (they depend on nothing else), from the
    seed's kept draws (`scores_along`'s numbers: tests/figures/test_scaling.py)."""
    scores = ((d_k, raw_scores(seed, d_k)) for d_k in GRID_D_K)
    return {k: tuple(v) for k, v in curves_from(scores).items()}


def histogram(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts on ±HIST_LIMIT in HIST_BINS bins; scores outside are counted in the edge bins."""
    edges = np.linspace(-HIST_LIMIT, HIST_LIMIT, HIST_BINS + 1)
    counts, _ = np.histogram(np.clip(scores, -HIST_LIMIT, HIST_LIMIT), bins=edges)
    return counts, edges


def compute(*, d_k: int, scaled: bool, seed: int) -> dict[str, Any]:
    """FIG 3's data at one d_k; the curves over GRID_D_K do not depend on d_k or `scaled`."""
    s_raw = raw_scores(seed, d_k)  # (200, 16)
    s_scaled = s_raw / math.sqrt(d_k)
    counts_raw, edges = histogram(s_raw)
    counts_scaled, _ = histogram(s_scaled)
    max_w_raw, jac_raw = saturation(s_raw)
    max_w_scaled, jac_scaled = saturation(s_scaled)
    one_draw = s_scaled[0] if scaled else s_raw[0]
    return {
        "n_keys": N_KEYS,
        "n_draws": N_DRAWS,
        "hist_edges": edges,
        "hist_unscaled": counts_raw,
        "hist_scaled": counts_scaled,
        "weights_one_draw": softmax(one_draw),
        "score_std_unscaled": float(s_raw.std()),
        "score_std_scaled": float(s_scaled.std()),
        "score_std_theory": math.sqrt(d_k),  # unscaled; the scaled theory is 1
        "max_weight_unscaled": max_w_raw,
        "max_weight_scaled": max_w_scaled,
        "jacobian_norm_unscaled": jac_raw,
        "jacobian_norm_scaled": jac_scaled,
        "jacobian_ratio": jac_raw / jac_scaled,  # F3.1: about a third at d_k = 256
        "grid_d_k": list(GRID_D_K),
        **{name: list(values) for name, values in curves(seed).items()},
    }
