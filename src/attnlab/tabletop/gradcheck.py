"""F2.8: the hand-written gradients of FIG 2's models against central finite differences.

§5 computes the gradient through the softmax by hand; this module compares it, parameter by
parameter, with central differences of the loss in float64 on a small batch of fresh scenes.
(`attnlab.nn.gradcheck` has the two-point formula; here a fourth-order one, and a kink-aware
one for the ReLU MLP, keep the check tight on small entries too.) The page shows the readout for
the 2-head vector model when it loads (`gradient_check`); the tests run the same comparison for
1, 2 and 4 heads, after training as well as at init, and for the slot MLP.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from attnlab.nn.gradcheck import rel_error
from attnlab.tabletop.seed_batch import INIT_SCHEME, seed_streams
from attnlab.tabletop.mlp import SlotMLP
from attnlab.tabletop.model import CrossAttention
from attnlab.tabletop.scenes import Scenes, sample_scenes

# Steps measured over 30 seeds, at init and after training: with the two-point formula the worst
# entry stayed near 1e-6 for any ε (rounding against truncation); the fourth-order formula at
# ε = 1e-3 keeps it below 2e-7. The MLP's loss is exactly quadratic along one parameter between
# two kinks, so there a large step costs nothing as long as no unit flips.
EPS = 1e-3
EPS_MLP = 1e-2
GRADCHECK_BATCH = 8


def _with_seed_axis(sc: Scenes) -> Scenes:
    return Scenes(sc.rows[None], sc.mask[None], sc.y[None], sc.target, sc.second, sc.n_slots)


def central_gradient(f: Callable[[], float], x: np.ndarray, eps: float) -> np.ndarray:
    """Fourth-order central differences: (−f(x+2ε) + 8f(x+ε) − 8f(x−ε) + f(x−2ε)) / 12ε.

    Its error is O(ε⁴) against O(ε²) for the two-point formula, so ε can be larger, which
    shrinks the rounding error (≈ 1e-16·|f|/ε) that otherwise dominates small gradient entries.
    """
    grad = np.zeros_like(x)
    for i in range(x.size):
        old = x[i]
        values = []
        for step in (2.0, 1.0, -1.0, -2.0):
            x[i] = old + step * eps
            values.append(f())
        x[i] = old
        grad[i] = (-values[0] + 8 * values[1] - 8 * values[2] + values[3]) / (12 * eps)
    return grad


def central_gradient_batched(
    losses: Callable[[np.ndarray], np.ndarray], x: np.ndarray, eps: float
) -> np.ndarray:
    """`central_gradient`'s formula with every perturbation evaluated in one call.

    Row k of the (4n, n) batch is x with one parameter moved one step; `losses` maps the batch
    to its 4n losses. The attention kernels carry a leading seed axis, and here that axis holds
    perturbations instead of seeds: one batched forward replaces 4n small ones.
    """
    n = x.size
    steps = np.array([2.0, 1.0, -1.0, -2.0])
    batch = np.repeat(x[None], 4 * n, axis=0)
    batch[np.arange(4 * n), np.tile(np.arange(n), 4)] += np.repeat(steps, n) * eps
    f = losses(batch).reshape(4, n)
    return (-f[0] + 8 * f[1] - 8 * f[2] + f[3]) / (12 * eps)


def piecewise_gradient(
    f: Callable[[], tuple[float, np.ndarray]], x: np.ndarray, eps: float
) -> np.ndarray:
    """Central differences for a function with kinks (ReLU): f returns (value, pattern).

    Where x_i ± ε would flip a unit on or off (the pattern of active units changes), ε shrinks
    tenfold until it does not: within one linear region the MLP's loss is quadratic along any
    one parameter, so the central difference is then exact up to rounding.
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


def check_model(
    model: CrossAttention | SlotMLP, theta: np.ndarray, scenes: Scenes, *, eps: float | None = None
) -> dict[str, Any]:
    """Analytic vs numerical ∂L/∂θ for one parameter vector theta (n_params,), on `scenes` (B,).

    Returns the largest relative and absolute differences and both gradients.
    """
    sc = _with_seed_axis(scenes)
    theta = np.array(theta, dtype=np.float64)[None]  # (1, n_params), our own copy
    params, grad = model.views(theta), np.zeros_like(theta)
    is_mlp = isinstance(model, SlotMLP)

    def forward() -> tuple[np.ndarray, Any]:
        if is_mlp:
            return model.forward(params, sc.rows)
        return model.forward(params, sc.x, sc.c, sc.mask)

    def loss_and_pattern() -> tuple[float, np.ndarray | None]:
        y_hat, cache = forward()
        r = y_hat - sc.y
        loss = 0.5 * float(np.sum(r * r)) / scenes.size  # L = ½‖ŷ − y‖², mean over the batch
        if not is_mlp:
            return loss, None
        return loss, np.concatenate([cache.a1.ravel() > 0, cache.a2.ravel() > 0])

    y_hat, cache = forward()
    model.backward((y_hat - sc.y) / scenes.size, cache, params, model.views(grad))
    if is_mlp:
        numeric = piecewise_gradient(loss_and_pattern, theta[0], eps or EPS_MLP)
    else:

        def losses(batch: np.ndarray) -> np.ndarray:  # (4n, n_params) → (4n,)
            r = model.forward(model.views(batch), sc.x, sc.c, sc.mask)[0] - sc.y
            return 0.5 * np.einsum("sbi,sbi->s", r, r) / scenes.size

        numeric = central_gradient_batched(losses, theta[0], eps or EPS)
    return {
        "max_rel_error": rel_error(grad[0], numeric),
        "max_abs_error": float(np.max(np.abs(grad[0] - numeric))),
        "analytic": grad[0],
        "numeric": numeric,
    }


@lru_cache(maxsize=64)
def _gradient_check(seed: int, heads: int, task: str) -> tuple[tuple[str, Any], ...]:
    rng_attn, _, rng_data = seed_streams(seed)
    model = CrossAttention(heads)
    theta = model.init(rng_attn, scheme=INIT_SCHEME)
    scenes = sample_scenes(rng_data, GRADCHECK_BATCH, task=task)
    res = check_model(model, theta, scenes)
    return tuple(
        {
            "task": task,
            "heads": heads,
            "seed": seed,
            "n_params": model.n_params,
            "batch": GRADCHECK_BATCH,
            "eps": EPS,
            "max_rel_error": res["max_rel_error"],
            "max_abs_error": res["max_abs_error"],
        }.items()
    )


def gradient_check(seed: int, *, heads: int = 2, task: str = "vector") -> dict[str, Any]:
    """F2.8 readout: the model as initialised by `seed`, every parameter compared.

    {"task", "heads", "seed", "n_params", "batch", "eps", "max_rel_error", "max_abs_error"};
    cached per (seed, heads, task), since the page asks for it on every load.
    """
    return dict(_gradient_check(int(seed), int(heads), str(task)))
