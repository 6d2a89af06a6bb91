"""Claims F1.1–F1.4 (§2, FIG 1: the soft lookup), measured through `attnlab.figures.lookup`.

"Long" and "near the origin" are made concrete on FIG 1's default layout (keys on a circle of
radius lookup.KEY_RADIUS, queries bounded by |q_i| ≤ 8): a long query has length 8, a short one
length 0.25 / KEY_RADIUS.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from attnlab.claims.base import ClaimCheck, ClaimResult, result
from attnlab.figures import lookup
from attnlab.nn.gradcheck import rel_error

LONG = lookup.Q_MAX  # length of a "long" query: the slider's bound
SHORT = 0.25 / lookup.KEY_RADIUS  # a query "near the origin": every |q·k_i| ≤ 0.25
CHECK_SEED = 0  # random layouts and queries of F1.1 and F1.4
GRID, N_LAYOUTS = 17, 200  # F1.1: a GRID × GRID grid of queries, and random layouts
SUM_TOL = 1e-12  # F1.1: |Σα − 1| at most this (float64 rounding)
AIMED_WEIGHT, NEAR_WEIGHT, NEAR_CM = 0.9, 0.3, 5.0  # F1.2: the lesson's 0.9 and 0.3; "close"
DIRECTIONS = 72  # F1.2: short queries all round the origin
PAIR_WEIGHT, SEGMENT_CM = 0.4, 1.0  # F1.3: both weights above; output this near the segment
JUMP_CM, SOFT_MOVE_CM, GAP = 1.0, 1e-3, 1e-6  # F1.4: across a boundary GAP wide
N_GRAD, N_FD, FD_TOL = 50, 10, 1e-6  # F1.4: queries for the gradients; of them, checked by FD

_KEYS = np.array(lookup.DEFAULT_KEYS).reshape(-1, 2)  # (5, 2)
_VALUES = np.array(lookup.DEFAULT_VALUES).reshape(-1, 2)  # (5, 2), cm


def _fig(q: Sequence[float], mode: str = "softmax", keys=None, values=None) -> dict[str, Any]:
    keys = _KEYS if keys is None else keys
    values = _VALUES if values is None else values
    return lookup.compute(q=q, mode=mode, keys=np.ravel(keys), values=np.ravel(values))


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x)


def _distance_to_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    t = np.clip(np.dot(p - a, b - a) / np.dot(b - a, b - a), 0.0, 1.0)
    return float(np.linalg.norm(p - (a + t * (b - a))))


def check_f1_1() -> ClaimResult:
    """Over a 17 × 17 grid of queries on the default layout and 200 random layouts."""
    rng = np.random.default_rng(CHECK_SEED)
    grid = np.linspace(-LONG, LONG, GRID)
    cases = [(np.array([x, y]), _KEYS, _VALUES) for x in grid for y in grid]
    for _ in range(N_LAYOUTS):
        cases.append((rng.uniform(-LONG, LONG, 2), rng.uniform(-LONG, LONG, (5, 2)),
                      rng.uniform(0, lookup.TABLE_CM, (5, 2))))  # fmt: skip
    outs = [_fig(q, keys=k, values=v) for q, k, v in cases]
    min_w = min(float(np.min(o["weights"])) for o in outs)
    sum_err = max(abs(float(np.sum(o["weights"])) - 1.0) for o in outs)
    outside = sum(not o["in_hull"] for o in outs)
    return result(
        "F1.1",
        "Soft-lookup weights are non-negative and sum to 1, so the output stays in "
        "the convex hull of the values",
        r"$\alpha_i \ge 0$, $\sum_i\alpha_i = 1$, $\hat{\mathbf y}$ in the convex hull of "
        r"the $\mathbf v_i$",
        measured=f"{len(outs)} queries: min weight {min_w:.2g}, max |Σα − 1| {sum_err:.1g}, "
        f"{outside} outputs outside the hull",
        ok=min_w >= 0.0 and sum_err <= SUM_TOL and outside == 0,
        values={
            "n_queries": len(outs),
            "min_weight": min_w,
            "max_sum_error": sum_err,
            "n_outside": outside,
        }
        | {"sum_tol": SUM_TOL, "hull_tol_cm": lookup.HULL_TOL_CM, "n_grid": GRID**2}
        | {"n_layouts": N_LAYOUTS},
    )


def length_for(weight: float, key: int = 0) -> float:
    """Shortest query length along key `key` that gives it more than `weight` (0.01 steps)."""
    for length in np.arange(0.0, LONG + 1e-9, 0.01):
        if _fig(length * _unit(_KEYS[key]))["weights"][key] > weight:
            return float(length)
    return float("inf")


def check_f1_2() -> ClaimResult:
    aimed = min(float(_fig(LONG * _unit(k))["weights"][i]) for i, k in enumerate(_KEYS))
    ring = [SHORT * np.array([np.cos(a), np.sin(a)]) for a in np.linspace(0, 2 * np.pi, DIRECTIONS)]
    short = [_fig(q) for q in ring]
    near_max_w = max(float(np.max(o["weights"])) for o in short)
    mean = _VALUES.mean(axis=0)
    near_dist = max(float(np.linalg.norm(o["output"] - mean)) for o in short)
    needed = length_for(AIMED_WEIGHT)
    return result(
        "F1.2",
        "A long query aimed at one key gives it almost all the weight; a short one "
        "spreads the weight and returns about the mean of the values",
        "aimed, long: that key's weight > 0.9; near the origin: every weight < 0.3, "
        "output close to the mean",
        measured=f"|q| = {LONG:g} aimed: weight ≥ {aimed:.4f} (> {AIMED_WEIGHT} from |q| = "
        f"{needed:.2f}); |q| = {SHORT:g}: max weight {near_max_w:.3f}, {near_dist:.1f} cm from "
        "the mean",
        ok=aimed > AIMED_WEIGHT and near_max_w < NEAR_WEIGHT and near_dist < NEAR_CM,
        values={
            "aimed_min_weight": aimed,
            "length_for_0.9": needed,
            "near_max_weight": near_max_w,
            "near_distance_cm": near_dist,
        }
        | {"n_keys": len(_KEYS), "long_q": LONG, "aimed_weight": AIMED_WEIGHT}
        | {"n_directions": DIRECTIONS, "short_q": SHORT, "near_weight": NEAR_WEIGHT}
        | {"near_cm": NEAR_CM},
    )


def check_f1_3() -> ClaimResult:
    weights, dists = [], []
    for i in range(len(_KEYS)):
        j = (i + 1) % len(_KEYS)
        out = _fig(LONG * _unit(_unit(_KEYS[i]) + _unit(_KEYS[j])))
        weights.append(min(out["weights"][i], out["weights"][j]))
        dists.append(_distance_to_segment(out["output"], _VALUES[i], _VALUES[j]))
    min_w, max_d = float(min(weights)), float(max(dists))
    return result(
        "F1.3",
        "A long query between two neighbouring keys splits the weight between them "
        "and returns a point on the segment joining the two objects",
        "both weights > 0.4; output on (near) the segment between the two objects",
        measured=f"smaller of the two weights ≥ {min_w:.4f}; at most {max_d:.2g} cm off the "
        "segment",
        ok=min_w > PAIR_WEIGHT and max_d < SEGMENT_CM,
        values={"min_pair_weight": min_w, "max_distance_cm": max_d}
        | {"n_pairs": len(_KEYS), "long_q": LONG, "pair_weight": PAIR_WEIGHT}
        | {"segment_cm": SEGMENT_CM},
    )


def finite_difference_jacobian(q: np.ndarray, h: float = 1e-5) -> np.ndarray:
    """∂ŷ/∂q (2, 2) by central differences on the soft lookup's output."""
    cols = [(_fig(q + h * e)["output"] - _fig(q - h * e)["output"]) / (2 * h) for e in np.eye(2)]
    return np.stack(cols, axis=1)


