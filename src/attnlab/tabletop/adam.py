"""Adam (the lesson's §6.3 optimiser, lr 0.01 in FIG 2) on one flat parameter array.

Adam works element by element, so both models of every seed of a sweep can share a single
(S, n_params) array and one update of a dozen array operations: on FIG 2's tiny models the cost
of a step is the number of NumPy calls, not the arithmetic. The update is PyTorch's:
m̂ = m / (1 − β1^t), v̂ = v / (1 − β2^t), θ ← θ − lr · m̂ / (√v̂ + ε).
"""

from __future__ import annotations

import numpy as np


class FlatAdam:
    """Adam state for one parameter array; `update` changes theta in place."""

    def __init__(
        self,
        shape: tuple[int, ...],
        *,
        lr: float = 0.01,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-8,
    ) -> None:
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps
        self.m = np.zeros(shape)
        self.v = np.zeros(shape)
        self.t = 0
        self._tmp = np.zeros(shape)

    def update(self, theta: np.ndarray, grad: np.ndarray) -> None:
        self.t += 1
        m, v, tmp = self.m, self.v, self._tmp
        m *= self.beta1
        m += (1.0 - self.beta1) * grad
        v *= self.beta2
        np.multiply(grad, grad, out=tmp)
        tmp *= 1.0 - self.beta2
        v += tmp
        # θ −= lr/(1−β1^t) · m / (√v / √(1−β2^t) + ε)
        np.sqrt(v, out=tmp)
        tmp *= 1.0 / np.sqrt(1.0 - self.beta2**self.t)
        tmp += self.eps
        np.divide(m, tmp, out=tmp)
        tmp *= self.lr / (1.0 - self.beta1**self.t)
        theta -= tmp
