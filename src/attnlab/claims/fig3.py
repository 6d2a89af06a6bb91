"""Claims F3.1–F3.3 (§4 part 1, FIG 3: why divide by √d_k) and exercise E1.

The fast checks measure FIG 3 at its default seed; the slow ones (`attnlab reproduce --full`)
repeat the measurement over SWEEP_SEEDS seeds and report median and 10th–90th percentile, since
the lesson's numbers come from one seed of its own.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from attnlab.claims.base import (
    SPREAD,
    ClaimCheck,
    ClaimResult,
    result,
    spread,
    spread_text,
    spread_values,
)
from attnlab.figures import scaling

SWEEP_SEEDS = 50
SWEEP_GRID = (1, 64, 256, 512, 1024)
LARGE = (256, 512, 1024)  # "d_k ≥ 256" on FIG 3's grid
JACOBIAN_RATIO = (0.23, 0.43)  # "about a third": 1/3 ± 0.1
SATURATED = 0.9  # F3.1: the lesson's "max weight > 0.9"
LOW_PERCENTILE = 10  # F3.1 over seeds: even this percentile of the seeds saturates
SCALED_AT_1, SCALED_LARGE = 0.21, 0.25  # F3.2: the lesson's max weights at d_k = 1 and ≥ 256
SCALED_TOL = 0.02  # … within this: about the seed-to-seed spread of FIG 3's draws
STD_D_K, STD_TOL, STD_SWEEP_TOL = 64, 0.05, 0.02  # F3.3: relative to the theory √d_k
STD_RANGE = (7.6, 8.4)  # F3.3 over seeds: the 10–90% range inside this (the lesson's 7.8 is)
E1_TOL = 0.02  # E1: both within 2% of the theory (standard error of E1_PAIRS pairs: 0.35%)
E1_PAIRS = 40_000  # independent (q, k) pairs for exercise 1's variance


def _at(curve: tuple[float, ...] | list[float], d_k: int) -> float:
    return float(curve[list(scaling.GRID_D_K).index(d_k)])


def default_curves() -> dict[str, dict[int, float]]:
    """FIG 3's curves at its default seed, keyed by name, then by d_k."""
    c = scaling.curves(scaling.DEFAULT_SEED)
    return {name: {d: _at(v, d) for d in scaling.GRID_D_K} for name, v in c.items()}


@lru_cache(maxsize=1)
def seed_sweep() -> dict[str, np.ndarray]:
    """FIG 3's statistics for seeds 0 … SWEEP_SEEDS − 1: name → (SWEEP_SEEDS, len(SWEEP_GRID))."""
    rows: dict[str, list[list[float]]] = {}
    for seed in range(SWEEP_SEEDS):
        scores = dict(scaling.scores_along(seed, (*SWEEP_GRID, 64)))  # d_k → (200, 16)
        for name, values in scaling.curves_from((d, scores[d]) for d in SWEEP_GRID).items():
            rows.setdefault(name, []).append(values)
        rows.setdefault("std_unscaled_64", []).append([float(scores[64].std())])
    return {name: np.array(v) for name, v in rows.items()}


def _column(table: np.ndarray, d_k: int) -> np.ndarray:
    """One d_k of a seed_sweep table: its value for every seed, shape (n_seeds,)."""
    return table[:, SWEEP_GRID.index(d_k)]


F3_1 = dict(
    cid="F3.1",
    statement="Without scaling, d_k ≥ 256 saturates the softmax: one key takes most of the "
    "weight and the Jacobian shrinks to a fraction of the scaled one",
    lesson=r"unscaled, $d_k \ge 256$: mean max weight > 0.9 (about 0.93 at 256); Jacobian norm "
    "about a third of the scaled one (three tenths at 256, says the pitfall)",
)


def _f3_1_values() -> dict[str, float]:
    """F3.1's thresholds, for its condition's sentence."""
    lo, hi = JACOBIAN_RATIO
    return {"saturated": SATURATED, "d_k_min": LARGE[0], "d_k_max": LARGE[-1]} | {
        "ratio_lo": lo,
        "ratio_hi": hi,
    }