def check_f1_4() -> ClaimResult:
    rng = np.random.default_rng(CHECK_SEED)
    # Either side of the boundary q·(k_0 − k_1) = 0 between keys 0 and 1, GAP apart.
    across = _unit(_KEYS[0] - _KEYS[1])
    on_boundary = 4.0 * _unit(_KEYS[0] + _KEYS[1])
    on_boundary -= (on_boundary @ across) * across
    side = [on_boundary + s * GAP / 2 * across for s in (1, -1)]
    hard_jump = float(
        np.linalg.norm(_fig(side[0], "hard")["output"] - _fig(side[1], "hard")["output"])
    )
    soft_jump = float(np.linalg.norm(_fig(side[0])["output"] - _fig(side[1])["output"]))
    queries = rng.uniform(-LONG / 2, LONG / 2, (N_GRAD, 2))
    hard_grad = max(_fig(q, "hard")["grad_norm"] for q in queries)
    soft_grad = min(_fig(q)["grad_norm"] for q in queries)
    fd_err = max(rel_error(_fig(q)["dy_dq"], finite_difference_jacobian(q)) for q in queries[:N_FD])
    return result(
        "F1.4",
        "Hard lookup jumps and has zero gradient with respect to q; the soft lookup's "
        "gradient ‖∂ŷ/∂q‖ is non-zero and matches finite differences",
        r"hard: jumps, $\partial\hat{\mathbf y}/\partial\mathbf q = 0$; soft: "
        r"$\|\partial\hat{\mathbf y}/\partial\mathbf q\| \ne 0$",
        measured=f"across a boundary {GAP:g} wide: hard jumps {hard_jump:.1f} cm, soft moves "
        f"{soft_jump:.1g} cm; hard ‖∂ŷ/∂q‖ = {hard_grad:g}, soft ≥ {soft_grad:.3g} cm per "
        f"unit of q; analytic vs finite differences {fd_err:.1g}",
        ok=hard_jump > JUMP_CM
        and soft_jump < SOFT_MOVE_CM
        and hard_grad == 0.0
        and soft_grad > 0.0
        and fd_err < FD_TOL,
        values={
            "hard_jump_cm": hard_jump,
            "soft_jump_cm": soft_jump,
            "hard_grad_norm_max": hard_grad,
            "soft_grad_norm_min": soft_grad,
            "fd_rel_error": fd_err,
        }
        | {"jump_cm": JUMP_CM, "soft_move_cm": SOFT_MOVE_CM, "gap": GAP, "n_grad": N_GRAD}
        | {"q_bound": LONG / 2, "fd_tol": FD_TOL, "n_fd": N_FD},
    )


CHECKS: tuple[ClaimCheck, ...] = (
    ClaimCheck("F1.1", check_f1_1),
    ClaimCheck("F1.2", check_f1_2),
    ClaimCheck("F1.3", check_f1_3),
    ClaimCheck("F1.4", check_f1_4),
)
