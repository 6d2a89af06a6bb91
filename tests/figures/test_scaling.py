from __future__ import annotations

import json
import math

import numpy as np
import pytest

from attnlab.figures import compute_figure, scaling
from attnlab.params import ParamError


def _components(seed: int, d_k: int) -> np.ndarray:
    """The first d_k components of a seed's draws, drawn in one go: (d_k, 200, 17), [..., 0] is q.

    The figure's layout in plain NumPy: components 0–511 from the first generator spawned from
    the seed, 512–1023 from the second.
    """
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2)]
    half = scaling.D_K_MAX // 2
    shape = (scaling.N_DRAWS, 1 + scaling.N_KEYS)
    first = rngs[0].standard_normal((min(d_k, half), *shape))
    return np.concatenate([first, rngs[1].standard_normal((max(d_k - half, 0), *shape))])


@pytest.mark.parametrize("d_k", [1, 20, 512, 513, 1024])
def test_scores_are_the_dot_products_of_the_drawn_vectors_exactly(d_k):
    x = _components(3, d_k)
    want = np.einsum("jd,jdi->di", x[:, :, 0], x[:, :, 1:])  # Σ_j q_j k_ij, (200, 16)
    s = scaling.raw_scores(3, d_k)
    np.testing.assert_array_equal(s, want)  # block-wise drawing and summing change no bit
    assert s.shape == (scaling.N_DRAWS, scaling.N_KEYS)
    q, k = x[:, 5, 0], x[:, 5, 1:]  # draw 5: q (d_k,), keys (d_k, 16)
    np.testing.assert_allclose(s[5], q @ k, atol=1e-12)


def test_the_draws_are_fixed_by_their_seed_and_standard_normal():
    x = _components(7, scaling.D_K_MAX)
    half = scaling.D_K_MAX // 2  # each half of the components has its own generator
    for block in (x[:half], x[half:]):
        assert abs(block.mean()) < 0.01 and abs(block.std() - 1) < 0.01
    np.testing.assert_array_equal(scaling.raw_scores(7, 64), scaling.raw_scores(7, 64))
    assert not np.array_equal(scaling.raw_scores(7, 64), scaling.raw_scores(8, 64))


def test_stops_are_visited_in_order_and_each_matches_a_lone_request():
    stops = dict(scaling.scores_along(5, [300, 2, 64, 2]))
    assert list(stops) == [2, 64, 300]
    for d_k, s in stops.items():
        np.testing.assert_array_equal(s, scaling.raw_scores(5, d_k))
    with pytest.raises(ValueError):
        next(scaling.scores_along(5, [0]))


def test_curves_are_cached_per_seed_within_a_stated_bound():
    assert scaling.curves.cache_parameters()["maxsize"] == scaling.CACHED_SEEDS
    scaling.curves.cache_clear()
    a = scaling.curves(1000)
    assert scaling.curves(1000) is a and scaling.curves.cache_info().currsize == 1


@pytest.mark.parametrize("d_k", [4, 64, 900])
def test_score_spread_grows_like_sqrt_d_k_and_scaling_removes_it(d_k):
    data = scaling.compute(d_k=d_k, scaled=True, seed=1)
    assert data["score_std_theory"] == pytest.approx(math.sqrt(d_k))
    assert data["score_std_unscaled"] / math.sqrt(d_k) == pytest.approx(1, abs=0.15)
    assert data["score_std_scaled"] == pytest.approx(1, abs=0.15)


def test_histograms_count_every_score_with_overflow_in_edge_bins():
    data = scaling.compute(d_k=1024, scaled=False, seed=0)
    n = scaling.N_DRAWS * scaling.N_KEYS
    assert sum(data["hist_unscaled"]) == n and sum(data["hist_scaled"]) == n
    s = scaling.raw_scores(0, 1024)
    edges = data["hist_edges"]
    assert data["hist_unscaled"][0] == np.sum(s < edges[1])
    assert data["hist_unscaled"][-1] == np.sum(s >= edges[-2])
    assert np.sum(np.abs(s) > scaling.HIST_LIMIT) > 0  # there was overflow to count


def test_jacobian_norm_matches_its_closed_form(rng):
    scores = rng.standard_normal((50, 16)) * 3
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    a = e / e.sum(axis=1, keepdims=True)
    # ‖diag(α) − ααᵀ‖_F² = Σα² − 2Σα³ + (Σα²)²
    s2, s3 = (a**2).sum(axis=1), (a**3).sum(axis=1)
    closed = np.sqrt(s2 - 2 * s3 + s2**2)
    max_w, jac = scaling.saturation(scores)
    assert jac == pytest.approx(closed.mean(), rel=1e-12)
    assert max_w == pytest.approx(a.max(axis=1).mean(), rel=1e-12)


def test_one_draw_follows_the_scaled_switch():
    on = scaling.compute(d_k=256, scaled=True, seed=0)["weights_one_draw"]
    off = scaling.compute(d_k=256, scaled=False, seed=0)["weights_one_draw"]
    for w in (on, off):
        assert np.all(np.asarray(w) >= 0) and sum(w) == pytest.approx(1)
    assert max(off) > max(on)  # unscaled is sharper


def test_curves_do_not_depend_on_the_current_setting_and_agree_at_d_k_1():
    a = scaling.compute(d_k=3, scaled=True, seed=0)
    b = scaling.compute(d_k=700, scaled=False, seed=0)
    for key in ("curve_max_weight_unscaled", "curve_jacobian_norm_scaled"):
        assert a[key] == b[key]
    # √1 = 1: at d_k = 1 both modes are the same numbers
    assert a["curve_max_weight_unscaled"][0] == a["curve_max_weight_scaled"][0]
    at_64 = a["grid_d_k"].index(64)
    c = scaling.compute(d_k=64, scaled=True, seed=0)
    assert c["max_weight_unscaled"] == pytest.approx(a["curve_max_weight_unscaled"][at_64])


def test_saturation_shows_without_scaling():
    data = scaling.compute(d_k=1024, scaled=False, seed=0)
    assert data["max_weight_unscaled"] > data["max_weight_scaled"]
    assert data["jacobian_norm_unscaled"] < data["jacobian_norm_scaled"]


def test_figure_is_plain_json():
    json.dumps(compute_figure("scaling", {"d_k": "1024", "scaled": "false"}), allow_nan=False)


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ({"d_k": 0}, "d_k"),
        ({"d_k": 2000}, "d_k"),
        ({"d_k": float("nan")}, "d_k"),
        ({"d_k": 2.5}, "d_k"),
        ({"scaled": "maybe"}, "scaled"),
        ({"seed": -1}, "seed"),
        ({"dk": 64}, "dk"),
    ],
)
def test_invalid_settings_name_the_setting(raw, name):
    with pytest.raises(ParamError) as err:
        compute_figure("scaling", raw)
    assert err.value.name == name
