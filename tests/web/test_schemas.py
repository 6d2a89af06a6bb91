"""The OpenAPI models and `attnlab.params.validate` agree on what each setting accepts."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from attnlab.params import Param, ParamError, validate
from attnlab.plain import plain
from attnlab.web.figures_api import available_figures
from attnlab.web.schemas import query_parameters, settings_model

FIGURES = available_figures()


def _probes(p: Param) -> list[object]:
    """Values at and just past each edge of a setting's range (and a wrong type)."""
    if p.kind == "choice":
        return [*p.choices, "no-such-choice"]
    if p.kind == "bool":
        return [True, False, [True]]
    if p.kind == "vector":
        return [
            [p.lo] * p.length,
            [p.hi] * p.length,
            [p.hi + 1] * p.length,
            [p.lo] * (p.length + 1),
        ]
    step = 1 if p.kind == "int" else 1e-3
    return [p.lo, p.hi, p.lo - step, p.hi + step, "text"]


def _accepts_model(model, name: str, value: object) -> bool:
    try:
        model.model_validate({name: value})
    except ValidationError:
        return False
    return True


def _accepts_params(params, name: str, value: object) -> bool:
    try:
        validate(params, {name: value})
    except ParamError:
        return False
    return True


@pytest.mark.parametrize("name", list(FIGURES))
def test_model_and_validate_agree_at_the_edges(name) -> None:
    params = FIGURES[name].PARAMS
    model = settings_model(name, params)
    for p in params:
        for value in _probes(p):
            expected = _accepts_params(params, p.name, value)
            assert _accepts_model(model, p.name, value) == expected, (p.name, value)


@pytest.mark.parametrize("name", list(FIGURES))
def test_defaults_are_valid_and_unknown_settings_refused(name) -> None:
    params = FIGURES[name].PARAMS
    model = settings_model(name, params)
    defaults = model.model_validate({}).model_dump(by_alias=True)
    assert defaults == plain(validate(params, {}))  # plain: a tuple default compares as a list
    with pytest.raises(ValidationError):
        model.model_validate({"no_such_setting": 1})


def test_a_setting_may_be_named_like_a_model_attribute() -> None:
    params = (Param("schema", "int", 1, lo=0, hi=3), Param("copy", "bool", False))
    model = settings_model("odd-names", params)
    assert model.__name__ == "OddNamesSettings"
    assert [q["name"] for q in query_parameters(model, params)] == ["schema", "copy"]


def test_vectors_travel_in_the_query_as_exactly_length_comma_separated_numbers() -> None:
    params = (Param("q", "vector", [2.0, 0.5], lo=-8, hi=8, length=2),)
    (q,) = query_parameters(settings_model("v", params), params)
    assert (q["style"], q["explode"]) == ("form", False)  # q=2,0.5
    assert q["schema"]["type"] == "array" and q["schema"]["default"] == [2.0, 0.5]
    assert q["schema"]["minItems"] == q["schema"]["maxItems"] == 2
    assert q["schema"]["items"]["minimum"] == -8 and q["schema"]["items"]["maximum"] == 8
