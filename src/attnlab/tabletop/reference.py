"""The referees of FIG 2's hand-written backward passes: a readable twin, and finite differences.

`reference_gradient` computes the cross-attention model's loss and every parameter gradient
the way §5 writes them, from `attnlab.nn`'s pieces (`multi_head_forward` / `multi_head_backward`,
`nn.softmax` with a boolean mask): no folded products, no seed axis, one batch of scenes. The
fused kernels of `model.py` must give the same numbers to rounding (the tests hold them to
1e-12); the slot MLP gets the same treatment from `nn.linear_*` and `nn.relu_*`.

`check_model` is the outer check, independent of either: central finite differences of the
loss (`attnlab.nn.gradcheck`), parameter by parameter, in float64. `gradient_check` is the F2.8
readout the page shows for the 2-head vector model when it loads.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from attnlab import nn
from attnlab.nn.gradcheck import (
    central_gradient_batched,
    piecewise_gradient,
    rel_error,
)
from attnlab.tabletop.mlp import SlotMLP
from attnlab.tabletop.model import CrossAttention
from attnlab.tabletop.scenes import Scenes, sample_scenes
from attnlab.tabletop.seed_batch import INIT_SCHEME, seed_streams

# Steps measured over 30 seeds, at init and after training: with the two-point formula the worst
# entry stayed near 1e-6 for any ε (rounding against truncation); the fourth-order formula at
# ε = 1e-3 keeps it below 2e-7. The MLP's loss is exactly quadratic along one parameter between
# two kinks, so there a large step costs nothing as long as no unit flips.
EPS = 1e-3
EPS_MLP = 1e-2
GRADCHECK_BATCH = 8


def _loss(y_hat: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """L = ½‖ŷ − y‖², mean over the batch, and ∂L/∂ŷ; y_hat, y: (B, 2)."""
    r = y_hat - y
    return 0.5 * float(np.sum(r * r)) / len(y), r / len(y)


def reference_gradient(
    model: CrossAttention, theta: np.ndarray, scenes: Scenes
) -> tuple[float, np.ndarray]:
    """(L, ∂L/∂θ (n_params,)) for one parameter vector theta (n_params,) on `scenes` (B,).

    The model is nn's multi-head attention with one query (the instruction c) and the object
    tokens as keys and values; model.py keeps nn's layout, so the weights pass as they are.
    """
    p = model.views(np.asarray(theta, dtype=np.float64)[None])
    params = {"W_Q": p.W_Q[0], "W_K": p.W_K[0], "W_V": p.W_V[0], "W_O": p.W_O[0], "b_O": p.b[0]}
    c = scenes.c[:, None, :]  # (B, 1, 12): one query per scene
    may_attend = scenes.mask[:, None, None, :]  # (B, 1, 1, N), broadcast over heads and query
    out, _, cache = nn.multi_head_forward(c, scenes.x, params, mask=may_attend)  # (B, 1, 2)
    loss, dy = _loss(out[:, 0], scenes.y)
    _, _, grads = nn.multi_head_backward(dy[:, None, :], cache)
    grads["b"] = grads.pop("b_O")
    return loss, np.concatenate([grads[name].ravel() for name in model.sizes()])


def reference_gradient_mlp(
    model: SlotMLP, theta: np.ndarray, scenes: Scenes
) -> tuple[float, np.ndarray]:
    """(L, ∂L/∂θ) of the slot MLP, layer by layer with nn.linear_* and nn.relu_*."""
    p = model.views(np.asarray(theta, dtype=np.float64)[None])
    h, caches = scenes.rows, []  # (B, 60)
    layers = ((p.W1, p.b1), (p.W2, p.b2), (p.W3, p.b3))
    for i, (W, b) in enumerate(layers):
        h, lin = nn.linear_forward(h, W[0], b[0])
        relu = None
        if i < len(layers) - 1:  # ReLU after the two hidden layers, none after the output
            h, relu = nn.relu_forward(h)
        caches.append((lin, relu))
    loss, dh = _loss(h, scenes.y)
    named = {}
    for i, (lin, relu) in reversed(list(enumerate(caches))):
        if relu is not None:
            dh = nn.relu_backward(dh, relu)
        dh, named[f"W{i + 1}"], named[f"b{i + 1}"] = nn.linear_backward(dh, lin)
    return loss, np.concatenate([named[name].ravel() for name in model.sizes()])


def fused_gradient(
    model: CrossAttention | SlotMLP, theta: np.ndarray, scenes: Scenes
) -> tuple[float, np.ndarray]:
    """(L, ∂L/∂θ) from the model's own fused forward/backward, with a seed axis of one."""
    theta = np.array(theta, dtype=np.float64)[None]  # (1, n_params), our own copy
    grad = np.zeros_like(theta)
    params = model.views(theta)
    if isinstance(model, SlotMLP):
        y_hat, cache = model.forward(params, scenes.rows[None])
    else:
        y_hat, cache = model.forward(params, scenes.x[None], scenes.c[None], scenes.mask[None])
    loss, dy = _loss(y_hat[0], scenes.y)
    model.backward(dy[None], cache, params, model.views(grad))
    return loss, grad[0]


def _numeric_gradient(
    model: CrossAttention | SlotMLP, theta: np.ndarray, scenes: Scenes, eps: float | None
) -> np.ndarray:
    """Central differences of the loss: fourth order, all perturbations batched (attention);
    kink-aware two-point (the ReLU MLP)."""
    if isinstance(model, SlotMLP):
        theta = np.array(theta, dtype=np.float64)  # perturbed in place
        params = model.views(theta[None])

        def loss_and_pattern() -> tuple[float, np.ndarray]:
            y_hat, cache = model.forward(params, scenes.rows[None])
            active = np.concatenate([cache.a1.ravel() > 0, cache.a2.ravel() > 0])
            return _loss(y_hat[0], scenes.y)[0], active

        return piecewise_gradient(loss_and_pattern, theta, eps or EPS_MLP)

    def losses(batch: np.ndarray) -> np.ndarray:  # (4n, n_params) → (4n,): the seed axis
        x, c, mask = scenes.x[None], scenes.c[None], scenes.mask[None]
        r = model.forward(model.views(batch), x, c, mask)[0] - scenes.y
        return 0.5 * np.einsum("sbi,sbi->s", r, r) / scenes.size

    return central_gradient_batched(losses, np.asarray(theta, dtype=np.float64), eps or EPS)


def check_model(
    model: CrossAttention | SlotMLP, theta: np.ndarray, scenes: Scenes, *, eps: float | None = None
) -> dict[str, Any]:
    """Analytic vs numerical ∂L/∂θ for one parameter vector theta (n_params,), on `scenes` (B,).

    Returns the largest relative and absolute differences and both gradients.
    """
    analytic = fused_gradient(model, theta, scenes)[1]
    numeric = _numeric_gradient(model, theta, scenes, eps)
    return {
        "max_rel_error": rel_error(analytic, numeric),
        "max_abs_error": float(np.max(np.abs(analytic - numeric))),
        "analytic": analytic,
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
