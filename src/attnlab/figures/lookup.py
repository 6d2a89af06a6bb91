"""§2, FIG 1: attention as a soft dictionary lookup.

Five objects lie on an 80 cm × 80 cm table. Each object's key is a 2-D "what it looks like"
feature (here: its colour, placed on a circle like a colour wheel); its value is where it lies on
the table (cm). A query q is scored against every key, s_i = q·k_i / √d with d = 2 (the same
scaled dot product as the rest of the lesson, so FIG 1 and FIG 3 use one formula), the scores go
through a softmax to weights α_i, and the output is ŷ = Σ_i α_i v_i.

"hard" mode returns the value of the best-scoring key instead. It jumps as q moves, and its
derivative with respect to q is zero wherever it is defined, so backpropagation could never learn
a query through it; the soft lookup's derivative ∂ŷ/∂q = Vᵀ (diag(α) − ααᵀ) K / √d is not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from attnlab.nn.attention import attention
from attnlab.nn.ops import softmax_backward
from attnlab.params import Param

# the table is TABLE_CM × TABLE_CM, origin at one corner
from attnlab.tabletop.scenes import TABLE_CM

NAME = "lookup"

D = 2  # key and query dimension
HULL_TOL_CM = 1e-9 * TABLE_CM  # an output this far outside the values' hull still counts as inside
Q_MAX = 8.0  # bound on each component of q and of a moved key
# The circle the default keys lie on; |q| then sets how sharp the lookup is. Radius 2 (not 1): a
# query aimed at a key passes weight 0.9 at |q| ≈ 3.0, well inside FIG 1's plot (±5), where on the
# unit circle it took |q| ≈ 5.9; and the keys sit far enough apart for finger-sized handles.
KEY_RADIUS = 2.0

# Colour names in colour-wheel order; key i sits at angle 72°·i on the circle.
COLOURS = ("red", "yellow", "green", "blue", "purple")


def _default_keys() -> tuple[float, ...]:
    angle = 2 * np.pi * np.arange(len(COLOURS)) / len(COLOURS)
    keys = KEY_RADIUS * np.stack([np.cos(angle), np.sin(angle)], axis=1)  # (5, 2)
    return tuple(round(float(x), 6) for x in keys.ravel())


# Table positions in cm, one (x, y) per colour. Purple lies inside the other four, so the convex
# hull of the values is a quadrilateral and the reader sees that a hull need not use every point;
# it sits ~10 cm from the values' mean, so a short query's output (≈ the mean) is not read as
# "fetched purple".
DEFAULT_VALUES = (20.0, 62.0, 58.0, 66.0, 64.0, 24.0, 30.0, 16.0, 30.0, 44.0)
DEFAULT_KEYS = _default_keys()

PARAMS: tuple[Param, ...] = (
    Param("q", "vector", (1.0, 0.3), "the query q (2 numbers)", lo=-Q_MAX, hi=Q_MAX, length=D),
    Param("mode", "choice", "softmax", "soft (softmax) or hard (argmax) lookup",
          choices=("softmax", "hard")),
    Param("keys", "vector", DEFAULT_KEYS, "the 5 keys k_i as x1,y1,…,x5,y5 (default: a circle)",
          lo=-Q_MAX, hi=Q_MAX, length=D * len(COLOURS)),
    Param("values", "vector", DEFAULT_VALUES,
          "the 5 values v_i (table positions in cm) as x1,y1,…,x5,y5",
          lo=0.0, hi=TABLE_CM, length=D * len(COLOURS)),
)  # fmt: skip
# what the page draws before the first answer: the table, the objects (key i at 72°·i)
CONSTANTS = {"table_cm": TABLE_CM, "colours": COLOURS}


def convex_hull(points: np.ndarray) -> np.ndarray:
    """Vertices of the convex hull of 2-D points, counter-clockwise, shape (h, 2).

    Andrew's monotone chain. Collinear points are dropped, so h is 1 (all points equal),
    2 (all on a line: the segment's ends) or ≥ 3.
    """
    pts = np.unique(np.asarray(points, dtype=float), axis=0)  # sorted by x, then y
    if len(pts) <= 2:
        return pts

    def half(seq: np.ndarray) -> list[np.ndarray]:
        chain: list[np.ndarray] = []
        for p in seq:
            while len(chain) >= 2 and _cross(chain[-2], chain[-1], p) <= 0:
                chain.pop()
            chain.append(p)
        return chain

    lower, upper = half(pts), half(pts[::-1])
    return np.array(lower[:-1] + upper[:-1])


def _cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """z of (a − o) × (b − o): > 0 when o → a → b turns left."""
    return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))


def in_convex_hull(point: np.ndarray, points: np.ndarray, *, tol: float = 1e-9) -> bool:
    """Whether `point` lies in the convex hull of `points` (boundary included, up to tol cm)."""
    p = np.asarray(point, dtype=float)
    hull = convex_hull(points)
    if len(hull) == 1:
        return bool(np.linalg.norm(p - hull[0]) <= tol)
    if len(hull) == 2:  # a segment: distance from p to it
        a, b = hull
        t = np.clip(np.dot(p - a, b - a) / np.dot(b - a, b - a), 0.0, 1.0)
        return bool(np.linalg.norm(p - (a + t * (b - a))) <= tol)
    # counter-clockwise polygon: p is inside when it is left of (or on) every edge
    for a, b in zip(hull, np.roll(hull, -1, axis=0), strict=True):
        if _cross(a, b, p) < -tol * np.linalg.norm(b - a):
            return False
    return True


def soft_lookup(q: np.ndarray, keys: np.ndarray, values: np.ndarray) -> dict[str, np.ndarray]:
    """Scores, weights α, output ŷ and the Jacobian ∂ŷ/∂q of one softmax lookup.

    q: (d,), keys: (n, d), values: (n, d_v). The Jacobian (d_v, d) goes through the softmax
    backward: row c is (∂s/∂q)ᵀ · softmax_backward(v[:, c]), i.e. Vᵀ (diag(α) − ααᵀ) K / √d.
    """
    y, alpha = attention(q[None, :], keys, values, scale=True)  # (1, d_v), (1, n)
    alpha = alpha[0]
    ds = softmax_backward(values.T, alpha[None, :])  # (d_v, n): ∂ŷ_c/∂s_i
    dy_dq = ds @ keys / math.sqrt(keys.shape[1])  # (d_v, d)
    # attention() keeps the scores to itself; the page shows them beside each key
    scores = keys @ q / math.sqrt(keys.shape[1])
    return {"scores": scores, "alpha": alpha, "y": y[0], "dy_dq": dy_dq}


def hard_lookup(q: np.ndarray, keys: np.ndarray, values: np.ndarray) -> dict[str, np.ndarray]:
    """The dictionary-style lookup: all weight on the best score (first one on a tie).

    The output is piecewise constant in q, so its Jacobian is zero wherever it is defined.
    """
    scores = keys @ q / math.sqrt(keys.shape[1])
    alpha = np.zeros(len(keys))
    alpha[int(np.argmax(scores))] = 1.0
    dy_dq = np.zeros((values.shape[1], keys.shape[1]))
    return {"scores": scores, "alpha": alpha, "y": alpha @ values, "dy_dq": dy_dq}


def compute(
    *, q: Sequence[float], mode: str, keys: Sequence[float], values: Sequence[float]
) -> dict[str, Any]:
    """FIG 1's data for one query; `keys`/`values` are flat (x1, y1, …, x5, y5)."""
    q_vec = np.asarray(q, dtype=float)
    k = np.asarray(keys, dtype=float).reshape(len(COLOURS), D)  # (5, 2)
    v = np.asarray(values, dtype=float).reshape(len(COLOURS), D)  # (5, 2), cm
    r = (soft_lookup if mode == "softmax" else hard_lookup)(q_vec, k, v)
    return {
        "colours": list(COLOURS),
        "d": D,
        "scale": math.sqrt(D),  # scores are q·k / scale
        "table_cm": TABLE_CM,
        "keys": k,
        "values": v,
        "scores": r["scores"],
        "weights": r["alpha"],
        "output": r["y"],
        "winner": int(np.argmax(r["scores"])),
        "dy_dq": r["dy_dq"],
        "grad_norm": float(np.linalg.norm(r["dy_dq"])),  # Frobenius, cm per unit of q
        "in_hull": in_convex_hull(r["y"], v, tol=HULL_TOL_CM),
        "hull": convex_hull(v),
        "values_mean": v.mean(axis=0),
    }
