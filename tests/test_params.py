from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from attnlab.params import Param, ParamError, coerce, parse_assignments, validate

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


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ({"scaled": 0}, "scaled"),
        ({"scaled": "true"}, "scaled"),
        ({"d_k": "2"}, "d_k"),
        ({"d_k": True}, "d_k"),
        ({"temp": "2.5"}, "temp"),
        ({"mode": ["soft"]}, "mode"),
        ({"q": "1,0"}, "q"),
        ({"q": [1.0, "0"]}, "q"),
        ({"q": [True, 0.0]}, "q"),
    ],
)
def test_json_values_are_taken_strictly_for_their_type(raw, name):
    with pytest.raises(ParamError) as info:
        validate(PARAMS, raw, "json")
    assert info.value.name == name


def test_json_values_of_the_right_type_are_taken():
    out = validate(PARAMS, {"d_k": 256, "temp": 2, "scaled": False, "q": [1, -2.5]}, "json")
    assert out == {"d_k": 256, "temp": 2.0, "scaled": False, "mode": "soft", "q": [1.0, -2.5]}
    assert validate(PARAMS, {"d_k": 8.0}, "json")["d_k"] == 8  # JSON Schema: 8.0 is an integer
    heads = (Param("heads", "choice", 1, choices=(1, 2, 4)),)
    assert validate(heads, {"heads": 2}, "json") == {"heads": 2}
    assert validate(heads, {"heads": 2.0}, "json") == {"heads": 2}
    for bad in ("2", True, 2.5):
        with pytest.raises(ParamError):
            validate(heads, {"heads": bad}, "json")
    assert validate(heads, {"heads": "2"}) == {"heads": 2}  # text: "2" is read as 2
    assert validate(PARAMS, {"scaled": "false", "q": "1,0"}) == {**validate(PARAMS, {}),
                    "scaled": False, "q": [1.0, 0.0]}  # fmt: skip


SHARED = json.loads((Path(__file__).parent / "cases" / "settings.json").read_text("utf-8"))


def _param(spec: dict[str, Any]) -> Param:
    return Param(spec["name"], spec["kind"], spec["default"], lo=spec.get("min"),
                 hi=spec.get("max"), choices=tuple(spec.get("choices", ())),
                 length=spec.get("length", 0))  # fmt: skip


@pytest.mark.parametrize(("spec", "text", "value"), SHARED["cases"])
def test_text_is_read_as_the_page_reads_its_url(spec: str, text: str, value: Any) -> None:
    """The shared cases (static/js/lib/state.js meets them in tests/e2e/test_shared_cases.py)."""
    param = _param(SHARED["specs"][spec])
    if value is None:
        with pytest.raises(ParamError):
            coerce(param, text, "text")
    else:
        assert coerce(param, text, "text") == value
