"""FIG 7 as a widget, on the learner's own camera frame.

    w = tokens(image=frame, cameras=2, patch=16)   # frame: H × W × 3, ints 0–255 or floats 0–1
    w = tokens(image="frame.jpg")                  # or a PNG, JPEG or WebP file (path or bytes)

The frame is made 224 × 224 by `attnlab.frames.to_frame` (its centre square, box-filtered: the
server does the same with a frame dropped on the page) and cut into patches as
FIG 7 cuts its own drawing (`figures.tokens.patch_grid`); every count, FLOP and KV-cache readout
is FIG 7's own compute(), which depends on the frame's size and the settings, not its pixels.
`w.image = other_frame` swaps the frame and redraws. A frame refused is a `ParamError` naming
`image` and saying what it got (its shape, its range, its file).

The view's two requests that the page sends to its server come to the kernel instead, over the
widget's api channel (widgets/src/kernelapi.js): one attention layer timed here (GET
/api/tokens/timing, `attnlab.nn.timing`) and a frame dropped on the view (POST
/api/tokens/frame), checked and cut as the server does (`web.tokens_api.image_bytes`,
`figures.tokens.frame_patches`). They run one at a time in a worker thread, so the kernel
stays free while a layer is timed.
"""

from __future__ import annotations

import base64
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import numpy as np

from attnlab.figures.tokens import frame_patches, patch_grid, png_bytes
from attnlab.frames import MAX_BYTES, FrameError, to_frame
from attnlab.nn.cost import IMAGE_SIZE
from attnlab.nn.timing import time_attention
from attnlab.params import ParamError, validate
from attnlab.plain import plain
from attnlab.web.inputs import InputError
from attnlab.web.tokens_api import TIMING_PARAMS, image_bytes
from attnlab.widgets.assets import API_CHANNEL, PROTOCOL, bundle
from attnlab.widgets.base import FigureWidget
from attnlab.widgets.refused import Refused

API = PROTOCOL["api"]
TIMING_URL, FRAME_URL = "/api/tokens/timing", "/api/tokens/frame"  # the page's, as the view asks
_WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="attnlab-tokens")  # one at a time


def answer_request(message: dict[str, Any]) -> dict[str, Any]:
    """The body the server would answer for one of the view's requests; ValueError if refused."""
    kind, url = message.get("type"), urlsplit(str(message.get("url", "")))
    if kind == API["get"] and url.path == TIMING_URL:
        settings = validate(TIMING_PARAMS, dict(parse_qsl(url.query)), "text")
        return plain(time_attention(settings["n"], settings["model"]))
    if kind == API["post"] and url.path == FRAME_URL:
        body = message.get("body")
        try:
            data = image_bytes(body if isinstance(body, dict) else {})
        except InputError as err:  # its sentence names the field already
            raise ValueError(err.msg) from None
        try:
            return plain(frame_patches(data))
        except FrameError as err:
            raise ParamError("image", str(err)) from None
    raise ParamError("url", f"the kernel answers GET {TIMING_URL} and POST {FRAME_URL} only")


def own_frame(image: Any) -> np.ndarray:
    """The learner's `image` (an array, an image file's bytes or its path) as FIG 7's frame;
    ParamError naming `image` if it is not one."""
    __tracebackhide__ = True  # pytest and IPython's debugger skip this frame
    try:
        if isinstance(image, (str, os.PathLike)):
            image = _file_bytes(Path(image))
        return to_frame(image)[0]
    except FrameError as err:
        raise Refused("image", str(err)).with_traceback(None) from None


def _file_bytes(path: Path) -> bytes:
    """An image file's bytes, read only when it is no larger than the server reads."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise FrameError(f"the file {path} is {size} bytes; at most {MAX_BYTES} are read")
        return path.read_bytes()
    except OSError as err:
        raise FrameError(f"cannot read the file {path}: {err.strerror}") from None


class TokensWidget(FigureWidget):
    FIGURE = "tokens"
    _esm = bundle("tokens")

    def __init__(self, *, image: Any = None, lang: str = "en", **settings: Any) -> None:
        self._frame = None if image is None else own_frame(image)
        super().__init__(lang=lang, **settings)

    @property
    def image(self) -> np.ndarray | None:
        """The learner's frame as FIG 7 uses it (224 × 224 × 3 uint8), or None for the lesson's."""
        return self._frame

    @image.setter
    def image(self, frame: Any) -> None:
        self._frame = None if frame is None else own_frame(frame)
        self.data = self.compute(self.api_settings())

    def compute(self, settings: Any) -> dict[str, Any]:
        data = super().compute(settings)
        if self._frame is None:
            return data
        url = "data:image/png;base64," + base64.b64encode(png_bytes(self._frame)).decode("ascii")
        own = {
            "image": {"size": IMAGE_SIZE, "png": url},
            "patches": patch_grid(self._frame, settings["patch"]),
        }
        return {**data, **plain(own)}

    def on_view_message(self, channel: Any, message: dict[str, Any]) -> None:
        if channel != API_CHANNEL:
            return super().on_view_message(channel, message)
        _WORKER.submit(self._answer, message)
        return None

    def _answer(self, message: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"type": API["answer"], "id": message.get("id")}
        try:
            reply |= {"ok": True, "body": answer_request(message)}
        except ValueError as err:  # the server's sentence for the same request
            reply |= {"ok": False, "error": str(err)}
        self.send({"channel": API_CHANNEL, "message": reply})


def tokens(image: Any = None, *, lang: str = "en", **settings: Any) -> TokensWidget:
    """FIG 7 (§6): camera pixels → patches → tokens, and the n² cost; `image`: your own frame."""
    return TokensWidget(image=image, lang=lang, **settings)
