"""Claims F2.1–F2.9 (§3, FIG 2: live training on the tabletop) and exercise E4 (one head vs two);
F2.10–F2.11, inside the trained model, are in fig2_inside.py.

Fast checks train the default seed (`tabletop.DEFAULT_SEED`) with the real trainer, 1500 steps,
about 0.4 s a run (three runs are shared by all checks). The slow checks (`--full`) add a sweep of
seeds 0–99 (the page invites changing the seed, so the claim must hold for the seeds a reader
picks, not for one) and hold the distribution to the lesson's range as well; the default seed is
reported beside it. F2.2 and F2.6 also give the distribution itself (every seed's numbers, the
failing seeds) for the page to draw. Conditions are ours and stated in each result; where the
lesson's number and ours differ (the MLP at ~23 cm where the lesson says ~25; the 2-head vector
task below 3 cm at a median of ~375 steps where it says ~425), both are shown, and
`tabletop/__init__.py` records the sweeps behind the setup.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attnlab.claims import fig2_runs as runs
from attnlab.claims.base import ClaimCheck, ClaimResult, result, spread, spread_text
from attnlab.claims.fig2_inside import CHECKS as INSIDE_CHECKS
from attnlab.claims.fig2_runs import swept, trained
from attnlab.tabletop import DEFAULT_SEED, SweepResult, gradient_check
from attnlab.tabletop.mlp import SlotMLP
from attnlab.tabletop.model import CrossAttention
from attnlab.tabletop.scenes import HALF_CM, Scenes, fixed_test_sets

FETCH_STEPS = (175, 250)  # lesson: ~225 steps below 2 cm, 175–250 across seeds
VECTOR_STEPS = (350, 550)  # lesson: ~425 steps below 3 cm, 350–550 across seeds
WEIGHT_STEP, WEIGHT_600 = 600, (0.95, 0.99)  # lesson: ~0.97 at step 600
FOCUS = 0.95  # F2.7: lesson ~0.98 on A and ~0.97 on B
SPLIT = 0.9  # F2.7 over seeds: a head "on" its object (some seeds are still sharpening at 1500)
RACE_CM = 20  # F2.2: "the MLP is then still above 20 cm"
RACE_SHARE = 0.95  # … for at least this share of the seeds a reader may pick
MLP_MEDIAN_CM = 22  # "about 25 cm": the median MLP error at the crossing at least this
BELOW_1CM_SHARE = 0.9  # F2.6: share of seeds below 1 cm at step 1500
SPLIT_SHARE = 0.9  # F2.7 over seeds: share of seeds whose heads split A/B
GRAD_TOL = 1e-6  # F2.8: max relative error of the hand-written gradient
SHUFFLE_TOL_CM = 1e-9  # F2.9: rounding only
STUCK_CM, SOLVED_CM = 20, 1  # F2.5/E4: one head above, two heads below (cm, after STEPS)


def _row(history: list[dict[str, Any]], step: int) -> dict[str, Any]:
    return next(r for r in history if r["step"] == step)


def _seeds() -> str:
    """'seeds 0–99': the sweep's seeds as the results name them."""
    return f"seeds {runs.SWEEP_SEEDS[0]}–{runs.SWEEP_SEEDS[-1]}"


def _per_seed(res: SweepResult, **columns: list[Any]) -> dict[str, list[Any]]:
    """The distribution for the page to draw: one list per quantity, aligned with "seed"."""
    return {"seed": list(res.seeds), **columns}


def _sweep_values(res: SweepResult) -> dict[str, int]:
    """The sweep's seeds as values (the condition's sentence names them), and their count."""
    return {"seed_first": res.seeds[0], "seed_last": res.seeds[-1], "n_seeds": len(res.seeds)}


def _sweep_text(d: dict[str, Any], unit: str = "") -> str:
    if d["median"] is None:
        return "never reached"
    never = f", {d['missing']} never" if d["missing"] else ""
    return f"median {d['median']:.4g}{unit} (10–90%: {d['p10']:.4g}–{d['p90']:.4g}{never})"


