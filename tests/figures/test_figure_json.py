"""The web route's bytes (`figure_json`, with its spliced fragments) are the readable path's:
`compute_figure`'s plain data written by FastAPI's JSONResponse, byte for byte."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.responses import JSONResponse

from attnlab.figures import MODULES, _answer, compute_figure, figure_json, figure_module
from attnlab.plain import dumps, plain, plain_reference


def _variations(name: str) -> list[dict[str, Any]]:
    """The defaults, then each setting alone at its ends (and middle), or at each choice."""
    out: list[dict[str, Any]] = [{}]
    for p in figure_module(name).PARAMS:
        if p.kind == "choice":
            values = list(p.choices)
        elif p.kind == "bool":
            values = [True, False]
        elif p.kind == "vector":
            values = [[p.lo] * p.length, [p.hi] * p.length]
        elif p.kind == "int":
            values = [p.lo, p.hi, (p.lo + p.hi) // 2]
        else:
            values = [p.lo, p.hi, (p.lo + p.hi) / 3]
        out += [{p.name: v} for v in values]
    return out


@pytest.mark.parametrize("name", list(MODULES))
def test_the_routes_bytes_are_the_readable_answer(name) -> None:
    for settings in _variations(name):
        readable = compute_figure(name, settings, "json")
        assert figure_json(name, settings, "json") == JSONResponse(readable).body
        data = _answer(name, settings, "json")  # before plain: arrays, NumPy scalars, Encoded
        assert dumps(plain(data)) == dumps(plain_reference(data))
