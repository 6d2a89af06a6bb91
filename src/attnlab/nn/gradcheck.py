"""Central-difference gradient checks: the referee for every hand-written backward pass."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Array = np.ndarray


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


def rel_error(analytic: Array, numeric: Array) -> float:
    """max |a − n| / (|a| + |n|), with the denominator floored at 1e-6 of the largest entry.

    A pure elementwise ratio explodes on entries that are zero up to rounding (1e-12 vs 3e-12 is
    "100% wrong" yet harmless); the floor measures those against the gradient's overall scale.
    """
    a, n = np.asarray(analytic, float), np.asarray(numeric, float)
    denom = np.abs(a) + np.abs(n)
    floor = max(1e-6 * float(denom.max(initial=0.0)), 1e-12)
    return float(np.max(np.abs(a - n) / np.maximum(denom, floor), initial=0.0))
