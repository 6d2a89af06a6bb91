"""FIG 6's claims (F6.1–F6.3), the cost of generation (M2) and exercise 3 (E3): masks and the KV
cache.

Counts come from two independent routes that must agree: cell by cell from the mask
(`nn.kv_cache.kv_cache_counts`, what the figure shows) and from closed forms
(`nn.cost.generation_dot_products`). The equality of cached and recomputed generation is
measured on the figure's small random model.
"""

from __future__ import annotations

from attnlab.claims.base import ClaimCheck, ClaimResult, result
from attnlab.figures import kv_cache as fig
from attnlab.nn.cost import MaskKind, generation_dot_products, total
from attnlab.nn.kv_cache import cell_states, kv_cache_counts

SWEEP_SEEDS = range(10)
STALE = 1e-3  # F6.3, E3: a stale cache is off by more than this (exact ones by ≤ fig.EXACT_TOL)
GENERATED, COUNTED = 1000, 300  # M2: tokens generated for the ratios; for the cell counts
FORMULA_TOL = 0.01  # M2: each count within 1% of its formula at GENERATED tokens (gap O(1/n))
E3_SEED = 0  # E3: the random model's seed


def _both_ways(kind: MaskKind, cached: bool) -> tuple[int, int]:
    """(counted from the mask's cells, from the closed form) for the figure's 6 + 8 tokens."""
    cells = total(fig.counts(kind, cached))
    closed = total(
        generation_dot_products(n_prefix=fig.N_PREFIX, n_new=fig.N_NEW, mask=kind, cached=cached)
    )
    return int(cells), int(closed)


def _counts_claim(cid: str, kind: MaskKind, lesson: str, expected: tuple[int, int]) -> ClaimResult:
    cached, cached_closed = _both_ways(kind, True)
    uncached, uncached_closed = _both_ways(kind, False)
    agree = cached == cached_closed and uncached == uncached_closed
    return result(
        cid,
        f"{kind.capitalize()} mask, 6 observation tokens then 8 actions generated one at "
        "a time: dot products per layer and head, prefill included, with and without the KV cache.",
        lesson,
        measured=f"{cached} with the cache, {uncached} without ({uncached / cached:.1f}×); "
        f"cell count and closed form {'agree' if agree else 'DISAGREE'}",
        ok=agree and (cached, uncached) == expected,
        values={"cached": cached, "uncached": uncached, "ratio": uncached / cached}
        | {"expected_cached": expected[0], "expected_uncached": expected[1]},
    )


