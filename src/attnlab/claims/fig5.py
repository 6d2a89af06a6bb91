"""FIG 5's claims (F5.1–F5.3): residual and LayerNorm in a stack of 24 random blocks.

Every number comes from `attnlab.figures.depth`, the code behind the figure. The lesson's figure
has one set of random weights; ours are a seed, so each claim is checked on the default seed and
over a sweep of seeds (fast: 50 seeds, `--full`: 200), whose spread is reported.
"""

from __future__ import annotations

import numpy as np

from attnlab.claims.base import ClaimCheck, ClaimResult, result, spread
from attnlab.figures.depth import DEFAULT_SEED, MAX_DEPTH, cosine_matrix, rms, run_stack
from attnlab.figures.depth import token_diversity as diversity
from attnlab.nn.block import NORMS, BlockConfig

FAST_SEEDS, FULL_SEEDS = range(50), range(200)
COLLAPSED, COSINE_TOL = 1e-10, 1e-9  # F5.1: diversity below, every cosine within this of 1
COLLAPSE_LAYER = 6  # F5.1: the lesson's "by layer 6"
BLOWN_UP, DEEP = 1e5, 21  # F5.2: RMS above this at every layer from DEEP ("depth > 20")
PRE_LN_FROM, PRE_LN_RMS = 20, 10  # F5.3: RMS below this at every layer from PRE_LN_FROM
PRE_LN_MEDIAN = (5, 10)  # F5.3 over seeds: the median RMS at the top (lesson: about 7)
PRE_LN_SHARE, DIVERSE = 0.9, 0.1  # F5.3: share of seeds below PRE_LN_RMS; diversity above


def _no_residual(seeds: range) -> ClaimResult:
    layer = COLLAPSE_LAYER
    # the reader turns the residual off from any LayerNorm setting, with the MLP on (the default)
    per_norm = {
        norm: run_stack(BlockConfig(residual=False, norm=norm), layer, DEFAULT_SEED)[layer]
        for norm in NORMS
    }
    div_default = {norm: diversity(x) for norm, x in per_norm.items()}
    min_cos = min(float(cosine_matrix(x).min()) for x in per_norm.values())
    sweep = [diversity(run_stack(BlockConfig(residual=False), layer, s)[layer]) for s in seeds]
    ok = max(div_default.values()) < COLLAPSED and min_cos > 1 - COSINE_TOL
    return result(
        "F5.1",
        "Without residual connections the tokens collapse into one vector: at layer 6 "
        "the token diversity is at rounding level and every pair of tokens has cosine 1.",
        r"diversity below $10^{-10}$ at layer 6 (in fact $\sim 10^{-16}$); the similarity "
        "matrix is all ones",
        measured=f"seed {DEFAULT_SEED}, layer {layer}: diversity {max(div_default.values()):.1e} "
        f"(worst of no LN / Pre-LN / Post-LN), smallest cosine {min_cos:.12f}; Pre-LN over "
        f"{len(seeds)} seeds: at most {max(sweep):.1e}",
        ok=ok and max(sweep) < COLLAPSED,
        values={
            "seed": DEFAULT_SEED,
            "layer": layer,
            "diversity": div_default["pre"],
            "diversity_by_norm": div_default,
            "min_cosine": min_cos,
            "sweep_seeds": len(seeds),
            "sweep_max_diversity": max(sweep),
            **{f"sweep_{k}": v for k, v in spread(sweep).items()},
            "collapsed": COLLAPSED,
            "cosine_tol": COSINE_TOL,
        },
    )