def check_f3_1() -> ClaimResult:
    c = default_curves()
    mw = c["curve_max_weight_unscaled"]
    ratio = {
        d: c["curve_jacobian_norm_unscaled"][d] / c["curve_jacobian_norm_scaled"][d] for d in LARGE
    }
    lo, hi = JACOBIAN_RATIO
    ok = all(mw[d] > SATURATED for d in LARGE) and lo <= ratio[LARGE[0]] <= hi
    ok = ok and all(ratio[d] <= hi for d in LARGE)
    return result(
        **F3_1,
        measured=f"seed {scaling.DEFAULT_SEED}: max weight {mw[256]:.3f} / {mw[512]:.3f} / "
        f"{mw[1024]:.3f} at d_k = 256 / 512 / 1024; Jacobian ratio {ratio[256]:.2f} / "
        f"{ratio[512]:.2f} / {ratio[1024]:.2f}",
        ok=ok,
        values={
            **{f"max_weight_{d}": mw[d] for d in LARGE},
            **{f"jacobian_ratio_{d}": ratio[d] for d in LARGE},
            **_f3_1_values(),
        },
    )


def check_f3_1_sweep() -> ClaimResult:
    s = seed_sweep()
    mw = {d: _column(s["curve_max_weight_unscaled"], d) for d in LARGE}
    jac_raw, jac_scaled = s["curve_jacobian_norm_unscaled"], s["curve_jacobian_norm_scaled"]
    ratio = _column(jac_raw, LARGE[0]) / _column(jac_scaled, LARGE[0])
    lo, hi = JACOBIAN_RATIO
    ok = all(np.percentile(mw[d], LOW_PERCENTILE) > SATURATED for d in LARGE)
    return result(
        **F3_1,
        measured=f"{SWEEP_SEEDS} seeds, d_k = 256: max weight {spread_text(mw[256])}; "
        f"Jacobian ratio {spread_text(ratio)}",
        ok=ok and lo <= np.median(ratio) <= hi,
        values={
            "max_weight_256": spread(mw[256]),
            "jacobian_ratio_256": spread(ratio),
            "n_seeds": SWEEP_SEEDS,
            "percentile": LOW_PERCENTILE,
            **_f3_1_values(),
        },
    )


F3_2 = dict(
    cid="F3.2",
    statement="With scaling the largest weight stays near its d_k = 1 value for every d_k",
    lesson=r"scaled, $d_k \ge 256$: mean max weight about 0.25; at $d_k = 1$ about 0.21",
)
F3_2_VALUES = {"large": SCALED_LARGE, "at_1": SCALED_AT_1, "tol": SCALED_TOL} | {
    "d_k_min": LARGE[0],
    "d_k_max": LARGE[-1],
    "n_draws": scaling.N_DRAWS,
}


def _f3_2_ok(large: list[float], one: float) -> bool:
    near = all(abs(x - SCALED_LARGE) <= SCALED_TOL for x in large)
    return near and abs(one - SCALED_AT_1) <= SCALED_TOL


def check_f3_2() -> ClaimResult:
    mw = default_curves()["curve_max_weight_scaled"]
    return result(
        **F3_2,
        measured=f"seed {scaling.DEFAULT_SEED}: {mw[256]:.3f} / {mw[512]:.3f} / {mw[1024]:.3f} "
        f"at d_k = 256 / 512 / 1024; {mw[1]:.3f} at d_k = 1",
        ok=_f3_2_ok([mw[d] for d in LARGE], mw[1]),
        values={**{f"max_weight_{d}": mw[d] for d in LARGE}, "max_weight_1": mw[1], **F3_2_VALUES},
    )


def check_f3_2_sweep() -> ClaimResult:
    mw = {d: _column(seed_sweep()["curve_max_weight_scaled"], d) for d in (1, *LARGE)}
    med = {d: float(np.median(x)) for d, x in mw.items()}
    return result(
        **F3_2,
        measured=f"{SWEEP_SEEDS} seeds: d_k = 256 {spread_text(mw[256])}; "
        f"d_k = 1 {spread_text(mw[1])}",
        ok=_f3_2_ok([med[d] for d in LARGE], med[1]),
        values={
            "max_weight_256": spread(mw[256]),
            "max_weight_1": spread(mw[1]),
            "n_seeds": SWEEP_SEEDS,
            **F3_2_VALUES,
        },
    )


