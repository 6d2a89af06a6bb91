"""Every figure's widget: its data is the figure's compute(), its settings the figure's Params."""

from __future__ import annotations

import base64
import io

import matplotlib.image
import pytest

from attnlab.export import style
from attnlab.figures import compute_figure, figure_module
from attnlab.params import ParamError
from attnlab.widgets import FIGURES
from attnlab.widgets.base import NOTEBOOK_DPI
from tests.widgets.conftest import from_view

# figure → one change of its settings that changes its data, and one value its Params refuse
CHANGES = {
    "lookup": ({"mode": "hard"}, {"mode": "argmax"}),
    "training": ({"n_objects": 6}, {"n_objects": 7}),
    "scaling": ({"d_k": 512, "scaled": False}, {"d_k": 0}),
    "position": ({"pe": "rope", "p": 40}, {"p": 64}),
    "depth": ({"residual": False}, {"norm": "both"}),
    "kv-cache": ({"mask": "bidirectional", "step": 3}, {"step": 9}),
    "tokens": ({"cameras": 4, "patch": 8}, {"patch": 15}),
    "flash": ({"tile": 1, "step": 3}, {"tile": 0}),
}


def test_every_figure_has_a_widget() -> None:
    assert set(FIGURES) == set(CHANGES)
    from attnlab.figures import MODULES

    assert set(FIGURES) == set(MODULES)


@pytest.mark.parametrize("name", CHANGES)
def test_defaults_and_a_change_compute_what_the_api_computes(name: str) -> None:
    w = FIGURES[name]()
    assert w.figure == name
    assert w.params == [p.describe() for p in figure_module(name).PARAMS]
    assert w.data == compute_figure(name, {})
    change, _ = CHANGES[name]
    w.settings = change
    assert w.data == compute_figure(name, change, "json")
    assert w.data != compute_figure(name, {})


@pytest.mark.parametrize("name", CHANGES)
def test_keyword_arguments_at_creation_are_settings(name: str) -> None:
    change, _ = CHANGES[name]
    assert FIGURES[name](**change).data == compute_figure(name, change, "json")


@pytest.mark.parametrize("name", CHANGES)
def test_a_refused_value_has_the_params_own_message(name: str, catch) -> None:
    _, bad = CHANGES[name]
    with pytest.raises(ParamError) as expected:
        compute_figure(name, bad, "json")
    with pytest.raises(ValueError) as raised:
        FIGURES[name](**bad)
    assert str(raised.value) == str(expected.value)
    w = FIGURES[name]()
    sent = catch(w)
    from_view(w, "settings", {"type": "set", "seq": 1, "settings": bad})
    assert w.error == str(expected.value)  # the view shows it in the figure
    assert sent.of("settings") == [{"type": "ack", "seq": 1}]


@pytest.mark.parametrize("name", CHANGES)
def test_a_value_json_cannot_carry_is_refused_naming_its_setting(name: str) -> None:
    import numpy as np

    setting = next(p.name for p in figure_module(name).PARAMS if p.kind != "vector")
    w = FIGURES[name]()
    for value, says in [(np.float64("nan"), "finite"), (np.inf, "finite"), (2 + 1j, "complex")]:
        with pytest.raises(ParamError, match=f"^{setting}: .*{says}"):
            w.settings = {setting: value}
        with pytest.raises(ParamError, match=f"^{setting}: .*{says}"):
            FIGURES[name](**{setting: value})


def _no_png(w, monkeypatch) -> None:
    from IPython.core.formatters import DisplayFormatter

    drawn: list[str] = []  # (IPython's formatters print what a repr raises and go on)
    monkeypatch.setattr(w, "figure_png", lambda: drawn.append("png") or b"")
    data, _ = DisplayFormatter().format(w)  # what display(w) sends: every repr IPython asks for
    assert "application/vnd.jupyter.widget-view+json" in data and "image/png" not in data
    assert drawn == [], "the PNG was drawn with a front-end showing the widget"


@pytest.mark.parametrize("name", CHANGES)
def test_no_png_is_drawn_once_a_view_has_said_it_is_drawn(name: str, monkeypatch) -> None:
    import threading

    from attnlab.widgets import viewers

    monkeypatch.setattr(viewers, "VIEW_SHOWN", threading.Event())  # this kernel's, for this test
    first, w = FIGURES["depth"](), FIGURES[name]()
    assert "image/png" in first._repr_mimebundle_()[0]  # no front-end known yet
    from_view(first, "settings", {"type": "shown"})  # what adapter.js says once it has drawn
    _no_png(w, monkeypatch)


def test_no_png_is_drawn_where_jupyterlab_opened_the_control_comm(monkeypatch) -> None:
    import ipywidgets

    # what JupyterLab's widget manager opens when it meets a kernel (nbclient opens none)
    monkeypatch.setattr(ipywidgets.Widget, "_control_comm", object())
    _no_png(FIGURES["kv-cache"](), monkeypatch)


@pytest.mark.parametrize("name", CHANGES)
def test_the_static_fallback_is_the_figures_slide_png(name: str) -> None:
    w = FIGURES[name]()
    data, _ = w._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    png = base64.b64decode(data["image/png"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = matplotlib.image.imread(io.BytesIO(png), format="png")
    width, height = (round(x * NOTEBOOK_DPI) for x in style.FIGSIZE)  # the slide, drawn small
    assert abs(pixels.shape[1] - width) <= 2 and abs(pixels.shape[0] - height) <= 2
    assert pixels.std() > 0.05  # drawn, not blank
    assert len(png) < 60_000  # a palette PNG: a notebook stores it