def _no_layer_norm(seeds: range) -> ClaimResult:
    cfg = BlockConfig(residual=True, norm="none", mlp=True)
    stream = [rms(x) for x in run_stack(cfg, MAX_DEPTH, DEFAULT_SEED)]
    first_over = next((i for i, r in enumerate(stream) if r > BLOWN_UP), None)
    sweep_deep = [rms(run_stack(cfg, DEEP, s)[DEEP]) for s in seeds]
    ok = min(stream[DEEP:]) > BLOWN_UP and min(sweep_deep) > BLOWN_UP
    return result(
        "F5.2",
        "With the residual on but no LayerNorm (MLP on), every block multiplies the "
        "residual stream by a factor: past 20 layers its RMS exceeds 1e5.",
        "RMS above $10^5$ at depth > 20",
        measured=f"seed {DEFAULT_SEED}: RMS {stream[DEEP]:.2e} at layer {DEEP}, "
        f"{stream[MAX_DEPTH]:.2e} at {MAX_DEPTH} (first above {BLOWN_UP:.0e} at layer "
        f"{first_over}); {len(seeds)} seeds at layer {DEEP}: smallest {min(sweep_deep):.2e}, "
        f"median {np.median(sweep_deep):.2e}",
        ok=ok,
        values={
            "seed": DEFAULT_SEED,
            "rms_21": stream[DEEP],
            "rms_24": stream[MAX_DEPTH],
            "first_layer_over_1e5": first_over,
            "sweep_seeds": len(seeds),
            "sweep_min_rms_21": min(sweep_deep),
            **{f"sweep_{k}_rms_21": v for k, v in spread(sweep_deep).items()},
            "blown_up": BLOWN_UP,
            "deep": DEEP,
            "depth": MAX_DEPTH,
        },
    )


def _pre_ln(seeds: range) -> ClaimResult:
    cfg = BlockConfig(residual=True, norm="pre", mlp=True)
    stream = run_stack(cfg, MAX_DEPTH, DEFAULT_SEED)
    rms_deep = [rms(x) for x in stream[PRE_LN_FROM:]]
    runs = [run_stack(cfg, MAX_DEPTH, s)[MAX_DEPTH] for s in seeds]
    sweep_rms = [rms(x) for x in runs]
    sweep_div = [diversity(x) for x in runs]
    below = float(np.mean(np.array(sweep_rms) < PRE_LN_RMS))
    sweep = spread(sweep_rms)
    lo, hi = PRE_LN_MEDIAN
    ok = max(rms_deep) < PRE_LN_RMS and lo <= sweep["median"] <= hi and below >= PRE_LN_SHARE
    ok = ok and diversity(stream[-1]) > DIVERSE and min(sweep_div) > DIVERSE
    return result(
        "F5.3",
        "Pre-LN keeps the residual stream small at depth 20–24 (each block adds a "
        "bounded amount) and the tokens stay distinct.",
        "RMS below 10 at depth ≥ 20, about 7 at 24 layers; diversity kept",
        measured=f"seed {DEFAULT_SEED}: RMS {rms_deep[-1]:.2f} at {MAX_DEPTH} (max "
        f"{max(rms_deep):.2f} over layers {PRE_LN_FROM}–{MAX_DEPTH}), diversity "
        f"{diversity(stream[-1]):.2f}; {len(seeds)} seeds at {MAX_DEPTH}: RMS median "
        f"{sweep['median']:.2f} (10–90%: {sweep['p10']:.2f}–{sweep['p90']:.2f}), "
        f"{below:.0%} below {PRE_LN_RMS}, largest {max(sweep_rms):.2f}; diversity ≥ "
        f"{min(sweep_div):.2f}",
        ok=ok,
        values={
            "seed": DEFAULT_SEED,
            "rms_24": rms_deep[-1],
            "max_rms_20_24": max(rms_deep),
            "diversity_24": diversity(stream[-1]),
            "diversity_0": diversity(stream[0]),
            "sweep_seeds": len(seeds),
            "sweep_fraction_below_10": below,
            "sweep_max_rms_24": max(sweep_rms),
            "sweep_min_diversity_24": min(sweep_div),
            **{f"sweep_{k}_rms_24": v for k, v in sweep.items()},
        }
        | {"from_layer": PRE_LN_FROM, "depth": MAX_DEPTH, "rms_max": PRE_LN_RMS}
        | {"diverse": DIVERSE, "median_lo": lo, "median_hi": hi, "share_min": PRE_LN_SHARE},
    )


CHECKS: tuple[ClaimCheck, ...] = (
    ClaimCheck("F5.1", lambda: _no_residual(FAST_SEEDS)),
    ClaimCheck("F5.1", lambda: _no_residual(FULL_SEEDS), slow=True),
    ClaimCheck("F5.2", lambda: _no_layer_norm(FAST_SEEDS)),
    ClaimCheck("F5.2", lambda: _no_layer_norm(FULL_SEEDS), slow=True),
    ClaimCheck("F5.3", lambda: _pre_ln(FAST_SEEDS)),
    ClaimCheck("F5.3", lambda: _pre_ln(FULL_SEEDS), slow=True),
)
