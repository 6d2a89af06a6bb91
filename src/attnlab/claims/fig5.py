"""FIG 5's claims (F5.1–F5.3): residual and LayerNorm in a stack of 24 random blocks.

Every number comes from `attnlab.figures.depth`, the code behind the figure. The lesson's figure
has one set of random weights; ours are a seed, so each claim is checked on the default seed and
over a sweep of seeds (fast: 50 seeds, `--full`: 200), whose spread is reported.
"""

from __future__ import annotations

import numpy as np

from attnlab.claims.base import ClaimCheck, ClaimResult, spread
from attnlab.figures.depth import DEFAULT_SEED, MAX_DEPTH, cosine_matrix, rms, run_stack
from attnlab.figures.depth import token_diversity as diversity
from attnlab.nn.block import NORMS, BlockConfig

FAST_SEEDS, FULL_SEEDS = range(50), range(200)


def _no_residual(seeds: range) -> ClaimResult:
    layer = 6
    # the reader turns the residual off from any LayerNorm setting, with the MLP on (the default)
    per_norm = {
        norm: run_stack(BlockConfig(residual=False, norm=norm), layer, DEFAULT_SEED)[layer]
        for norm in NORMS
    }
    div_default = {norm: diversity(x) for norm, x in per_norm.items()}
    min_cos = min(float(cosine_matrix(x).min()) for x in per_norm.values())
    sweep = [diversity(run_stack(BlockConfig(residual=False), layer, s)[layer]) for s in seeds]
    ok = max(div_default.values()) < 1e-10 and min_cos > 1 - 1e-9 and max(sweep) < 1e-10
    return ClaimResult(
        id="F5.1",
        statement="Without residual connections the tokens collapse into one vector: at layer 6 "
        "the token diversity is at rounding level and every pair of tokens has cosine 1.",
        lesson=r"diversity below $10^{-10}$ at layer 6 (in fact $\sim 10^{-16}$); the similarity "
        "matrix is all ones",
        measured=f"seed {DEFAULT_SEED}, layer 6: diversity {max(div_default.values()):.1e} (worst "
        f"of no LN / Pre-LN / Post-LN), smallest cosine {min_cos:.12f}; Pre-LN over "
        f"{len(seeds)} seeds: at most {max(sweep):.1e}",
        ok=ok,
        condition="for the default seed with each LayerNorm setting (MLP on) diversity < 1e-10 "
        "and every cosine > 1 − 1e-9; over the seed sweep (Pre-LN, MLP on) diversity < 1e-10",
        values={
            "seed": DEFAULT_SEED,
            "layer": layer,
            "diversity": div_default["pre"],
            "diversity_by_norm": div_default,
            "min_cosine": min_cos,
            "sweep_seeds": len(seeds),
            "sweep_max_diversity": max(sweep),
            **{f"sweep_{k}": v for k, v in spread(sweep).items()},
        },
    )


def _no_layer_norm(seeds: range) -> ClaimResult:
    cfg = BlockConfig(residual=True, norm="none", mlp=True)
    stream = [rms(x) for x in run_stack(cfg, MAX_DEPTH, DEFAULT_SEED)]
    first_over = next((i for i, r in enumerate(stream) if r > 1e5), None)
    sweep21 = [rms(run_stack(cfg, 21, s)[21]) for s in seeds]
    ok = min(stream[21:]) > 1e5 and min(sweep21) > 1e5
    return ClaimResult(
        id="F5.2",
        statement="With the residual on but no LayerNorm (MLP on), every block multiplies the "
        "residual stream by a factor: past 20 layers its RMS exceeds 1e5.",
        lesson="RMS above $10^5$ at depth > 20",
        measured=f"seed {DEFAULT_SEED}: RMS {stream[21]:.2e} at layer 21, {stream[24]:.2e} at 24 "
        f"(first above 1e5 at layer {first_over}); {len(seeds)} seeds at layer 21: smallest "
        f"{min(sweep21):.2e}, median {np.median(sweep21):.2e}",
        ok=ok,
        condition="default seed: RMS > 1e5 at every layer 21–24; every seed of the sweep: RMS > "
        "1e5 at layer 21 (weights: attention N(0, 1/d), MLP He init N(0, 2/fan_in))",
        values={
            "seed": DEFAULT_SEED,
            "rms_21": stream[21],
            "rms_24": stream[24],
            "first_layer_over_1e5": first_over,
            "sweep_seeds": len(seeds),
            "sweep_min_rms_21": min(sweep21),
            **{f"sweep_{k}_rms_21": v for k, v in spread(sweep21).items()},
        },
    )


def _pre_ln(seeds: range) -> ClaimResult:
    cfg = BlockConfig(residual=True, norm="pre", mlp=True)
    stream = run_stack(cfg, MAX_DEPTH, DEFAULT_SEED)
    rms_deep = [rms(x) for x in stream[20:]]
    runs = [run_stack(cfg, MAX_DEPTH, s)[MAX_DEPTH] for s in seeds]
    sweep_rms = [rms(x) for x in runs]
    sweep_div = [diversity(x) for x in runs]
    below = float(np.mean(np.array(sweep_rms) < 10))
    sweep = spread(sweep_rms)
    ok = (
        max(rms_deep) < 10
        and 5 <= sweep["median"] <= 10
        and below >= 0.9
        and diversity(stream[-1]) > 0.1
        and min(sweep_div) > 0.1
    )
    return ClaimResult(
        id="F5.3",
        statement="Pre-LN keeps the residual stream small at depth 20–24 (each block adds a "
        "bounded amount) and the tokens stay distinct.",
        lesson="RMS below 10 at depth ≥ 20, about 7 at 24 layers; diversity kept",
        measured=f"seed {DEFAULT_SEED}: RMS {rms_deep[-1]:.2f} at 24 (max {max(rms_deep):.2f} over "
        f"layers 20–24), diversity {diversity(stream[-1]):.2f}; {len(seeds)} seeds at 24: RMS "
        f"median {sweep['median']:.2f} (10–90%: {sweep['p10']:.2f}–{sweep['p90']:.2f}), "
        f"{below:.0%} below 10, largest {max(sweep_rms):.2f}; diversity ≥ {min(sweep_div):.2f}",
        ok=ok,
        condition="default seed: RMS < 10 at every layer 20–24 and diversity > 0.1 at 24; sweep at "
        "layer 24: median RMS in [5, 10], at least 90% of seeds below 10 (a few seeds exceed it), "
        "every seed's diversity > 0.1 (no collapse: without the residual it is ~1e-16)",
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
        },
    )


CHECKS: tuple[ClaimCheck, ...] = (
    ClaimCheck("F5.1", lambda: _no_residual(FAST_SEEDS)),
    ClaimCheck("F5.1", lambda: _no_residual(FULL_SEEDS), slow=True),
    ClaimCheck("F5.2", lambda: _no_layer_norm(FAST_SEEDS)),
    ClaimCheck("F5.2", lambda: _no_layer_norm(FULL_SEEDS), slow=True),
    ClaimCheck("F5.3", lambda: _pre_ln(FAST_SEEDS)),
    ClaimCheck("F5.3", lambda: _pre_ln(FULL_SEEDS), slow=True),
)
