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


def test_adam_with_a_count_per_row_matches_each_row_trained_alone(rng):
    """Rows that started at different times, stacked: each row moves exactly as it would alone."""
    starts = [0, 3, 7]  # steps each row has already taken
    alone = [Adam({"w": rng.normal(size=(1, 5))}) for _ in starts]
    for opt, n in zip(alone, starts, strict=True):
        for _ in range(n):
            opt.step({"w": rng.normal(size=(1, 5))})
    w = np.concatenate([opt.params["w"] for opt in alone])
    stacked = Adam({"w": w})
    stacked.m["w"][:] = np.concatenate([opt.m["w"] for opt in alone])
    stacked.v["w"][:] = np.concatenate([opt.v["w"] for opt in alone])
    stacked.t = np.array(starts)
    for _ in range(4):
        g = rng.normal(size=(3, 5))
        stacked.step({"w": g})
        for i, opt in enumerate(alone):
            opt.step({"w": g[i : i + 1]})
    for i, opt in enumerate(alone):
        np.testing.assert_array_equal(w[i], opt.params["w"][0])  # bit for bit
    np.testing.assert_array_equal(stacked.t, [4, 7, 11])
