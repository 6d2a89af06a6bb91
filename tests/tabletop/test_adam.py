"""The flat Adam of the trainer (tabletop/adam.py) equals the engine's Adam (attnlab.nn.optim)."""

from __future__ import annotations

import numpy as np

from attnlab.nn import Adam
from attnlab.tabletop.adam import FlatAdam


def test_flat_adam_equals_the_engine_adam(rng):
    theta = rng.normal(size=(3, 50))
    reference = {"theta": theta.copy()}
    ours, theirs = FlatAdam(theta.shape, lr=0.01), Adam(reference, lr=0.01)
    for _ in range(30):
        g = rng.normal(size=theta.shape) * rng.choice([1e-3, 1.0, 1e2], size=theta.shape)
        ours.update(theta, g)
        theirs.step({"theta": g})
    np.testing.assert_allclose(theta, reference["theta"], rtol=1e-12, atol=1e-14)


def test_first_step_moves_every_coordinate_by_lr(rng):
    theta = np.zeros((1, 10))
    FlatAdam(theta.shape, lr=0.01).update(theta, rng.normal(size=(1, 10)))
    np.testing.assert_allclose(np.abs(theta), 0.01, rtol=1e-5)
