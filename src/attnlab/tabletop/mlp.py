"""The slot MLP, FIG 2's baseline (§3): 60 → 64 → 64 → 2 with ReLU, 8194 parameters.

Its input is the scene row of `scenes.py`: six fixed slots of 8 numbers (objects in scene order,
empty slots zero) followed by the 12-number instruction, 6 · 8 + 12 = 60. It must learn the rule
"find the slot whose colour matches the instruction" once per slot, and the sixth slot is always
zero in training, which is why it has nothing to say about 6-object scenes.

Same conventions as `model.py`: parameters of S seeds in one (S, n_params) array, a leading seed
axis on every array, `forward` returns a cache and `backward` writes the gradient into a buffer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from attnlab.tabletop.scenes import MLP_INPUT_DIM

HIDDEN = 64
D_OUT = 2


class MLPParams(NamedTuple):
    W1: np.ndarray  # (S, 60, 64)
    b1: np.ndarray  # (S, 64)
    W2: np.ndarray  # (S, 64, 64)
    b2: np.ndarray  # (S, 64)
    W3: np.ndarray  # (S, 64, 2)
    b3: np.ndarray  # (S, 2)


class MLPCache(NamedTuple):
    rows: np.ndarray  # (S, B, 60)
    a1: np.ndarray  # (S, B, 64) pre-activations
    h1: np.ndarray
    a2: np.ndarray
    h2: np.ndarray


_SHAPES = {
    "W1": (MLP_INPUT_DIM, HIDDEN),
    "b1": (HIDDEN,),
    "W2": (HIDDEN, HIDDEN),
    "b2": (HIDDEN,),
    "W3": (HIDDEN, D_OUT),
    "b3": (D_OUT,),
}


@dataclass(frozen=True)
class SlotMLP:
    """Layout and kernels of the slot MLP (no state: parameters are passed)."""

    def sizes(self) -> dict[str, int]:
        """Parameter counts by named part; their sum is 8194."""
        return {name: int(np.prod(shape)) for name, shape in _SHAPES.items()}

    @property
    def n_params(self) -> int:
        return sum(self.sizes().values())

    def views(self, theta: np.ndarray) -> MLPParams:
        """Named views into theta (S, n_params); writing to a view writes theta."""
        out, at = {}, 0
        for name, shape in _SHAPES.items():
            size = int(np.prod(shape))
            out[name] = theta[:, at : at + size].reshape(theta.shape[0], *shape)
            at += size
        return MLPParams(**out)

    def init(self, rng: np.random.Generator) -> np.ndarray:
        """He init (variance 2/fan_in) for the two ReLU layers, 1/fan_in for the linear output."""
        theta = np.zeros((1, self.n_params))
        p = self.views(theta)
        for w, gain in ((p.W1, 2.0), (p.W2, 2.0), (p.W3, 1.0)):
            w[...] = rng.normal(0.0, np.sqrt(gain / w.shape[-2]), size=w.shape)
        return theta[0]

    def forward(self, params: MLPParams, rows: np.ndarray) -> tuple[np.ndarray, MLPCache]:
        """ŷ (S, B, 2) for scene rows (S|1, B, 60); params: views of theta (see `views`)."""
        W1, b1, W2, b2, W3, b3 = params
        a1 = np.matmul(rows, W1)
        a1 += b1[:, None, :]
        h1 = np.maximum(a1, 0.0)
        a2 = np.matmul(h1, W2)
        a2 += b2[:, None, :]
        h2 = np.maximum(a2, 0.0)
        y_hat = np.matmul(h2, W3)
        y_hat += b3[:, None, :]
        return y_hat, MLPCache(rows, a1, h1, a2, h2)

    def backward(self, g: np.ndarray, cache: MLPCache, params: MLPParams, grads: MLPParams) -> None:
        """Write ∂L/∂θ into the views `grads`, given g = ∂L/∂ŷ (S, B, 2)."""
        rows, a1, h1, a2, h2 = cache
        _, _, W2, _, W3, _ = params
        dW1, db1, dW2, db2, dW3, db3 = grads
        np.matmul(h2.swapaxes(-1, -2), g, out=dW3)
        np.sum(g, axis=1, out=db3)
        da2 = np.matmul(g, W3.swapaxes(-1, -2))
        da2 *= a2 > 0  # ReLU passes the gradient where it was active
        np.matmul(h1.swapaxes(-1, -2), da2, out=dW2)
        np.sum(da2, axis=1, out=db2)
        da1 = np.matmul(da2, W2.swapaxes(-1, -2))
        da1 *= a1 > 0
        np.matmul(rows.swapaxes(-1, -2), da1, out=dW1)
        np.sum(da1, axis=1, out=db1)
