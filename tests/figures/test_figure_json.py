"""The web route's bytes (`figure_json`, with its spliced fragments) are the readable path's:
`compute_figure`'s plain data written by FastAPI's JSONResponse, byte for byte."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.responses import JSONResponse

from attnlab.figures import MODULES, _answer, compute_figure, describe_figure, figure_json
from attnlab.plain import dumps, plain, plain_reference


def _settings(params: list[dict], rng: np.random.Generator) -> dict:
    """A valid setting per parameter, drawn across its range (seeds among a few)."""
    out: dict = {}
    for p in params:
        lo, hi = p.get("min"), p.get("max")
        if p["kind"] == "choice":
            out[p["name"]] = p["choices"][rng.integers(len(p["choices"]))]
        elif p["kind"] == "bool":
            out[p["name"]] = bool(rng.integers(2))
        elif p["kind"] == "vector":
            out[p["name"]] = rng.uniform(lo, hi, p["length"]).round(3).tolist()
        elif p["kind"] == "int":
            out[p["name"]] = int(rng.integers(lo, min(hi, lo + 40) + 1))
        else:
            out[p["name"]] = float(rng.uniform(lo, hi))
    return out


@pytest.mark.parametrize("name", list(MODULES))
def test_the_routes_bytes_are_the_readable_answer(name) -> None:
    rng = np.random.default_rng(7)
    params = describe_figure(name)["params"]
    for settings in [{}, *(_settings(params, rng) for _ in range(4))]:
        readable = compute_figure(name, settings, "json")
        assert figure_json(name, settings, "json") == JSONResponse(readable).body
        data = _answer(name, settings, "json")  # before plain: arrays, NumPy scalars, Encoded
        assert dumps(plain(data)) == dumps(plain_reference(data))
