"""Central-difference gradient checks: the referee for every hand-written backward pass.

One module for the whole package (nn's layers, FIG 2's fused models in tabletop/reference.py,
FIG 1's Jacobian): three difference formulas for three kinds of function, and one measure of the
difference, `rel_error`.

- `numerical_gradient`: two-point, (f(x + ε) − f(x − ε)) / 2ε, the cs231n check.
- `central_gradient` / `central_gradient_batched`: fourth-order, for a check that must stay tight
  on small entries (F2.8); the batched form evaluates every perturbation in one call.
- `piecewise_gradient`: two-point with a step that shrinks near a kink (ReLU).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Array = np.ndarray

_STEPS = np.array([2.0, 1.0, -1.0, -2.0])  # the fourth-order stencil: x + 2ε, x + ε, x − ε, x − 2ε


def _fourth_order(f: Array | list[float], eps: float) -> Array:
    """The stencil's derivative from f (4, ...) = f at the four points of `_STEPS`."""
    return (-f[0] + 8 * f[1] - 8 * f[2] + f[3]) / (12 * eps)


def numerical_gradient(f: Callable[[], float], x: Array, eps: float = 1e-5) -> Array:
    """∂f/∂x by central differences, perturbing `x` in place (f reads x).

    (f(x + ε) − f(x − ε)) / 2ε has truncation error O(ε²), against O(ε) one-sided; rounding adds
    ~1e-16·|f|/ε. In float64, ε = 1e-5 balances the two (~1e-10 each for f of order one).
    """
    grad = np.zeros_like(x, dtype=float)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        i = it.multi_index
        old = x[i]
        x[i] = old + eps
        f_plus = f()
        x[i] = old - eps
        f_minus = f()
        x[i] = old
        grad[i] = (f_plus - f_minus) / (2 * eps)
    return grad


def central_gradient(f: Callable[[], float], x: Array, eps: float) -> Array:
    """Fourth-order central differences: (−f(x+2ε) + 8f(x+ε) − 8f(x−ε) + f(x−2ε)) / 12ε.

    x: (n,), perturbed in place (f reads it). Its error is O(ε⁴) against O(ε²) for the two-point
    formula, so ε can be larger, which shrinks the rounding error (≈ 1e-16·|f|/ε) that otherwise
    dominates small gradient entries.
    """
    grad = np.zeros_like(x)
    for i in range(x.size):
        old = x[i]
        values = []
        for step in _STEPS:
            x[i] = old + step * eps
            values.append(f())
        x[i] = old
        grad[i] = _fourth_order(values, eps)
    return grad


def central_gradient_batched(losses: Callable[[Array], Array], x: Array, eps: float) -> Array:
    """`central_gradient`'s formula with every perturbation evaluated in one call.

    Row k of the (4n, n) batch is x (n,) with one parameter moved one step; `losses` maps the
    batch to its 4n losses. A model whose kernels carry a leading batch axis (FIG 2's seed axis)
    evaluates them all in one forward pass instead of 4n small ones.
    """
    n = x.size
    batch = np.repeat(x[None], 4 * n, axis=0)
    batch[np.arange(4 * n), np.tile(np.arange(n), 4)] += np.repeat(_STEPS, n) * eps
    f = losses(batch).reshape(4, n)  # f[j, i]: parameter i moved by _STEPS[j]·ε
    return _fourth_order(f, eps)


def piecewise_gradient(f: Callable[[], tuple[float, Array]], x: Array, eps: float) -> Array:
    """Central differences for a function with kinks (ReLU): f returns (value, pattern).

    Where x_i ± ε would flip a unit on or off (the pattern of active units changes), ε shrinks
    tenfold until it does not: within one linear region the MLP's loss is quadratic along any
    one parameter, so the central difference is then exact up to rounding. x: (n,), in place.
    """
    _, base = f()
    grad = np.zeros_like(x)
    for i in range(x.size):
        old, h = x[i], eps
        while True:
            x[i] = old + h
            f_plus, p_plus = f()
            x[i] = old - h
            f_minus, p_minus = f()
            x[i] = old
            same = np.array_equal(p_plus, base) and np.array_equal(p_minus, base)
            if same or h < 1e-9:
                break
            h /= 10
        grad[i] = (f_plus - f_minus) / (2 * h)
    return grad


def rel_error(analytic: Array, numeric: Array) -> float:
    """max |a − n| / (|a| + |n|), with the denominator floored at 1e-6 of the largest entry.

    A pure elementwise ratio explodes on entries that are zero up to rounding (1e-12 vs 3e-12 is
    "100% wrong" yet harmless); the floor measures those against the gradient's overall scale.
    """
    a, n = np.asarray(analytic, float), np.asarray(numeric, float)
    denom = np.abs(a) + np.abs(n)
    floor = max(1e-6 * float(denom.max(initial=0.0)), 1e-12)
    return float(np.max(np.abs(a - n) / np.maximum(denom, floor), initial=0.0))
