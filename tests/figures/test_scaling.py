from __future__ import annotations

import json
import math

import numpy as np
import pytest

from attnlab.figures import compute_figure, scaling
from attnlab.params import ParamError


def _plain_draws(seed: int, d_k: int) -> tuple[np.ndarray, np.ndarray]:
    """The figure's draws in plain NumPy: queries (d_k, 200) component-major, z (200, 16)."""
    rng_q, rng_z = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    return rng_q.standard_normal((d_k, scaling.N_DRAWS)), rng_z.standard_normal((200, 16))


@pytest.mark.parametrize("d_k", [1, 20, 513, 1024])
def test_scores_are_the_query_length_times_each_keys_coordinate_along_it(d_k):
    q, z = _plain_draws(3, d_k)
    s = scaling.raw_scores(3, d_k)
    assert s.shape == (scaling.N_DRAWS, scaling.N_KEYS)
    np.testing.assert_allclose(s, np.linalg.norm(q, axis=0)[:, None] * z, rtol=1e-12)


def test_a_dot_product_is_the_query_length_times_the_keys_first_coordinate(rng):
    """The identity behind the figure: rotate the basis so that its first axis is q/‖q‖."""
    q, k = rng.standard_normal(64), rng.standard_normal((64, 16))
    u = q / np.linalg.norm(q) - np.eye(64)[0]
    rotation = np.eye(64) - 2 * np.outer(u, u) / (u @ u)  # Householder: sends q/‖q‖ to e_0
    k_rotated = rotation @ k  # still iid N(0, 1): the distribution does not see the basis
    np.testing.assert_allclose(q @ k, np.linalg.norm(q) * k_rotated[0], rtol=1e-10)


@pytest.mark.parametrize("d_k", [1, 64])
def test_scores_have_the_distribution_of_drawn_dot_products(d_k):
    """Against q·k with every component drawn: spread and saturation within sampling error."""
    rng = np.random.default_rng(11)
    q, k = rng.standard_normal((2000, d_k)), rng.standard_normal((2000, d_k, 16))
    drawn = np.einsum("nj,nji->ni", q, k)  # 2000 draws of 16 scores
    ours = np.concatenate([scaling.raw_scores(seed, d_k) for seed in range(10)])  # 2000 draws
    assert ours.std() == pytest.approx(drawn.std(), rel=0.05)
    # the 16 scores of a draw share one query: their correlation structure must match too
    for x in (ours, drawn):
        x /= math.sqrt(d_k)
    assert scaling.saturation(ours)[0] == pytest.approx(scaling.saturation(drawn)[0], abs=0.02)
    spread = [np.median(x.max(axis=1) - x.min(axis=1)) for x in (ours, drawn)]
    assert spread[0] == pytest.approx(spread[1], rel=0.05)


def test_the_draws_are_fixed_by_their_seed_and_a_smaller_d_k_reads_a_prefix():
    np.testing.assert_array_equal(scaling.raw_scores(7, 64), scaling.raw_scores(7, 64))
    assert not np.array_equal(scaling.raw_scores(7, 64), scaling.raw_scores(8, 64))
    q, z = _plain_draws(7, scaling.D_K_MAX)
    np.testing.assert_allclose(
        scaling.raw_scores(7, 64), np.linalg.norm(q[:64], axis=0)[:, None] * z, rtol=1e-12
    )


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


def test_the_kept_draws_give_the_scores_drawn_afresh_to_the_bit():
    for seed in (0, 7):
        afresh = dict(scaling.scores_along(seed, [1, 2, 63, 64, 500, scaling.D_K_MAX]))
        for d_k, scores in afresh.items():
            np.testing.assert_array_equal(scaling.raw_scores(seed, d_k), scores)


def test_the_curves_are_those_of_the_scores_drawn_afresh():
    afresh = scaling.curves_from(scaling.scores_along(11, scaling.GRID_D_K))
    assert scaling.curves(11) == {k: tuple(v) for k, v in afresh.items()}
