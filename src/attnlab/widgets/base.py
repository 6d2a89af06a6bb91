"""`FigureWidget`: one figure of the lesson as an anywidget, its engine in the kernel.

Traits (all synced with the view, see widgets/src/adapter.js):

    figure    the page's name of the figure ("lookup", "kv-cache", …)
    params    its settings' descriptions (`Param.describe()`), as GET /api/figures gives them
    settings  the checked settings; assigning a dict changes the names it holds (the others
              keep their values) and is checked by the figure's `Param`s: a bad value raises
              `ParamError` (a ValueError) naming the setting and its range
    data      the figure's data for those settings (what GET /api/figures/<name> answers)
    error     the last refused change from the view, shown in the figure ("" when none)
    lang      "en" or "zh"
    strings   the page's catalogues (the views read their strings from here, not a server)

A change from the view comes as a custom message on the settings channel, {type: "set", seq,
settings} (the names: protocol.json); it is checked by the same `Param`s, recomputed, and
acknowledged with its seq.
Where the output is stored to be read without widgets (nbconvert --execute: GitHub, nbviewer)
the widget shows the figure's PNG from `attnlab.export`, drawn small (NOTEBOOK_DPI, a palette)
since a notebook stores it, and drawn only there (not where a person's front-end shows the
view: attnlab.widgets.viewers); its output metadata holds the signature of the data it was
drawn from (attnlab.widgets.drawn), so a stored notebook's pictures can be checked against a
fresh run on any machine.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping
from typing import Any, ClassVar

try:
    import anywidget
    import traitlets
except ImportError as err:  # the widgets are an optional part of attnlab
    raise ImportError(
        'attnlab.widgets needs the notebook extra: pip install "attnlab[notebook]"'
    ) from err

from attnlab.figures import compute_figure, describe_figure, figure_module
from attnlab.lesson import LANGS
from attnlab.params import Param, ParamError, validate
from attnlab.plain import plain
from attnlab.widgets.assets import CSS, PROTOCOL, SETTINGS_CHANNEL, bundle, strings
from attnlab.widgets.drawn import signature
from attnlab.widgets.refused import Refused, refused
from attnlab.widgets.values import Shapes, from_params, from_view, to_params
from attnlab.widgets.viewers import live_front_end, view_shown

__all__ = ["FigureWidget", "ParamError", "png_bytes"]

NOTEBOOK_DPI = 72  # a slide (13.3 × 7.5 in) as 960 × 540 px: readable in a cell, not a projector
PNG_COLOURS = 128  # flat-coloured charts lose nothing visible to a palette; ~4× smaller files


def png_bytes(fig: Any, dpi: float | str = NOTEBOOK_DPI) -> bytes:
    """A matplotlib Figure as a palette PNG (white background, as the slides are)."""
    from PIL import Image  # matplotlib's own dependency

    out = io.BytesIO()
    fig.savefig(out, format="png", facecolor="white", dpi=dpi)
    out.seek(0)
    with Image.open(out) as image:
        small = image.convert("RGB").quantize(PNG_COLOURS, method=Image.Quantize.MEDIANCUT)
    png = io.BytesIO()
    small.save(png, format="PNG", optimize=True)
    return png.getvalue()


class FigureWidget(anywidget.AnyWidget):
    """A page figure in a notebook; subclasses set FIGURE and `_esm` (see `figure_class`)."""

    FIGURE: ClassVar[str] = ""
    SHAPES: ClassVar[Shapes] = {}  # array settings → the shape a learner gives and reads them in
    _css = CSS

    figure = traitlets.Unicode("").tag(sync=True)
    params = traitlets.List().tag(sync=True)
    view_params = traitlets.List().tag(sync=True)  # the view's own settings, as the page has them
    constants = traitlets.Dict().tag(sync=True)  # what the view reads before the first answer
    settings = traitlets.Dict().tag(sync=True)
    data = traitlets.Dict().tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)
    lang = traitlets.Unicode("en").tag(sync=True)
    strings = traitlets.Dict().tag(sync=True)

    def __init__(self, *, lang: str = "en", **settings: Any) -> None:
        __tracebackhide__ = True  # pytest and IPython's debugger skip this frame
        checked = self.checked(settings)  # a bad setting opens no comm
        super().__init__(figure=self.FIGURE, strings=strings(), lang=lang,
                         **self.description())  # fmt: skip
        self.on_msg(self._on_message)
        self.settings = checked  # then computed

    def __setattr__(self, name: str, value: Any) -> None:
        """`w.settings = {...}` is checked here, before traitlets: a refusal is one short
        ParamError naming the setting (one line in IPython: widgets.refused), not a page of
        traitlets' frames."""
        if name == "settings":
            __tracebackhide__ = True  # pytest and IPython's debugger skip this frame
            try:
                value = self.checked(value)
            except ParamError as err:  # (a Refused) raised from here: checked()'s frame dropped
                raise err.with_traceback(None) from None
        super().__setattr__(name, value)

    def description(self) -> dict[str, Any]:
        """The view's params, view_params and constants: what GET /api/figures tells the page."""
        described = describe_figure(self.FIGURE)
        return {k: described[k] for k in ("params", "view_params", "constants")}

    @property
    def PARAMS(self) -> tuple[Param, ...]:  # the figure module's own PARAMS
        return figure_module(self.FIGURE).PARAMS

    # ---- settings: checked by the figure's Params, recomputed on every change ----------------

    def checked(self, new: Any) -> dict[str, Any]:
        """`new` settings over the current ones, checked by the figure's Params; array settings
        (SHAPES) in their own shape. ParamError (a ValueError) naming the setting if refused."""
        __tracebackhide__ = True  # pytest and IPython's debugger skip this frame
        if not isinstance(new, Mapping):
            raise Refused("settings", "expected a dict of setting names and values")
        try:
            raw = to_params({**self.settings, **new}, self.SHAPES)
            return from_params(plain(validate(self.PARAMS, raw, "json")), self.SHAPES)
        except ParamError as err:
            raise refused(err) from None

    def api_settings(self) -> dict[str, Any]:
        """The settings as the figure's compute() and the view take them (arrays flat)."""
        return to_params(self.settings, self.SHAPES)

    @traitlets.validate("settings")
    def _check_settings(self, proposal: Any) -> dict[str, Any]:
        return self.checked(proposal["value"])  # (a second time, cheaply, after __setattr__)

    @traitlets.validate("lang")
    def _check_lang(self, proposal: Any) -> str:
        if proposal["value"] not in LANGS:
            raise ParamError("lang", f"{proposal['value']!r} is not allowed; one of {LANGS}")
        return proposal["value"]

    @traitlets.observe("settings")
    def _recompute(self, change: Any) -> None:
        self.data = self.compute(self.api_settings())
        self.error = ""

    def compute(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        """The figure's data for checked settings (a subclass may add the learner's own data)."""
        return compute_figure(self.FIGURE, settings, "json")

    def __repr__(self) -> str:  # the text a notebook keeps beside the PNG: no memory address
        shown = ", ".join(f"{k}={v!r}" for k, v in self.settings.items())
        return f"{type(self).__name__}({shown})"

    def set(self, **settings: Any) -> FigureWidget:
        """`w.set(d_k=64)`: the same as `w.settings = {"d_k": 64}`; returns the widget."""
        self.settings = settings
        return self

    # ---- the view's messages --------------------------------------------------------------

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict) or not isinstance(content.get("message"), dict):
            return  # not ours: a front-end sends only {channel, message}
        self.on_view_message(content.get("channel"), content["message"])

    def on_view_message(self, channel: Any, message: dict[str, Any]) -> None:
        if channel != SETTINGS_CHANNEL:
            return
        if message.get("type") == PROTOCOL["settings"]["set"]:
            self._set_from_view(message.get("settings"), message.get("seq"))
        elif message.get("type") == PROTOCOL["settings"]["shown"]:
            view_shown()

    def _set_from_view(self, partial: Any, seq: Any) -> None:
        try:
            if not isinstance(partial, dict):
                raise ParamError("settings", "expected an object of setting names and values")
            self.settings = from_view(partial, self.SHAPES)
        except ValueError as err:  # ParamError, or a compute() refusing the learner's data
            self.error = str(err)
        ack = {"type": PROTOCOL["settings"]["ack"], "seq": seq}
        self.send({"channel": SETTINGS_CHANNEL, "message": ack})

    # ---- the static fallback -----------------------------------------------------------------

    def drawn(self) -> dict[str, Any]:
        """The data the static figure is drawn from (a subclass may add to it)."""
        return self.data

    def figure_png(self) -> bytes:
        """The figure as drawn for slides (attnlab.export), from `drawn()`."""
        from attnlab.export import render

        return png_bytes(render(self.FIGURE, self.drawn()))

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The widget; its PNG beside it where the output is stored to be read without widgets
        (nbconvert --execute, GitHub, nbviewer). The PNG costs ~0.6 s of kernel CPU, ~1.8 s the
        first time (matplotlib); where a person's front-end shows the view (widgets.viewers:
        from the first display on) nobody would see it, so it is not drawn. A front-end that
        takes input but draws no widgets (qtconsole, a JupyterLab without ipywidgets) shows
        the text line."""
        shown = super()._repr_mimebundle_(**kwargs)
        if shown is None or live_front_end():
            return shown
        data, metadata = shown
        data["image/png"] = base64.b64encode(self.figure_png()).decode("ascii")
        metadata["attnlab"] = signature(self.FIGURE, self.drawn())
        return data, metadata


def figure_class(
    figure: str, base: type[FigureWidget] = FigureWidget, shapes: Shapes | None = None
) -> type[FigureWidget]:
    """The widget class of page figure `figure`, its front-end that figure's bundled view."""
    name = "".join(part.title() for part in figure.split("-")) + "Widget"
    attrs = {"FIGURE": figure, "_esm": bundle(figure), "__module__": base.__module__}
    return type(name, (base,), attrs | {"SHAPES": dict(shapes or {})})
