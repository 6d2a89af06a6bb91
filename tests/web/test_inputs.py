"""Reading client input: every malformed JSON is an InputError, never an exception that escapes."""

from __future__ import annotations

import json
import math

import pytest

from attnlab.params import Param, ParamError
from attnlab.web.inputs import InputError, checked, error_response, parse_json, printable


def test_long_integers_become_floats_that_validation_can_refuse() -> None:
    assert parse_json("123456789012345678") == 123456789012345678
    assert math.isinf(parse_json("9" * 400))
    assert parse_json("-" + "9" * 20) == -1e20


@pytest.mark.parametrize("text", ["{", "", "[1,]", b"\xff", "[" * 20_000, '{"a": 1} x'])
def test_malformed_json_is_an_input_error(text) -> None:
    with pytest.raises(InputError) as err:
        parse_json(text, where=("message",))
    assert err.value.loc == ("message",)
    assert err.value.status == 422


def test_checked_turns_a_param_error_into_one_at_its_place() -> None:
    def refuse() -> None:
        raise ParamError("d_k", "2000 is out of range")

    with pytest.raises(InputError) as err:
        checked("query", refuse)
    assert err.value.loc == ("query", "d_k")
    assert err.value.msg == "d_k: 2000 is out of range"
    assert checked("body", Param("x", "int", 0).describe)["name"] == "x"


def test_printable_escapes_what_utf8_cannot_hold() -> None:
    assert printable("d_\ud800k") == "d_\\ud800k"
    assert printable(["body", "\udfff", 3]) == ["body", "\\udfff", 3]
    assert printable("θ, 注意") == "θ, 注意"  # real Unicode is kept as it is
    answer = error_response(InputError(("body", "\ud800"), "\ud800: unknown setting"))
    assert json.loads(answer.body)["detail"][0]["loc"] == ["body", "\\ud800"]
