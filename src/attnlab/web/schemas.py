"""Typed, bounded OpenAPI descriptions: every figure's settings (from its PARAMS), every figure's
answer (from what its compute() returns), and every error a route can answer.

The settings models exist for the schema at `/openapi.json`: each setting appears with its type,
default and range. Requests are still checked by `attnlab.params.validate`, the one validation
layer the CLI shares, so the two can never disagree about what a setting accepts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from attnlab.params import Param

# --- errors ---------------------------------------------------------------------------------

_DETAIL_ITEM = {
    "type": "object",
    "properties": {
        "loc": {"type": "array", "items": {"type": ["string", "integer"]}},
        "msg": {"type": "string"},
        "type": {"type": "string"},
    },
    "required": ["loc", "msg", "type"],
}
# Our own refusals say what was wrong in "detail": a sentence, or a list of FastAPI's shape.
ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "detail": {"anyOf": [{"type": "string"}, {"type": "array", "items": _DETAIL_ITEM}]}
    },
    "required": ["detail"],
}
_WHY = {
    404: "no such figure, language or page",
    409: "the claims are being measured now",
    413: "the body is larger than the server accepts",
    422: "a setting is missing, unknown, of the wrong type or out of range",
}


def error_responses(*codes: int, why: Mapping[int, str] | None = None) -> dict[int | str, Any]:
    """OpenAPI `responses` for a route's own error statuses: `codes` with their usual meaning,
    `why` for statuses a route describes itself (the guard adds its own refusals to every
    operation: web/guard.py, `document_refusals`)."""
    texts = {**{code: _WHY[code] for code in codes}, **(why or {})}
    return {code: json_response(texts[code], ERROR_SCHEMA) for code in sorted(texts)}


def json_response(description: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def json_object_body(properties: Mapping[str, Any]) -> dict[str, Any]:
    """A required JSON request body: an object of exactly these properties, all required."""
    schema = {"type": "object", "properties": dict(properties), "required": list(properties),
              "additionalProperties": False}  # fmt: skip
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _claim_result_schema() -> dict[str, Any]:
    """A measured claim, from `ClaimResult`'s fields; a check that failed to run has only
    id, ok (false) and error."""
    from dataclasses import fields

    from attnlab.claims.base import ClaimResult

    json_type = {"str": "string", "bool": "boolean", "dict[str, Any]": "object"}
    props = {f.name: {"type": json_type[str(f.type)]} for f in fields(ClaimResult)}
    props["error"] = {"type": "string"}
    return {"type": "object", "properties": props, "required": ["id", "ok"]}


CLAIM_LIST = json_response(
    "the selected claims, measured", {"type": "array", "items": _claim_result_schema()}
)
MEASURING_LATER = json_response(
    "not measured yet: queued for the claims runner; ask again after Retry-After seconds",
    {
        "type": "object",
        "properties": {
            "pending": {"type": "array", "items": {"type": "string"}},
            "detail": {"type": "string"},
        },
        "required": ["pending", "detail"],
    },
)


SNAPSHOT = json_response(
    "the latest run's progress and the results stored since `since`",
    {
        "type": "object",
        "properties": {
            "running": {"type": "boolean"},
            "state": {"type": ["object", "null"]},
            "seq": {"type": "integer", "minimum": 0},
            "claims": {"type": "array", "items": _claim_result_schema()},
            "values": {"type": "object", "additionalProperties": {"type": "object"}},
        },
        "required": ["running", "state", "seq", "claims", "values"],
    },
)


# --- answers, derived from real ones ----------------------------------------------------------


def schema_of(samples: Sequence[Any]) -> dict[str, Any]:
    """The tightest simple JSON Schema every sample meets: types, required keys, item shapes.

    Objects require the keys every sample has; arrays describe all their items with one schema;
    numbers are "number" (an int here may be a float at other settings); null allows anything.
    """
    kinds = {_kind(s) for s in samples}
    if "null" in kinds or len(kinds) != 1:
        return {}  # a value that may be absent or of several types: left unconstrained
    kind = kinds.pop()
    if kind == "object":
        keys = set.intersection(*(set(s) for s in samples))
        names = sorted(set().union(*(set(s) for s in samples)))
        props = {k: schema_of([s[k] for s in samples if k in s]) for k in names}
        return {"type": "object", "properties": props, "required": sorted(keys)}
    if kind == "array":
        items = [x for s in samples for x in s]
        return {"type": "array", "items": schema_of(items) if items else {}}
    return {"type": kind}


def _kind(x: Any) -> str:
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "boolean"
    if isinstance(x, (int, float)):
        return "number"
    if isinstance(x, str):
        return "string"
    return "object" if isinstance(x, Mapping) else "array"


def sample_settings(params: Sequence[Param]) -> list[dict[str, Any]]:
    """Settings to derive an answer's schema from: the defaults, then each setting at its ends
    (every choice, both booleans, the bounds of a number) with the others at their defaults."""
    out: list[dict[str, Any]] = [{}]
    for p in params:
        if p.kind in ("choice", "bool"):
            values: Iterable[Any] = p.choices if p.kind == "choice" else (False, True)
        elif p.kind in ("int", "float"):
            values = [v for v in (p.lo, p.hi) if v is not None]
        else:
            values = ()
        out += [{p.name: int(v) if p.kind == "int" else v} for v in values if v != p.default]
    return out


@lru_cache(maxsize=16)  # one per figure
def figure_answer_schema(name: str) -> dict[str, Any]:
    """JSON Schema of figure `name`'s answer, derived from its answers at sample settings."""
    from attnlab.figures import compute_figure, figure_module

    params = figure_module(name).PARAMS
    return schema_of([compute_figure(name, raw) for raw in sample_settings(params)])


