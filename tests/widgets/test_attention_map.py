from __future__ import annotations

import numpy as np
import pytest

from attnlab.nn import attention
from attnlab.widgets import ParamError, attention_map


def test_softmax_weights_are_drawn_with_their_labels() -> None:
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    _, weights = attention(q, k, v)
    w = attention_map(weights, queries=["a", "b", "c"])
    assert w.figure == "attention-map" and w.settings == {} and w.params == []
    np.testing.assert_array_equal(w.data["weights"], weights)
    assert w.data["queries"] == ["a", "b", "c"]
    assert w.data["keys"] == ["k1", "k2", "k3", "k4", "k5"]


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ([[0.5, 0.6]], "row 0 is not a distribution"),
        ([[1.0, 0.0], [1.5, -0.5]], "row 1 is not a distribution"),
        ([1.0], "expected shape"),
        ([[np.nan, 1.0]], "must be finite"),
        (np.full((1, 129), 1 / 129), "each 1 to 128"),
    ],
)
def test_rows_must_be_distributions(weights, message: str) -> None:
    with pytest.raises(ParamError, match=message):
        attention_map(weights)


def test_labels_must_match_and_updates_redraw() -> None:
    with pytest.raises(ValueError, match="keys: expected 2 labels"):
        attention_map([[0.5, 0.5]], keys=["x"])
    w = attention_map([[0.5, 0.5]], keys=["x", "y"])
    w.weights = [[0.25, 0.75]]
    assert w.data["weights"] == [[0.25, 0.75]] and w.data["keys"] == ["x", "y"]
    w.update(np.eye(3))
    assert w.data["keys"] == ["k1", "k2", "k3"]
    assert w.figure_png()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("keys", "rotation"), [(["x", "y"], 0), (["k1", "k2"], 0), (["a long name", "b"], 45)]
)
def test_key_labels_that_fit_their_column_stand_upright(keys, rotation: float) -> None:
    # a one-letter "x" slanted by 45° reads as "+"
    ax = attention_map([[0.5, 0.5]], keys=keys).map_figure().axes[0]
    assert [label.get_rotation() for label in ax.get_xticklabels()] == [rotation] * 2
