"""§4 part 1, FIG 3: why the scores are divided by √d_k.

One query and 16 keys with iid standard-normal components, 200 draws, fixed seed. The score
q·k = Σ_j q_j k_j is a sum of d_k terms of variance 1, so its standard deviation is √d_k: without
scaling, large d_k spreads the scores so far apart that the softmax puts almost all weight on one
key, and its Jacobian diag(α) − ααᵀ (what the gradient flows through) shrinks towards zero.
Dividing by √d_k brings the spread back to 1 for every d_k.

Draws are component-major: the pool for one seed is (1024, 200, 17) and the figure at d_k uses the
first d_k components of the same vectors. Every d_k still sees iid standard-normal q and k, the
curves change smoothly with d_k, and one seed fixes the whole figure. The pool is drawn once per
seed (lru_cache); a call then only slices it.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import Any

import numpy as np

from attnlab.nn.ops import softmax, softmax_jacobian
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


# The pool is drawn in blocks of components, each from its own generator (spawned from the seed)
# and in its own thread: NumPy releases the GIL while it fills an array, so on two cores a new
# seed costs half the time (3.5 M normal numbers take ~45 ms on one core).
N_BLOCKS = 2


def draw_pool(seed: int) -> np.ndarray:
    """All components up to D_K_MAX for one seed, shape (1024, 200, 1 + 16): [..., 0] is q.

    Component-major: the figure at d_k reads the first d_k components, so a smaller d_k sees
    exactly a prefix of a larger one and the curves change smoothly with d_k.
    """
    pool = np.empty((D_K_MAX, N_DRAWS, 1 + N_KEYS))
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(N_BLOCKS)]
    blocks = np.array_split(pool, N_BLOCKS)  # views along the component axis
    with ThreadPoolExecutor(N_BLOCKS) as threads:
        jobs = [threads.submit(r.standard_normal, out=b) for r, b in zip(rngs, blocks, strict=True)]
        for job in jobs:
            job.result()  # re-raises an error of the thread here
    return pool


@lru_cache(maxsize=2)
def _pool(seed: int) -> np.ndarray:
    """draw_pool(seed), cached and read-only (26 MB)."""
    pool = draw_pool(seed)
    pool.setflags(write=False)
    return pool


def scores_from(pool: np.ndarray, d_k: int) -> np.ndarray:
    """Unscaled scores q·k_i = Σ_{j<d_k} q_j k_ij of every draw in `pool`, shape (200, 16)."""
    x = pool[:d_k]  # (d_k, 200, 17)
    return np.einsum("jd,jdi->di", x[:, :, 0], x[:, :, 1:])


def raw_scores(seed: int, d_k: int) -> np.ndarray:
    """Unscaled scores of the figure's draws for `seed`, shape (200, 16)."""
    return scores_from(_pool(seed), d_k)


def saturation(scores: np.ndarray) -> tuple[float, float]:
    """Mean over draws of the largest weight and of ‖diag(α) − ααᵀ‖_F; scores (draws, n)."""
    alpha = softmax(scores, axis=-1)
    with np.errstate(under="ignore"):  # products of two tiny weights of a saturated row are 0
        jac_norm = np.linalg.norm(softmax_jacobian(alpha), axis=(-2, -1))  # Frobenius, (draws,)
    return float(alpha.max(axis=-1).mean()), float(jac_norm.mean())


def curves_from(pool: np.ndarray, grid: tuple[int, ...] = GRID_D_K) -> dict[str, list[float]]:
    """Mean max weight and mean Jacobian norm at each d_k of `grid`, unscaled and scaled."""
    out: dict[str, list[float]] = {
        f"curve_{kind}_{mode}": []
        for kind in ("max_weight", "jacobian_norm")
        for mode in ("unscaled", "scaled")
    }
    for d_k in grid:
        s = scores_from(pool, d_k)
        for mode, scores in (("unscaled", s), ("scaled", s / math.sqrt(d_k))):
            max_w, jac = saturation(scores)
            out[f"curve_max_weight_{mode}"].append(max_w)
            out[f"curve_jacobian_norm_{mode}"].append(jac)
    return out


@lru_cache(maxsize=2)
def curves(seed: int) -> dict[str, tuple[float, ...]]:
    """The figure's curves over GRID_D_K for `seed` (they depend on nothing else)."""
    return {name: tuple(values) for name, values in curves_from(_pool(seed)).items()}


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