F3_3 = dict(
    cid="F3.3",
    statement="At d_k = 64 the unscaled scores spread with standard deviation about √64 = 8; "
    "dividing by √d_k brings it to about 1",
    lesson="unscaled std about 7.8 (theory 8); scaled about 1",
)
THEORY = math.sqrt(STD_D_K)  # the unscaled scores' std; the scaled ones' is 1


def check_f3_3() -> ClaimResult:
    fig = scaling.compute(d_k=STD_D_K, scaled=False, seed=scaling.DEFAULT_SEED)
    raw, scaled = fig["score_std_unscaled"], fig["score_std_scaled"]
    return result(
        **F3_3,
        measured=f"seed {scaling.DEFAULT_SEED}: unscaled {raw:.2f}, scaled {scaled:.3f} "
        f"({scaling.N_DRAWS * scaling.N_KEYS} scores)",
        ok=abs(raw / THEORY - 1) <= STD_TOL and abs(scaled - 1) <= STD_TOL,
        values={"std_unscaled_64": raw, "std_scaled_64": scaled, "theory": THEORY}
        | {"rel_tol": STD_TOL, "unscaled_lo": THEORY * (1 - STD_TOL)}
        | {"unscaled_hi": THEORY * (1 + STD_TOL), "scaled_lo": 1 - STD_TOL}
        | {"scaled_hi": 1 + STD_TOL},
    )


def check_f3_3_sweep() -> ClaimResult:
    std = seed_sweep()["std_unscaled_64"][:, 0]  # one column: d_k = 64 only
    p_lo, p_hi = np.percentile(std, SPREAD)
    lo, hi = STD_RANGE
    return result(
        **F3_3,
        measured=f"{SWEEP_SEEDS} seeds: unscaled std {spread_text(std)}",
        ok=abs(np.median(std) / THEORY - 1) <= STD_SWEEP_TOL and p_lo >= lo and p_hi <= hi,
        values={"std_unscaled_64": spread(std), "n_seeds": SWEEP_SEEDS, "theory": THEORY}
        | {"rel_tol": STD_SWEEP_TOL, "range_lo": lo, "range_hi": hi, **spread_values()},
    )


def check_e1(rng_seed: int = 0) -> ClaimResult:
    """Exercise 1 with many independent pairs, beside FIG 3's own 200-draw value."""
    d_k = STD_D_K
    q, k = np.random.default_rng(rng_seed).standard_normal((2, E1_PAIRS, d_k))
    s = np.einsum("nj,nj->n", q, k)  # (E1_PAIRS,) one score per independent pair
    raw, scaled = float(s.std()), float((s / math.sqrt(d_k)).std())
    fig = scaling.compute(d_k=d_k, scaled=False, seed=scaling.DEFAULT_SEED)["score_std_unscaled"]
    return result(
        "E1",
        "Exercise 1: q·k of two 64-dim unit-variance vectors has std √64 = 8; "
        "divided by √64 it has std 1",
        "std 8 unscaled, 1 scaled; FIG 3 measures about 7.8",
        measured=f"{E1_PAIRS} pairs: {raw:.3f} unscaled, {scaled:.4f} scaled; FIG 3 "
        f"({scaling.N_DRAWS} draws, seed {scaling.DEFAULT_SEED}): {fig:.2f}",
        ok=abs(raw / THEORY - 1) <= E1_TOL and abs(scaled - 1) <= E1_TOL,
        values={
            "std_unscaled": raw,
            "std_scaled": scaled,
            "fig3_std_unscaled": fig,
            "theory_unscaled": THEORY,
            "theory_scaled": 1.0,
        }
        | {"n_pairs": E1_PAIRS, "std_error": 1 / math.sqrt(2 * E1_PAIRS), "rel_tol": E1_TOL},
    )


CHECKS: tuple[ClaimCheck, ...] = (
    ClaimCheck("F3.1", check_f3_1),
    ClaimCheck("F3.1", check_f3_1_sweep, slow=True),
    ClaimCheck("F3.2", check_f3_2),
    ClaimCheck("F3.2", check_f3_2_sweep, slow=True),
    ClaimCheck("F3.3", check_f3_3),
    ClaimCheck("F3.3", check_f3_3_sweep, slow=True),
    ClaimCheck("E1", check_e1),
)