# F2.1 ----------------------------------------------------------------------------------------
def check_f2_1() -> ClaimResult:
    one, mlp = CrossAttention(1).n_params, SlotMLP().n_params
    sizes = {"attn_params": one, "mlp_params": mlp}
    sizes.update({f"attn_params_{h}_heads": CrossAttention(h).n_params for h in (2, 4)})
    return result(
        "F2.1",
        "One attention head has 182 parameters (W_Q 96, W_K 64, W_V 16, W_O 4, b 2); "
        "the slot MLP 60 → 64 → 64 → 2 has 8194",
        "182 and 8194",
        measured=f"{one} and {mlp} (2 heads: {sizes['attn_params_2_heads']}, "
        f"4 heads: {sizes['attn_params_4_heads']})",
        ok=one == 182 and mlp == 8194,
        values=sizes,
    )


# F2.2 ----------------------------------------------------------------------------------------
F2_2 = (
    "F2.2",
    "Fetch, one head: the attention model's test error falls below 2 cm after a couple of "
    "hundred steps, while the MLP trained on the same scenes is still above 20 cm",
    "about 225 steps (175–250 across seeds); MLP then above 20 cm (about 25 cm)",
)


def _f2_2_default() -> tuple[bool, str, dict[str, Any]]:
    s = trained("fetch", 1).summary()
    steps, mlp = s["first_below_2cm"], s["mlp_err_at_2cm"]
    ok = steps is not None and FETCH_STEPS[0] <= steps <= FETCH_STEPS[1] and mlp > RACE_CM
    text = f"seed {DEFAULT_SEED}: {steps} steps, MLP {mlp:.1f} cm" if steps else "never"
    values = {"steps": steps, "mlp_cm": mlp, "seed": DEFAULT_SEED}
    values.update(fetch_lo=FETCH_STEPS[0], fetch_hi=FETCH_STEPS[1], race_cm=RACE_CM)
    return ok, text, values  # the condition's thresholds too: the page's sentence names them


def check_f2_2() -> ClaimResult:
    ok, text, values = _f2_2_default()
    return result(*F2_2, measured=text, ok=ok, values=values)


def check_f2_2_sweep() -> ClaimResult:
    ok, text, values = _f2_2_default()
    res = swept("fetch", 1)
    st = res.stats()
    steps, mlp = st["first_below_2cm"], st["mlp_err_at_2cm"]
    at_2cm = [(m["first_below_2cm"], m["mlp_err_at_2cm"]) for m in res.summaries]
    race = [n is not None and cm > RACE_CM for n, cm in at_2cm]
    share = float(np.mean(race))
    lost = [seed for seed, won in zip(res.seeds, race, strict=True) if not won]
    ok = ok and steps["missing"] == 0 and FETCH_STEPS[0] <= steps["median"] <= FETCH_STEPS[1]
    ok = ok and share >= RACE_SHARE and mlp["median"] >= MLP_MEDIAN_CM
    values.update(steps_median=steps["median"], steps_p10=steps["p10"], steps_p90=steps["p90"])
    values.update(mlp_cm_median=mlp["median"], mlp_cm_p10=mlp["p10"], mlp_cm_p90=mlp["p90"])
    values.update(share_race=share, failing_seeds=lost, **_sweep_values(res))
    values.update(race_share=RACE_SHARE, mlp_median_min=MLP_MEDIAN_CM)
    values["per_seed"] = _per_seed(
        res, steps=[n for n, _ in at_2cm], mlp_cm=[cm for _, cm in at_2cm], race=race
    )
    return result(
        *F2_2,
        measured=f"{text}; {_seeds()}: {_sweep_text(steps, ' steps')}, "
        f"MLP then {_sweep_text(mlp, ' cm')}; MLP above {RACE_CM} cm for {share:.0%} "
        f"(not: {', '.join(map(str, lost)) or 'none'})",
        ok=ok,
        values=values,
    )


# F2.3 ----------------------------------------------------------------------------------------
F2_3 = (
    "F2.3",
    "After training on 2–5 objects, the same attention weights stay below 3 cm on 6-object "
    "scenes, a count never seen in training; the slot MLP does not",
    "below 3 cm on the 6-object test set",
)


