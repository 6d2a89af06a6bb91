"""Adam (Kingma & Ba 2015), in place on a dict of parameter arrays."""

from __future__ import annotations

import numpy as np

Array = np.ndarray


class Adam:
    """Adam with bias correction.

    Each parameter keeps running means of its gradient (m) and squared gradient (v); the step
    m̂/(√v̂ + ε) is roughly ±lr per coordinate whatever the gradient's scale, which is why one
    learning rate (0.01 in FIG 2) suits both the attention model and the MLP.
    """

    def __init__(
        self,
        params: dict[str, Array],
        lr: float = 0.01,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        self.params = params
        self.lr, (self.beta1, self.beta2), self.eps = lr, betas, eps
        self.m = {k: np.zeros_like(p) for k, p in params.items()}
        self.v = {k: np.zeros_like(p) for k, p in params.items()}
        self.t = 0

    def step(self, grads: dict[str, Array]) -> None:
        """Update every parameter in place from `grads` (same keys and shapes)."""
        self.t += 1
        c1 = 1.0 - self.beta1**self.t
        c2 = 1.0 - self.beta2**self.t
        for name, p in self.params.items():
            g = grads[name]
            m, v = self.m[name], self.v[name]
            m *= self.beta1
            m += (1.0 - self.beta1) * g
            v *= self.beta2
            v += (1.0 - self.beta2) * g * g
            p -= self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps)
