from __future__ import annotations

import math

import pytest

from attnlab.params import Param, ParamError, parse_assignments, validate

PARAMS = (
    Param("d_k", "int", 64, "key width", lo=1, hi=1024, log=True),
    Param("temp", "float", 1.0, lo=0.1, hi=10),
    Param("scaled", "bool", True),
    Param("mode", "choice", "soft", choices=("soft", "hard")),
    Param("q", "vector", [1.0, 0.0], lo=-8, hi=8, length=2),
)


def test_defaults_are_filled_in():
    assert validate(PARAMS, {}) == {
        "d_k": 64,
        "temp": 1.0,
        "scaled": True,
        "mode": "soft",
        "q": [1.0, 0.0],
    }


def test_strings_from_a_url_or_the_cli_are_coerced():
    out = validate(PARAMS, {"d_k": "256", "temp": "2.5", "scaled": "false", "q": "1.5, -2"})
    assert out["d_k"] == 256 and out["temp"] == 2.5 and out["scaled"] is False
    assert out["q"] == [1.5, -2.0]


@pytest.mark.parametrize(
    ("raw", "name", "fragment"),
    [
        ({"d_k": 0}, "d_k", "[1, 1024]"),
        ({"d_k": 2000}, "d_k", "out of range"),
        ({"d_k": 2.5}, "d_k", "not an integer"),
        ({"d_k": "abc"}, "d_k", "an integer in [1, 1024]"),
        ({"d_k": True}, "d_k", "expected"),
        ({"temp": math.nan}, "temp", "finite"),
        ({"temp": "inf"}, "temp", "finite"),
        ({"temp": 10**400}, "temp", "expected"),
        ({"scaled": "maybe"}, "scaled", "true or false"),
        ({"mode": "foo"}, "mode", "one of soft, hard"),
        ({"q": [1.0]}, "q", "2 numbers"),
        ({"q": [1.0, 99.0]}, "q", "out of range"),
        ({"q": {"x": 1}}, "q", "expected"),
        ({"dk": 3}, "dk", "unknown setting"),
    ],
)
def test_bad_values_name_the_setting_and_its_range(raw, name, fragment):
    with pytest.raises(ParamError) as info:
        validate(PARAMS, raw)
    assert info.value.name == name
    assert fragment in str(info.value)
    assert str(info.value).startswith(f"{name}: ")


def test_describe_is_plain_data():
    d = PARAMS[0].describe()
    assert d == {
        "name": "d_k",
        "kind": "int",
        "default": 64,
        "help": "key width",
        "range": "an integer in [1, 1024]",
        "min": 1,
        "max": 1024,
        "log": True,
    }
    assert PARAMS[3].describe()["choices"] == ["soft", "hard"]


def test_parse_assignments():
    assert parse_assignments(["d_k=64", " mode = hard "]) == {"d_k": "64", "mode": "hard"}
    with pytest.raises(ParamError, match="key=value"):
        parse_assignments(["d_k"])