def check_f2_3(*, full: bool = False) -> ClaimResult:
    f = trained("fetch", 1).summary()["final"]
    values = {
        "err6_cm": f["attn_err6_cm"],
        "err_cm": f["attn_err_cm"],
        "mlp_err6_cm": f["mlp_err6_cm"],
        "trained_steps": runs.STEPS,
        "limit_cm": 3,
    }
    ok = f["attn_err6_cm"] < values["limit_cm"]
    measured = (
        f"seed {DEFAULT_SEED}, {runs.STEPS} steps: {f['attn_err6_cm']:.2f} cm "
        f"(2–5 objects {f['attn_err_cm']:.2f} cm; MLP on 6 objects {f['mlp_err6_cm']:.1f} cm)"
    )
    if full:
        d = swept("fetch", 1).stats()["final_attn_err6_cm"]
        worst = max(m["final"]["attn_err6_cm"] for m in swept("fetch", 1).summaries)
        ok = ok and worst < values["limit_cm"]
        values.update(
            err6_cm_median=d["median"], err6_cm_max=worst, **_sweep_values(swept("fetch", 1))
        )
        measured += f"; {_seeds()}: {_sweep_text(d, ' cm')}"
    return result(*F2_3, measured=measured, ok=ok, values=values)


# F2.4 ----------------------------------------------------------------------------------------
F2_4 = (
    "F2.4",
    "What fetch learns is a lookup: after 600 steps the mean attention weight on the target "
    "object (2–5-object test scenes) is close to 1",
    "about 0.97 after 600 steps",
)


def check_f2_4(*, full: bool = False) -> ClaimResult:
    w = _row(trained("fetch", 1).history, WEIGHT_STEP)["head_weight"][0]
    lo, hi = WEIGHT_600
    ok = lo <= w <= hi
    values: dict[str, Any] = {"weight": w, "weight_lo": lo, "weight_hi": hi, "at_step": WEIGHT_STEP}
    measured = f"seed {DEFAULT_SEED}: {w:.3f}"
    if full:
        ws = [_row(h, WEIGHT_STEP)["head_weight"][0] for h in swept("fetch", 1).histories]
        d = spread(ws)
        ok = ok and lo <= d["median"] <= hi
        values.update(weight_median=d["median"], weight_p10=d["p10"], weight_p90=d["p90"])
        values.update(_sweep_values(swept("fetch", 1)))
        measured += f"; {_seeds()}: {spread_text(ws)}"
    return result(*F2_4, measured=measured, ok=ok, values=values)


# F2.5 ----------------------------------------------------------------------------------------
F2_5 = (
    "F2.5",
    "Vector task (p_A − p_B) with one head: a convex combination of positions cannot give a "
    "difference, and after 1500 steps the error is still above 20 cm",
    "still above 20 cm after ≥ 1500 steps (about 28 cm)",
)


def one_head_floor_cm() -> float:
    """What one head is left with: look up A, guess the table's centre for B.

    Its error is then |p_B − centre|; the mean over the 2–5-object test set, in cm. For positions
    uniform on a square it is 0.383 × the side: 30.6 cm on the 80 cm table (the lesson's "about
    28" is this floor for positions spread over about 73 cm).
    """
    sc = fixed_test_sets("vector")[0]
    p_b = sc.x[np.arange(sc.size), sc.second, :2]  # centred positions of B, table units
    return float(np.linalg.norm(p_b, axis=-1).mean() * HALF_CM)


def check_f2_5(*, full: bool = False) -> ClaimResult:
    err = trained("vector", 1).summary()["final"]["attn_err_cm"]
    floor = one_head_floor_cm()
    ok = err > STUCK_CM
    values: dict[str, Any] = {"err_cm": err, "floor_cm": floor}
    values.update(trained_steps=runs.STEPS, limit_cm=STUCK_CM)
    measured = (
        f"seed {DEFAULT_SEED}: {err:.1f} cm after {runs.STEPS} steps (looking up A and guessing "
        f"the centre for B leaves {floor:.1f} cm on this test set)"
    )
    if full:
        finals = [s["final"]["attn_err_cm"] for s in swept("vector", 1).summaries]
        ok = ok and min(finals) > STUCK_CM
        values.update(err_cm_min=min(finals), err_cm_median=float(np.median(finals)))
        values.update(_sweep_values(swept("vector", 1)))
        measured += f"; {_seeds()}: min {min(finals):.1f}, median {np.median(finals):.1f} cm"
    return result(*F2_5, measured=measured, ok=ok, values=values)


# F2.6 ----------------------------------------------------------------------------------------
F2_6 = (
    "F2.6",
    "Vector task with two heads: the error falls below 3 cm within a few hundred steps and "
    "below 1 cm by step 1500",
    "below 3 cm after about 425 steps (350–550 across seeds); below 1 cm after 1500",
)