def _causal_counts() -> ClaimResult:
    p, n = fig.N_PREFIX, fig.N_PREFIX + fig.N_NEW
    # prefill p(p+1)/2; a pass over L tokens costs L(L+1)/2 without the cache, L with it
    expected = (n * (n + 1) // 2, sum(k * (k + 1) // 2 for k in range(p, n + 1)))
    return _counts_claim("F6.1", "causal", "105 dot products with the cache, 525 without", expected)


def _block_counts() -> ClaimResult:
    p, n = fig.N_PREFIX, fig.N_PREFIX + fig.N_NEW
    extra = p * (p - 1) // 2  # the prefix also sees its later tokens: P × P's upper triangle
    expected = (n * (n + 1) // 2 + extra, sum(k * (k + 1) // 2 + extra for k in range(p, n + 1)))
    return _counts_claim(
        "F6.2", "block", "counts shown likewise (the textbook states no number)", expected
    )


def _stale_cells() -> ClaimResult:
    def stale_cells(step: int) -> int:
        states = cell_states(
            "bidirectional", cached=True, step=step, n_prefix=fig.N_PREFIX, n_new=fig.N_NEW
        )
        return int((states == "stale").sum())

    stale = [stale_cells(s) for s in range(fig.N_NEW + 1)]
    checks = [fig.model_check(seed) for seed in SWEEP_SEEDS]
    worst = {k: max(c["max_abs_diff"][k] for c in checks) for k in ("causal", "block")}
    least_bidi = min(c["max_abs_diff"]["bidirectional"] for c in checks)
    ok = all(s > 0 for s in stale[1:]) and stale[0] == 0
    ok = ok and max(worst.values()) <= fig.EXACT_TOL and least_bidi > STALE
    return result(
        "F6.3",
        "With a bidirectional mask the cache is wrong: old tokens should now see the new "
        "one and do not (flagged cells), and cached generation departs from recomputation. With a "
        "causal (or block) mask the two agree to rounding.",
        "bidirectional + cache: stale cells flagged, the result differs; causal + cache "
        "equals recomputation exactly",
        measured=f"stale cells per step {stale}; random 2-layer model, seeds 0–"
        f"{len(SWEEP_SEEDS) - 1}: causal max |Δ| {worst['causal']:.1e}, block "
        f"{worst['block']:.1e}, bidirectional at least {least_bidi:.2f}",
        ok=ok,
        values={
            "stale_per_step": stale,
            "stale_total_last_step": stale[-1],
            "max_diff_causal": worst["causal"],
            "max_diff_block": worst["block"],
            "min_diff_bidirectional": least_bidi,
            "seeds": len(SWEEP_SEEDS),
            "exact_tol": fig.EXACT_TOL,
            "stale": STALE,
        },
    )


def _generation_cost() -> ClaimResult:
    n = GENERATED

    def dots(mask: MaskKind, cached: bool) -> int:  # from one token up to n, one at a time
        return int(
            total(generation_dot_products(n_prefix=1, n_new=n - 1, mask=mask, cached=cached))
        )

    ratios = {
        "recompute_full": dots("bidirectional", False) / (n**3 / 3),  # whole matrix every step
        "recompute_skip_masked": dots("causal", False) / (n**3 / 6),
        "cached": dots("causal", True) / (n**2 / 2),
    }
    m = COUNTED  # the closed forms against a cell-by-cell count from the masks
    agree = all(
        total(kv_cache_counts(k, cached=c, n_prefix=1, n_new=m - 1))
        == total(generation_dot_products(n_prefix=1, n_new=m - 1, mask=k, cached=c))
        for k, c in (("bidirectional", False), ("causal", False), ("causal", True))
    )
    ok = agree and all(abs(r - 1) < FORMULA_TOL for r in ratios.values())
    return result(
        "M2",
        "Generating n tokens by recomputing every step costs Σt² ≈ n³/3 dot products "
        "(≈ n³/6 if masked cells are skipped); with the KV cache Σt ≈ n²/2.",
        r"$\sim n^3/3$ recomputing ($\sim n^3/6$ skipping masked cells); $\sim n^2/2$ with "
        "the cache",
        measured=f"n = {n}: counts / formula = {ratios['recompute_full']:.4f}, "
        f"{ratios['recompute_skip_masked']:.4f}, {ratios['cached']:.4f}; cell counts at "
        f"n = {m} {'agree' if agree else 'DISAGREE'} with the closed forms",
        ok=ok,
        values={"n": n, **{f"ratio_{k}": v for k, v in ratios.items()}}
        | {"n_counted": m, "rel_tol": FORMULA_TOL},
    )


def _exercise_3() -> ClaimResult:
    model = fig.model_check(E3_SEED)
    kv = model["kv_diff_by_layer"]
    cached, uncached = _both_ways("causal", True)[0], _both_ways("causal", False)[0]
    ok = max(kv["causal"]) <= fig.EXACT_TOL and kv["bidirectional"][0] <= fig.EXACT_TOL
    ok = ok and kv["bidirectional"][1] > STALE
    return result(
        "E3",
        "A cache needs values that never change: under a causal mask token i depends on "
        "tokens ≤ i only, so its keys and values are final; in a bidirectional encoder the layer-1 "
        "keys are still right but from layer 2 on old tokens depend on the new ones.",
        "GPT-style decoders can cache (105 vs 525 dot products); in a BERT-style encoder "
        "the cached values go stale from layer 2 on",
        measured=f"cached K, V vs recomputed, per layer: causal {kv['causal'][0]:.1e}, "
        f"{kv['causal'][1]:.1e}; bidirectional {kv['bidirectional'][0]:.1e}, "
        f"{kv['bidirectional'][1]:.2f}; causal cost {cached} vs {uncached}",
        ok=ok,
        values={
            "kv_diff_causal": kv["causal"],
            "kv_diff_bidirectional": kv["bidirectional"],
            "cached": cached,
            "uncached": uncached,
            "exact_tol": fig.EXACT_TOL,
            "stale": STALE,
            "n_layers": len(kv["causal"]),
            "seed": E3_SEED,
        },
    )


CHECKS: tuple[ClaimCheck, ...] = (
    ClaimCheck("F6.1", _causal_counts),
    ClaimCheck("F6.2", _block_counts),
    ClaimCheck("F6.3", _stale_cells),
    ClaimCheck("M2", _generation_cost),
    ClaimCheck("E3", _exercise_3),
)
