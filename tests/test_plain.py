from __future__ import annotations

import json
import math

import numpy as np
import pytest

from attnlab.plain import Encoded, dumps, encode, plain, plain_reference


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


def _same(obj) -> None:
    """plain's fast paths give what the readable definition gives, to the bit and the type."""
    fast, slow = plain(obj), plain_reference(obj)
    assert fast == slow
    assert json.dumps(fast) == json.dumps(slow)
    assert repr(fast) == repr(slow)


def test_fast_paths_equal_the_readable_definition():
    rng = np.random.default_rng(3)
    _same(rng.standard_normal((7, 5, 3)))
    _same(rng.standard_normal(11).astype(np.float32))
    _same(np.array([-0.0, 1e-310, 5e-324, 1.7976931348623157e308]))
    _same(rng.integers(-(2**62), 2**62, size=(4, 4)))
    _same(np.arange(6, dtype=np.uint8).reshape(2, 3))
    _same(np.array([True, False]))
    _same(np.float64(2.5))
    _same(np.array(3.25))
    _same([0.1, 2.0, -0.0, 1e300])
    _same((1, 2, 3))
    _same([["a", "b"], [True, False], [1, 2.0]])
    _same([1, 2.5, np.float64(3.0), True])  # mixed: the element by element walk
    _same({"a": [np.int64(1), {"b": (2.0, 3)}], 4: rng.random(3).tolist(), "c": None, "d": "x"})


@pytest.mark.parametrize(
    "bad", [[1.0, math.nan], (math.inf,), np.array([[1.0], [-np.inf]]), np.float32(np.nan)]
)
def test_fast_paths_refuse_non_finite_numbers(bad):
    with pytest.raises(ValueError, match="non-finite"):
        plain(bad)


def test_encoded_parts_are_spliced_as_written_once():
    table = Encoded(np.arange(6.0).reshape(2, 3))
    data = {"table": table, "nested": {"t": table, "n": np.int64(4)}, "x": [1.5, table]}
    assert plain(data) == plain_reference(data)
    assert encode(data) == dumps(plain(data))
    assert json.loads(encode(data))["nested"]["t"] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