def check_f2_6(*, full: bool = False) -> ClaimResult:
    s = trained("vector", 2).summary()
    steps, final = s["first_below_3cm"], s["final"]["attn_err_cm"]
    lo, hi = VECTOR_STEPS
    ok = steps is not None and lo <= steps <= hi and final < SOLVED_CM
    values: dict[str, Any] = {"steps": steps, "final_cm": final, "steps_1cm": s["first_below_1cm"]}
    values["seed"] = DEFAULT_SEED  # the default run's seed, which the page marks in the sweep
    values.update(steps_lo=lo, steps_hi=hi, trained_steps=runs.STEPS, final_limit_cm=SOLVED_CM)
    measured = f"seed {DEFAULT_SEED}: below 3 cm at {steps}, {final:.2f} cm at {runs.STEPS}"
    if full:
        res = swept("vector", 2)
        d = res.stats()["first_below_3cm"]
        finals = [m["final"]["attn_err_cm"] for m in res.summaries]
        share = float(np.mean([f < SOLVED_CM for f in finals]))
        ok = ok and d["median"] is not None and lo <= d["median"] <= hi
        ok = ok and share >= BELOW_1CM_SHARE
        values.update(steps_median=d["median"], steps_p10=d["p10"], steps_p90=d["p90"])
        values.update(steps_never=d["missing"], share_below_1cm=share, **_sweep_values(res))
        values["below_1cm_share_min"] = BELOW_1CM_SHARE
        values["failures"] = len(res.failures())
        values["failing_seeds"] = [f["seed"] for f in res.failures()]
        values["per_seed"] = _per_seed(
            res, steps=[m["first_below_3cm"] for m in res.summaries], final_cm=finals
        )
        how = "; ".join(f"seed {f['seed']}: {f['how']}" for f in res.failures()) or "none"
        measured += (
            f"; {_seeds()}: {_sweep_text(d, ' steps')}; {share:.0%} below 1 cm at {runs.STEPS} "
            f"(failed: {how})"
        )
    return result(*F2_6, measured=measured, ok=ok, values=values)


# F2.7 ----------------------------------------------------------------------------------------
F2_7 = (
    "F2.7",
    "Vector task, two heads, 1500 steps: the heads split the job, one looks at A and the other "
    "at B, and W_O subtracts the two lookups",
    "one head about 0.98 on A, the other about 0.97 on B",
)


def _split(head_weight: list[list[float]]) -> tuple[float, float, bool]:
    """Best weight on A, best on B, and whether two different heads hold them."""
    w = np.asarray(head_weight)
    a, b = int(w[:, 0].argmax()), int(w[:, 1].argmax())
    return float(w[a, 0]), float(w[b, 1]), a != b


def check_f2_7(*, full: bool = False) -> ClaimResult:
    w_a, w_b, apart = _split(trained("vector", 2).summary()["final"]["head_weight"])
    ok = apart and w_a >= FOCUS and w_b >= FOCUS
    values: dict[str, Any] = {"weight_a": w_a, "weight_b": w_b, "focus": FOCUS}
    measured = f"seed {DEFAULT_SEED}: {w_a:.3f} on A, {w_b:.3f} on B (different heads: {apart})"
    if full:
        splits = [_split(s["final"]["head_weight"]) for s in swept("vector", 2).summaries]
        split = [(a, b) for a, b, apart in splits if apart and min(a, b) >= SPLIT]
        share = len(split) / len(splits)
        med_a, med_b = (float(np.median(v)) for v in zip(*split, strict=True)) if split else (0, 0)
        ok = ok and share >= SPLIT_SHARE and min(med_a, med_b) >= FOCUS
        values.update(share_split=share, weight_a_median=med_a, weight_b_median=med_b)
        values.update(split=SPLIT, split_share_min=SPLIT_SHARE, **_sweep_values(swept("vector", 2)))
        measured += (
            f"; {_seeds()}: {share:.0%} split A/B over two heads (both ≥ {SPLIT}), "
            f"median {med_a:.3f} on A, {med_b:.3f} on B"
        )
    return result(*F2_7, measured=measured, ok=ok, values=values)


# F2.8 ----------------------------------------------------------------------------------------
def check_f2_8() -> ClaimResult:
    g = gradient_check(DEFAULT_SEED)
    ok = g["max_rel_error"] < GRAD_TOL
    return result(
        "F2.8",
        "The hand-written gradient of the 2-head vector model equals central finite "
        "differences, parameter by parameter",
        "analytic = numerical (readout computed when the page loads)",
        measured=f"max relative error {g['max_rel_error']:.1e} over {g['n_params']} parameters",
        ok=ok,
        values={"max_rel_error": g["max_rel_error"], "n_params": g["n_params"], "eps": g["eps"]}
        | {"n_scenes": g["batch"], "tol": GRAD_TOL},
    )


