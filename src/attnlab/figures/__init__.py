"""The lesson's figures as pure computations: settings in, plain JSON-safe data out.

Each module names its section and figure, declares `NAME`, `PARAMS` (a tuple of
`attnlab.params.Param`) and `compute(**settings) -> dict`, and may declare `CONSTANTS` (plain
data the page's view needs before its first answer) and `VIEW_PARAMS` (settings the page keeps
in its URL but never sends here). The figures themselves are listed once, in
`attnlab.figures.registry`. The CLI (`attnlab figure`), the web API and the tests all go through
`compute_figure`, so validation happens in one place.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from attnlab.figures.registry import FIGURES, by_name
from attnlab.params import ParamError, Source, validate
from attnlab.plain import encode, plain

# name used by the CLI, the web API and the page -> module under attnlab.figures
MODULES: dict[str, str] = {f.name: f.module for f in FIGURES}

__all__ = [
    "MODULES",
    "ParamError",
    "compute_figure",
    "describe_figure",
    "figure_json",
    "figure_module",
    "figure_modules",
]


def figure_module(name: str) -> ModuleType:
    """The module behind a figure name; a clear error for an unknown name."""
    if name not in MODULES:
        raise ParamError("figure", f"unknown figure {name!r}; one of {', '.join(MODULES)}")
    return importlib.import_module(f"attnlab.figures.{MODULES[name]}")


def figure_modules() -> dict[str, ModuleType]:
    """Every figure's module, in lesson order."""
    return {name: figure_module(name) for name in MODULES}


def describe_figure(name: str) -> dict[str, Any]:
    """What a view needs to mount, wherever it is mounted (the page, a notebook): the figure's
    shell (number, section), settings, view-only settings and constants."""
    module = figure_module(name)
    return {
        **by_name(name).describe(),
        "params": [p.describe() for p in module.PARAMS],
        "view_params": [p.describe() for p in getattr(module, "VIEW_PARAMS", ())],
        "constants": plain(getattr(module, "CONSTANTS", {})),
    }


def compute_figure(
    name: str, raw: Mapping[str, Any] | None = None, source: Source = "text"
) -> dict[str, Any]:
    """Validate raw settings for figure `name`, compute it, return plain data.

    source: "text" for settings read from a URL or the CLI, "json" for a JSON body (strict
    types). The result always carries the checked `settings`, so a view can show what was
    computed.
    """
    return plain(_answer(name, raw, source))


def figure_json(name: str, raw: Mapping[str, Any] | None = None, source: Source = "text") -> bytes:
    """`compute_figure`'s answer as the web route sends it: the bytes FastAPI's JSONResponse
    writes for it (tests/figures/test_figure_json.py holds them equal), with the parts no
    setting changes (`attnlab.plain.Encoded`) spliced in from their text written once."""
    return encode(_answer(name, raw, source)).encode("utf-8")


def _answer(name: str, raw: Mapping[str, Any] | None, source: Source) -> dict[str, Any]:
    """The figure's data for validated settings, before it is made plain."""
    module = figure_module(name)
    settings = validate(module.PARAMS, raw or {}, source)
    return {"figure": name, "settings": settings, **module.compute(**settings)}
