from __future__ import annotations

import json

import numpy as np
import pytest

from attnlab.figures import compute_figure, describe_figure, kv_cache
from attnlab.params import ParamError


def test_default_is_causal_with_cache_after_the_last_action():
    data = compute_figure("kv-cache")
    assert data["settings"] == {"mask": "causal", "cache": True, "step": 8, "seed": 0}
    assert data["tokens"][:6] == ["I1", "I2", "I3", "I4", "P", "T"] and len(data["tokens"]) == 14
    assert data["count_total"] == data["count_so_far"] == 105
    assert data["rows_computed"] == [13] and data["count_now"] == 14
    json.dumps(data)


def test_the_view_s_constants_are_the_sequence_the_data_is_about():
    # the view sizes and labels its grid from these before its first answer
    constants = describe_figure("kv-cache")["constants"]
    for step in (0, 8):
        data = compute_figure("kv-cache", {"step": step})
        assert constants == {"tokens": data["tokens"], "n_prefix": data["n_prefix"]}
        assert len(data["cells"]) == len(constants["tokens"])


@pytest.mark.parametrize("mask", ["causal", "block", "bidirectional"])
@pytest.mark.parametrize("cache", [True, False])
def test_cells_agree_with_the_counts(mask, cache):
    for step in (0, 3, 8):
        data = compute_figure("kv-cache", {"mask": mask, "cache": cache, "step": step})
        cells = np.array(data["cells"])
        assert cells.shape == (14, 14) and set(np.unique(cells)) <= set(data["states"])
        assert (cells == "computed").sum() == data["count_now"]
        assert data["passes"][step]["computed"] == data["count_now"]
        assert data["count_so_far"] == sum(p["computed"] for p in data["passes"][: step + 1])
        assert (cells == "stale").sum() == data["stale_now"]
        assert (cells == "future").sum() == 14 * 14 - (6 + step) ** 2
        allowed = np.array(data["mask_matrix"])
        assert not ((cells == "computed") & ~allowed).any()


def test_totals_for_every_combination():
    totals = compute_figure("kv-cache")["totals"]
    assert totals["causal"] == {"cached": 105, "uncached": 525}
    assert totals["block"] == {"cached": 120, "uncached": 660}
    assert totals["bidirectional"]["uncached"] == 960


def test_only_bidirectional_with_cache_has_stale_cells():
    for mask in ("causal", "block", "bidirectional"):
        for cache in (True, False):
            data = compute_figure("kv-cache", {"mask": mask, "cache": cache, "step": 5})
            stale = sum(p["stale"] for p in data["passes"])
            assert (stale > 0) == (mask == "bidirectional" and cache)


def test_the_real_model_agrees_only_when_the_mask_allows_caching():
    model = kv_cache.model_check(7)
    assert model["max_abs_diff"]["causal"] <= 1e-12 and model["max_abs_diff"]["block"] <= 1e-12
    assert model["max_abs_diff"]["bidirectional"] > 1e-3
    assert model["exact"] == {"causal": True, "block": True, "bidirectional": False}
    assert model["kv_diff_by_layer"]["bidirectional"][0] <= 1e-12  # layer 1 is still right
    assert model["kv_diff_by_layer"]["bidirectional"][1] > 1e-3


@pytest.mark.parametrize("mask", ["causal", "block", "bidirectional"])
def test_the_answer_checks_the_shown_mask_as_the_three_mask_check_does(mask):
    data = compute_figure("kv-cache", {"mask": mask, "seed": 7})
    every = kv_cache.model_check(7)
    shown = data["model"]
    for name in ("max_abs_diff", "output_scale", "exact", "kv_diff_by_layer"):
        assert shown[name] == {mask: every[name][mask]}  # one process: the same calls, exactly
    assert data["cache_exact"] is every["exact"][mask]
    assert {k: shown[k] for k in ("layers", "d", "n_heads", "tolerance")} == {
        k: every[k] for k in ("layers", "d", "n_heads", "tolerance")
    }


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ({"step": 9}, "step"),
        ({"step": -1}, "step"),
        ({"mask": "sliding"}, "mask"),
        ({"cache": "perhaps"}, "cache"),
        ({"seed": float("nan")}, "seed"),
        ({"seed": 10**9}, "seed"),
    ],
)
def test_invalid_settings_name_the_setting(raw, name):
    with pytest.raises(ParamError) as err:
        compute_figure("kv-cache", raw)
    assert err.value.name == name
