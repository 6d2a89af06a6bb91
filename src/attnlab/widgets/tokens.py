"""FIG 7 as a widget, on the learner's own camera frame.

    w = tokens(image=frame, cameras=2, patch=16)   # frame: H × W × 3, uint8 or floats in [0, 1]

The frame is made 224 × 224 by `attnlab.frames.to_frame` (its centre square, box-filtered: the
server does the same with a frame dropped on the page) and cut into patches as
FIG 7 cuts its own drawing (`figures.tokens.patch_grid`); every count, FLOP and KV-cache readout
is FIG 7's own compute(), which depends on the frame's size and the settings, not its pixels.
`w.image = other_frame` swaps the frame and redraws.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from attnlab.figures.tokens import patch_grid, png_bytes
from attnlab.frames import to_frame
from attnlab.nn.cost import IMAGE_SIZE
from attnlab.plain import plain
from attnlab.widgets.assets import bundle
from attnlab.widgets.base import FigureWidget


class TokensWidget(FigureWidget):
    FIGURE = "tokens"
    _esm = bundle("tokens")

    def __init__(self, *, image: Any = None, lang: str = "en", **settings: Any) -> None:
        self._frame = None if image is None else to_frame(image)[0]
        super().__init__(lang=lang, **settings)

    @property
    def image(self) -> np.ndarray | None:
        """The learner's frame as FIG 7 uses it (224 × 224 × 3 uint8), or None for the lesson's."""
        return self._frame

    @image.setter
    def image(self, frame: Any) -> None:
        self._frame = None if frame is None else to_frame(frame)[0]
        self.data = self.compute(dict(self.settings))

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


def tokens(image: Any = None, *, lang: str = "en", **settings: Any) -> TokensWidget:
    """FIG 7 (§6): camera pixels → patches → tokens, and the n² cost; `image`: your own frame."""
    return TokensWidget(image=image, lang=lang, **settings)
