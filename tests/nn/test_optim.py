from __future__ import annotations

import numpy as np

from attnlab.nn import Adam


def test_adam_first_step_moves_each_coordinate_by_lr():
    # With bias correction the first step is lr · g/|g| per coordinate, whatever |g| is.
    p = {"w": np.array([1.0, -2.0, 3.0])}
    Adam(p, lr=0.1).step({"w": np.array([5.0, -0.001, 0.0])})
    np.testing.assert_allclose(p["w"], [0.9, -1.9, 3.0], atol=1e-6)


def test_adam_minimises_a_quadratic():
    p = {"w": np.array([3.0, -4.0])}
    opt = Adam(p, lr=0.05)
    for _ in range(2000):
        opt.step({"w": 2 * p["w"]})
    assert np.all(np.abs(p["w"]) < 1e-3)


def test_adam_updates_in_place_so_views_stay_valid(rng):
    # The trainer hands Adam one flat array and reads the models' weights through views of it.
    theta = rng.normal(size=(3, 10))
    view = theta[:, :4]
    before = view.copy()
    Adam({"theta": theta}, lr=0.01).step({"theta": rng.normal(size=theta.shape)})
    np.testing.assert_allclose(np.abs(view - before), 0.01, rtol=1e-5)  # first step: ±lr each
