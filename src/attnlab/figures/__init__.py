"""The lesson's figures as pure computations: settings in, plain JSON-safe data out.

Each module names its section and figure, declares `NAME`, `PARAMS` (a tuple of
`attnlab.params.Param`) and `compute(**settings) -> dict`. The CLI (`attnlab figure`), the web
API and the tests all go through `compute_figure`, so validation happens in one place.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from attnlab.params import ParamError, Source, validate
from attnlab.plain import plain

# name used by the CLI, the web API and the page -> module under attnlab.figures
MODULES: dict[str, str] = {
    "lookup": "lookup",  # FIG 1
    "training": "training",  # FIG 2 (static parts; live training runs in tabletop.trainer)
    "scaling": "scaling",  # FIG 3
    "position": "position",  # FIG 4
    "depth": "depth",  # FIG 5
    "kv-cache": "kv_cache",  # FIG 6
    "tokens": "tokens",  # FIG 7
    "flash": "flash",  # FIG 8
}

__all__ = ["MODULES", "ParamError", "compute_figure", "figure_module"]


def figure_module(name: str) -> ModuleType:
    """The module behind a figure name; a clear error for an unknown name."""
    if name not in MODULES:
        raise ParamError("figure", f"unknown figure {name!r}; one of {', '.join(MODULES)}")
    return importlib.import_module(f"attnlab.figures.{MODULES[name]}")


def compute_figure(
    name: str, raw: Mapping[str, Any] | None = None, source: Source = "text"
) -> dict[str, Any]:
    """Validate raw settings for figure `name`, compute it, return plain data.

    source: "text" for settings read from a URL or the CLI, "json" for a JSON body (strict
    types). The result always carries the checked `settings`, so a view can show what was
    computed.
    """
    module = figure_module(name)
    settings = validate(module.PARAMS, raw or {}, source)
    data = module.compute(**settings)
    return plain({"figure": name, "settings": settings, **data})