# F2.9 ----------------------------------------------------------------------------------------
def _shuffled(sc: Scenes, rng: np.random.Generator) -> Scenes:
    """The same 6-object scenes with the objects in another order (the instruction unchanged)."""
    order = np.argsort(rng.random((sc.size, sc.n_slots)), axis=1)
    x = np.take_along_axis(sc.x, order[:, :, None], axis=1)
    rows = sc.rows.copy()
    rows[:, : x.shape[1] * x.shape[2]] = x.reshape(sc.size, -1)
    return Scenes(rows, sc.mask, sc.y, sc.target, sc.second, sc.n_slots)


def check_f2_9() -> ClaimResult:
    batch = trained("fetch", 1).seed_batch
    sc = fixed_test_sets("fetch")[1]
    perm = _shuffled(sc, np.random.default_rng(DEFAULT_SEED))
    outs = []
    for s in (sc, perm):
        y_a, _ = batch.attn.forward(batch.params_a, s.x[None], s.c[None], s.mask[None])
        y_m, _ = batch.mlp.forward(batch.params_m, s.rows[None])
        outs.append((y_a[0], y_m[0]))
    attn_diff = float(np.abs(outs[0][0] - outs[1][0]).max() * HALF_CM)
    mlp_move = float(np.linalg.norm(outs[0][1] - outs[1][1], axis=-1).mean() * HALF_CM)
    return result(
        "F2.9",
        "Shuffling the objects leaves the cross-attention output unchanged (the slot MLP's "
        "answer moves)",
        "permuting the objects leaves the output unchanged",
        measured=f"max change {attn_diff:.1e} cm over 200 shuffled 6-object scenes "
        f"(MLP: moves {mlp_move:.1f} cm on average)",
        ok=attn_diff < SHUFFLE_TOL_CM,
        values={"max_change_cm": attn_diff, "mlp_change_cm": mlp_move, "tol_cm": SHUFFLE_TOL_CM},
    )


# E4 ------------------------------------------------------------------------------------------
def check_e4() -> ClaimResult:
    one = trained("vector", 1).summary()["final"]
    two = trained("vector", 2).summary()["final"]
    ok = one["attn_err_cm"] > STUCK_CM and two["attn_err_cm"] < SOLVED_CM
    return result(
        "E4",
        "Exercise 4: one head only averages positions, so p_A − p_B is out of its reach; two "
        "heads look up A and B and W_O subtracts",
        "one head stuck at about 28 cm; two heads below 1 cm",
        measured=f"seed {DEFAULT_SEED}, {runs.STEPS} steps: one head {one['attn_err_cm']:.1f} cm, "
        f"two heads {two['attn_err_cm']:.2f} cm",
        ok=ok,
        values={"one_head_cm": one["attn_err_cm"], "two_heads_cm": two["attn_err_cm"]}
        | {"stuck_cm": STUCK_CM, "solved_cm": SOLVED_CM, "trained_steps": runs.STEPS},
    )


CHECKS: tuple[ClaimCheck, ...] = (
    ClaimCheck("F2.1", check_f2_1),
    ClaimCheck("F2.2", check_f2_2),
    ClaimCheck("F2.2", check_f2_2_sweep, slow=True),
    ClaimCheck("F2.3", check_f2_3),
    ClaimCheck("F2.3", lambda: check_f2_3(full=True), slow=True),
    ClaimCheck("F2.4", check_f2_4),
    ClaimCheck("F2.4", lambda: check_f2_4(full=True), slow=True),
    ClaimCheck("F2.5", check_f2_5),
    ClaimCheck("F2.5", lambda: check_f2_5(full=True), slow=True),
    ClaimCheck("F2.6", check_f2_6),
    ClaimCheck("F2.6", lambda: check_f2_6(full=True), slow=True),
    ClaimCheck("F2.7", check_f2_7),
    ClaimCheck("F2.7", lambda: check_f2_7(full=True), slow=True),
    ClaimCheck("F2.8", check_f2_8),
    ClaimCheck("F2.9", check_f2_9),
    ClaimCheck("E4", check_e4),
    *INSIDE_CHECKS,
)
