"""Static slide versions of the lesson's figures, as PNG or SVG (matplotlib, Agg).

`export_figure(name, settings, path, fmt=...)` computes the figure's data through
`attnlab.figures.compute_figure` (the same numbers the page shows; nothing is recomputed here)
and hands it to that figure's `draw(fig, data)` in this package.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib

# a file-only backend: exporting must work on a server or in CI with no display
matplotlib.use("Agg")

from matplotlib import rc_context
from matplotlib.figure import Figure

from attnlab.export import style
from attnlab.figures import compute_figure, figure_module
from attnlab.params import ParamError, validate
from attnlab.plain import plain

# figure name (as in attnlab.figures.MODULES) -> drawing module under attnlab.export
DRAWERS: dict[str, str] = {
    "lookup": "lookup",
    "training": "training",
    "scaling": "scaling",
    "position": "position",
    "depth": "depth",
    "kv-cache": "kv_cache",
    "tokens": "tokens",
    "flash": "flash",
}
FORMATS = ("png", "svg")

__all__ = ["DRAWERS", "FORMATS", "export_figure", "export_figures", "render"]


def render(name: str, data: Mapping[str, Any]) -> Figure:
    """A 16:9 matplotlib Figure of figure `name` drawn from its computed data."""
    module = importlib.import_module(f"attnlab.export.{DRAWERS[name]}")
    with rc_context(style.RC):
        fig = Figure(figsize=style.FIGSIZE, dpi=style.DPI, layout="constrained")
        module.draw(fig, data)
    return fig


def export_figure(
    name: str, settings: Mapping[str, Any] | None, path: str | Path, *, fmt: str
) -> Path:
    """Compute figure `name` at `settings` and write it to `path` as `fmt` ("png" or "svg").

    Raises ParamError for an unknown figure, a bad setting, a bad format or a path whose suffix
    names another format; OSError if the file cannot be written.
    """
    return export_figures(name, settings, {fmt: path})[0]


def export_figures(
    name: str,
    settings: Mapping[str, Any] | None,
    targets: Mapping[str, str | Path],
    *,
    train_steps: int = 0,
    data: Mapping[str, Any] | None = None,
) -> list[Path]:
    """Like `export_figure` for several formats at once ({"png": path, "svg": path}).

    The figure is computed and laid out once, so the PNG and the SVG show the same layout.
    Everything is checked before the first file is written. `data`: the figure's data when the
    caller has computed it already (`figure_data`), so that it is not computed twice.
    """
    figure_module(name)  # unknown name -> ParamError before any work
    paths = [_checked_path(fmt, path) for fmt, path in targets.items()]
    if data is None:
        data = figure_data(name, settings, train_steps=train_steps)
    fig = render(name, data)
    with rc_context(style.RC):
        for fmt, path in zip(targets, paths, strict=True):
            fig.savefig(path, format=fmt, dpi=style.DPI, facecolor="white",
                        metadata=_metadata(fmt))  # fmt: skip
            fig.set_layout_engine("none")  # keep the first file's layout: same look, faster
    return paths


def figure_data(
    name: str, settings: Mapping[str, Any] | None, *, train_steps: int = 0
) -> dict[str, Any]:
    """The data a slide of figure `name` shows: `compute_figure`'s, or for FIG 2 after training."""
    if train_steps:
        return _trained(name, settings, train_steps)
    return compute_figure(name, settings)


def _trained(name: str, settings: Mapping[str, Any] | None, steps: int) -> dict[str, Any]:
    """FIG 2's data after `steps` steps of training (the other figures have nothing to train)."""
    from attnlab.figures import training

    if name != "training":
        raise ParamError("train", f"only the training figure can be trained, not {name!r}")
    checked = validate(training.PARAMS, settings or {})
    return plain({"figure": name, "settings": checked, **training.after_training(steps, **checked)})


def _checked_path(fmt: str, path: str | Path) -> Path:
    if fmt not in FORMATS:
        raise ParamError("format", f"must be one of {', '.join(FORMATS)}, not {fmt!r}")
    path = Path(path)
    suffix = path.suffix.lower().lstrip(".")
    if suffix and suffix != fmt:
        raise ParamError(fmt, f"the path {str(path)!r} ends in .{suffix}, expected .{fmt}")
    if not path.parent.is_dir():
        raise ParamError(fmt, f"the folder {str(path.parent)!r} does not exist")
    if path.is_dir():
        raise ParamError(fmt, f"the path {str(path)!r} is a directory, expected a file name")
    return path


def _metadata(fmt: str) -> dict[str, Any]:
    # no creation date in the SVG, so the same settings give the same file
    return {"Date": None} if fmt == "svg" else {}
