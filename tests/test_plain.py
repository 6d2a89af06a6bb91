from __future__ import annotations

import json
import math

import numpy as np
import pytest

from attnlab.plain import plain


def test_numpy_becomes_json():
    data = {"a": np.arange(3), "b": np.float32(0.5), "c": [np.int64(2), (np.bool_(True),)]}
    out = plain(data)
    assert out == {"a": [0, 1, 2], "b": 0.5, "c": [2, [True]]}
    json.dumps(out, allow_nan=False)


def test_digits_round_floats():
    assert plain([math.pi], digits=3) == [3.14]


@pytest.mark.parametrize("bad", [math.nan, math.inf, np.array([1.0, np.inf])])
def test_non_finite_numbers_are_refused(bad):
    with pytest.raises(ValueError, match="non-finite"):
        plain({"x": bad})


def test_unknown_types_are_refused():
    with pytest.raises(TypeError):
        plain({"x": object()})
