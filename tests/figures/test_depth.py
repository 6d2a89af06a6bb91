from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from attnlab.figures import compute_figure
from attnlab.figures.depth import cosine_matrix, token_diversity
from attnlab.params import ParamError


def test_default_data_shapes_and_ranges():
    data = compute_figure("depth")
    depth = data["settings"]["depth"]
    assert data["layers"] == list(range(depth + 1))
    assert len(data["diversity"]) == len(data["rms"]) == len(data["cosine_all"]) == depth + 1
    assert all(0 <= v <= 1 for v in data["diversity"])
    cos = np.array(data["cosine"])
    assert cos.shape == (8, 8)
    np.testing.assert_allclose(cos, cos.T)
    np.testing.assert_allclose(np.diag(cos), 1.0)
    assert data["parts"]["pre_ln"] and data["parts"]["residual"]
    json.dumps(data)  # plain, JSON-safe


@pytest.mark.parametrize(
    ("residual", "norm", "mlp"),
    list(itertools.product([True, False], ["none", "pre", "post"], [True, False])),
)
def test_every_switch_combination_is_finite_at_full_depth(residual, norm, mlp):
    data = compute_figure("depth", {"residual": residual, "norm": norm, "mlp": mlp, "depth": 24})
    assert all(np.isfinite(data["rms"])) and data["parts"]["mlp"] == mlp
    assert data["parts"]["post_ln"] == (norm == "post")


def test_a_shallower_stack_is_the_start_of_the_deeper_one():
    deep = compute_figure("depth", {"depth": 24, "seed": 3})
    shallow = compute_figure("depth", {"depth": 5, "seed": 3})
    np.testing.assert_array_equal(shallow["rms"], deep["rms"][:6])
    np.testing.assert_array_equal(shallow["cosine_all"], deep["cosine_all"][:6])


def test_layer_picker_is_clamped_to_the_depth():
    data = compute_figure("depth", {"depth": 4, "layer": 20})
    assert data["layer_shown"] == 4
    assert data["cosine"] == data["cosine_all"][4]
    assert data["rms_at_layer"] == data["rms"][4]
    assert compute_figure("depth", {"layer": 0})["diversity_at_layer"] == data["diversity"][0]


def test_seed_changes_the_weights():
    a, b = compute_figure("depth", {"seed": 1}), compute_figure("depth", {"seed": 2})
    assert a["rms"][-1] != b["rms"][-1]


def test_no_residual_collapses_the_tokens():
    data = compute_figure("depth", {"residual": False, "depth": 6, "layer": 6})
    assert data["diversity_at_layer"] < 1e-10
    assert data["min_cosine_at_layer"] > 1 - 1e-9
    assert data["diversity"][0] > 0.5  # the input tokens were distinct


def test_diversity_and_cosine_helpers():
    x = np.tile(np.arange(1.0, 5.0), (3, 1))
    assert token_diversity(x) == 0.0
    assert token_diversity(np.eye(4)) == pytest.approx(np.sqrt(3 / 4))
    assert token_diversity(np.zeros((3, 4))) == 0.0
    cos = cosine_matrix(np.array([[1.0, 0.0], [0.0, 2.0], [-3.0, 0.0]]))
    np.testing.assert_allclose(cos, [[1, 0, -1], [0, 1, 0], [-1, 0, 1]], atol=1e-15)


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ({"depth": 25}, "depth"),
        ({"depth": 0}, "depth"),
        ({"layer": -1}, "layer"),
        ({"norm": "batch"}, "norm"),
        ({"residual": "maybe"}, "residual"),
        ({"seed": float("nan")}, "seed"),
        ({"depth": "nan"}, "depth"),
        ({"heads": 4}, "heads"),
    ],
)
def test_invalid_settings_name_the_setting(raw, name):
    with pytest.raises(ParamError) as err:
        compute_figure("depth", raw)
    assert err.value.name == name and name in str(err.value)
