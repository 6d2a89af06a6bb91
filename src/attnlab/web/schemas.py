"""Typed, bounded OpenAPI descriptions of every figure's settings, built from its PARAMS.

The models exist for the schema at `/openapi.json` (and the docs page): each setting appears with
its type, default and range. Requests are still checked by `attnlab.params.validate`, the one
validation layer the CLI shares, so the two can never disagree about what a setting accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from attnlab.params import Param


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

    A vector travels in a URL as comma-separated numbers ("1.5,0.2"), so its query schema is a
    string; its JSON form (a list of numbers) is in the POST body schema.
    """
    properties = model.model_json_schema()["properties"]
    out = []
    for p in params:
        schema = dict(properties[p.name])
        if p.kind == "vector":
            schema = {
                "type": "string",
                "title": schema.get("title", p.name),
                "pattern": r"^-?[0-9.eE+-]+(,-?[0-9.eE+-]+)*$",
            }
            if isinstance(p.default, (list, tuple)):
                schema["default"] = ",".join(f"{x:g}" for x in p.default)
        out.append(
            {
                "name": p.name,
                "in": "query",
                "required": False,
                "description": _help(p),
                "schema": schema,
            }
        )
    return out
