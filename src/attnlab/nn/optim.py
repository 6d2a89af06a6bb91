"""Adam (Kingma & Ba 2015), in place on a dict of parameter arrays."""

from __future__ import annotations

import numpy as np

Array = np.ndarray


class Adam:
    """Adam with bias correction.

    Each parameter keeps running means of its gradient (m) and squared gradient (v); the step
    m̂/(√v̂ + ε) is roughly ±lr per coordinate whatever the gradient's scale, which is why one
    learning rate (0.01 in FIG 2) suits both the attention model and the MLP.

    Parameters are updated in place, so views into them (the trainer's named views into one
    flat array) stay valid; the update allocates nothing: on FIG 2's tiny models a step costs
    its number of NumPy calls and allocations, not its arithmetic.

    `t` counts the steps taken. It may also be an array with one count per row (the leading
    axis of every parameter): rows that started at different times — several readers' models
    stacked into one array to train together — each keep their own bias correction, computed
    with the same scalar arithmetic as a model trained alone, so a row's numbers are the same
    either way.
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
        self._tmp = {k: np.zeros_like(p) for k, p in params.items()}
        self.t: int | Array = 0

    def _corrections(self) -> tuple[float | Array, float | Array]:
        """lr/(1 − β1^t) and 1/√(1 − β2^t): scalars, or one of each per row, (rows,)."""

        def both(t: int) -> tuple[float, float]:
            return self.lr / (1.0 - self.beta1**t), 1.0 / np.sqrt(1.0 - self.beta2**t)

        if np.ndim(self.t) == 0:
            return both(int(self.t))
        lr_t, inv = np.array([both(int(t)) for t in self.t]).T
        return lr_t, inv

    def step(self, grads: dict[str, Array]) -> None:
        """Update every parameter in place from `grads` (same keys and shapes)."""
        self.t = self.t + 1
        lr_t, inv_sqrt_c2 = self._corrections()  # bias corrections folded into factors
        for name, p in self.params.items():
            g, m, v, tmp = grads[name], self.m[name], self.v[name], self._tmp[name]
            m *= self.beta1
            np.multiply(g, 1.0 - self.beta1, out=tmp)
            m += tmp
            v *= self.beta2
            np.multiply(g, g, out=tmp)
            tmp *= 1.0 - self.beta2
            v += tmp
            # p −= lr/(1 − β1^t) · m / (√v / √(1 − β2^t) + ε)
            np.sqrt(v, out=tmp)
            tmp *= _along_rows(inv_sqrt_c2, p)
            tmp += self.eps
            np.divide(m, tmp, out=tmp)
            tmp *= _along_rows(lr_t, p)
            p -= tmp


def _along_rows(c: float | Array, p: Array) -> float | Array:
    """A scalar as it is; one factor per row (rows,) shaped (rows, 1, …) to broadcast over p."""
    return c if np.ndim(c) == 0 else np.reshape(c, (-1,) + (1,) * (p.ndim - 1))