# --- settings ---------------------------------------------------------------------------------


def settings_model(figure: str, params: Sequence[Param]) -> type[BaseModel]:
    """A pydantic model whose fields are the figure's settings (`lookup` → `LookupSettings`)."""
    # Fields get neutral names and the setting's name as alias: a setting called e.g. "schema"
    # must not shadow a BaseModel attribute.
    fields: dict[str, Any] = {
        f"s{i}": (_annotation(p), Field(default=_default(p), alias=p.name, description=_help(p)))
        for i, p in enumerate(params)
    }
    title = "".join(part.capitalize() for part in figure.replace("_", "-").split("-"))
    config = ConfigDict(extra="forbid", title=f"{title}Settings")
    return create_model(f"{title}Settings", __config__=config, **fields)


def _default(p: Param) -> Any:
    # A vector's default may be a tuple (immutable, in a frozen Param); JSON knows only lists.
    return list(p.default) if isinstance(p.default, tuple) else p.default


def _help(p: Param) -> str:
    return f"{p.help} ({p.range_text()})" if p.help else p.range_text()


def _annotation(p: Param) -> Any:
    bounds = {k: v for k, v in (("ge", p.lo), ("le", p.hi)) if v is not None}
    if p.kind == "int":
        return Annotated[int, Field(**bounds)]
    if p.kind == "float":
        return Annotated[float, Field(allow_inf_nan=False, **bounds)]
    if p.kind == "bool":
        return bool
    if p.kind == "choice":
        return Literal[tuple(p.choices)]
    item = Annotated[float, Field(allow_inf_nan=False, **bounds)]
    return Annotated[list[item], Field(min_length=p.length, max_length=p.length)]


def request_body(model: type[BaseModel]) -> dict[str, Any]:
    """OpenAPI `requestBody` for POST: a JSON object of (optional) settings."""
    return {
        "required": False,
        "content": {"application/json": {"schema": model.model_json_schema()}},
    }


def query_parameters(model: type[BaseModel], params: Sequence[Param]) -> list[dict[str, Any]]:
    """OpenAPI `parameters` for GET: one optional query parameter per setting.

    A vector travels in a URL as comma-separated numbers ("1.5,0.2"): an array of exactly
    `length` numbers, serialised as OpenAPI's style "form" without explode.
    """
    properties = model.model_json_schema()["properties"]
    out = []
    for p in params:
        param = {
            "name": p.name,
            "in": "query",
            "required": False,
            "description": _help(p),
            "schema": dict(properties[p.name]),
        }
        if p.kind == "vector":
            param.update(style="form", explode=False)
        out.append(param)
    return out
