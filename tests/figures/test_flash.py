from __future__ import annotations

import json

import numpy as np
import pytest

from attnlab.figures import compute_figure
from attnlab.params import ParamError


def test_defaults_are_json_and_show_the_first_tile():
    data = compute_figure("flash")
    assert data["settings"] == {"n": 12, "tile": 4, "causal": False, "step": 1, "row": 11}
    assert data["n_tiles"] == 3 and len(data["tiles"]) == 3
    assert data["memory"] == {"held_now": 48, "peak": 48, "full": 144, "state": 12 * 5}
    assert data["final"]["max_abs_diff"] < 1e-12
    json.dumps(data, allow_nan=False)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("tile", [1, 3, 5, 12])
def test_the_grid_shows_what_the_engine_held(tile, causal):
    T = -(-12 // tile)
    for step in range(T + 1):
        data = compute_figure("flash", {"tile": tile, "causal": causal, "step": step})
        cells = np.array(data["cells"])
        assert cells.shape == (12, 12) and set(np.unique(cells)) <= set(data["states"])
        held = ((cells == "held") | (cells == "masked")) & ((np.arange(12) // tile) == step - 1)
        assert held.sum() == data["memory"]["held_now"]
        assert data["blocks"]["so_far"] == sum(t["blocks"] for t in data["tiles"][:step])
        assert (data["now"] is None) == (step == 0)


def test_the_row_follows_the_trace_to_the_full_output():
    data = compute_figure("flash", {"tile": 1, "step": 12, "row": 11})
    trace, now = data["trace"], data["now"]
    assert len(trace["m"]) == 12 and now["m"] == trace["m"][-1]
    np.testing.assert_allclose(now["o"], data["final"]["full"], atol=1e-12)
    assert trace["grew"][0] and not all(trace["grew"])
    for grew, rescale, i in zip(trace["grew"], trace["rescale"], range(12), strict=True):
        if i:
            assert grew == (rescale < 1)  # rescaled exactly when the maximum rose
    assert all(b >= a for a, b in zip(trace["m"], trace["m"][1:], strict=False))


def test_causal_rows_skip_the_tiles_after_them():
    data = compute_figure("flash", {"tile": 4, "causal": True, "step": 3, "row": 2})
    assert data["trace"]["read"] == [True, False, False]
    assert data["trace"]["rescale"][1:] == [1.0, 1.0]
    assert data["blocks"] == {"so_far": 6, "computed": 6, "total": 9}


def test_settings_that_do_not_fit_each_other_mean_their_limits():
    assert compute_figure("flash", {"n": 5, "tile": 9})["shown"] == {"tile": 5, "step": 1, "row": 4}
    data = compute_figure("flash", {"step": 32, "row": 31})
    assert data["shown"] == {"tile": 4, "step": 3, "row": 11}
    assert data["memory"]["held_now"] == data["tiles"][-1]["scores_held"]
    assert data["settings"]["step"] == 32  # what was asked stays on record


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"n": 33}, r"n: 33 is out of range"),
        ({"n": 1}, r"n: 1 is out of range"),
        ({"tile": 0}, r"tile: 0 is out of range"),
        ({"step": -1}, r"step: -1 is out of range"),
        ({"row": 32}, r"row: 32 is out of range"),
        ({"causal": "maybe"}, r"causal: expected true or false"),
    ],
)
def test_settings_out_of_range_are_refused_clearly(settings, message):
    with pytest.raises(ParamError, match=message):
        compute_figure("flash", settings)
