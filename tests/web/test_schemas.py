"""The OpenAPI models and `attnlab.params.validate` agree on what each setting accepts."""

from __future__ import annotations

import jsonschema_rs  # schemathesis's own JSON Schema validator (comes with it)
import pytest
from pydantic import ValidationError

from attnlab.figures import figure_modules
from attnlab.params import Param, ParamError, validate
from attnlab.plain import plain
from attnlab.web.schemas import query_parameters, settings_model

FIGURES = figure_modules()


def _probes(p: Param) -> list[object]:
    """Values at and just past each edge of a setting's range (and a wrong type)."""
    if p.kind == "choice":
        return [*p.choices, *(str(c) for c in p.choices), True, "no-such-choice"]
    if p.kind == "bool":
        return [True, False, [True], 0, 1, "true"]
    if p.kind == "vector":
        return [
            [p.lo] * p.length,
            [p.hi] * p.length,
            [p.hi + 1] * p.length,
            [p.lo] * (p.length + 1),
        ]
    step = 1 if p.kind == "int" else 1e-3
    return [p.lo, p.hi, p.lo - step, p.hi + step, "text", str(p.lo), True, float(p.lo) + 0.0]


def _accepts_model(model, name: str, value: object) -> bool:
    """What the OpenAPI description says of {name: value} (the JSON Schema a client reads)."""
    return jsonschema_rs.Draft202012Validator(model.model_json_schema()).is_valid({name: value})


def _accepts_params(params, name: str, value: object) -> bool:
    try:
        validate(params, {name: value}, "json")
    except ParamError:
        return False
    return True


@pytest.mark.parametrize("name", list(FIGURES))
def test_model_and_validate_agree_on_json_values_at_the_edges(name) -> None:
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


def test_an_answer_schema_requires_what_every_sample_has_and_types_it() -> None:
    from attnlab.web.schemas import schema_of

    schema = schema_of([{"a": 1, "b": [1.5, 2], "c": None}, {"a": 2.5, "b": [], "d": "x"}])
    assert schema["required"] == ["a", "b"]  # "c" and "d" are in one sample only
    props = schema["properties"]
    assert props["a"] == {"type": "number"} and props["b"]["items"] == {"type": "number"}
    assert props["c"] == {} and props["d"] == {"type": "string"}  # null: unconstrained
    valid = jsonschema_rs.Draft202012Validator(schema)
    assert valid.is_valid({"a": 0, "b": [3]}) and not valid.is_valid({"a": "0", "b": [3]})
    assert not valid.is_valid({"b": []})


@pytest.mark.parametrize("name", list(FIGURES))
def test_every_figure_s_answer_meets_its_schema_at_other_settings(name, rng) -> None:
    from attnlab.figures import compute_figure
    from attnlab.web.schemas import figure_answer_schema

    schema = figure_answer_schema(name)
    assert schema["type"] == "object" and {"figure", "settings"} <= set(schema["required"])
    assert len(schema["required"]) > 3  # the figure's own fields are constrained too
    valid = jsonschema_rs.Draft202012Validator(schema)
    for p in FIGURES[name].PARAMS:  # one setting at a time at a random value inside its range
        if p.kind in ("int", "float"):
            x = rng.uniform(p.lo, p.hi)
            value = round(x) if p.kind == "int" else x
            assert valid.is_valid(compute_figure(name, {p.name: value})), (p.name, value)


def test_every_route_documents_the_guard_s_refusals_and_its_own(client) -> None:
    from attnlab.web.guard import POST_REFUSALS, REFUSALS

    paths = client.get("/openapi.json").json()["paths"]
    assert paths, "no documented routes"
    for path, operations in paths.items():
        for method, op in operations.items():
            codes = set(op["responses"])
            refusals = {**REFUSALS, **(POST_REFUSALS if method == "post" else {})}
            assert {str(c) for c in refusals} <= codes, (method, path)
            if op.get("parameters") or op.get("requestBody"):
                assert "422" in codes, (method, path)
    assert "413" in paths["/api/figures/lookup"]["post"]["responses"]
    assert {"200", "202"} <= set(paths["/api/claims"]["get"]["responses"])  # 503 is gone: no guard
    assert "409" in paths["/api/claims/rerun"]["post"]["responses"]
