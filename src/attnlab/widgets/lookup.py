"""FIG 1 as a widget, on the learner's own query, keys and values.

    w = lookup(q=[3.0, 0.5], keys=K, values=V)   # K, V: (5, 2) arrays
    w.data["weights"]                            # == attnlab.nn.attention(q[None], K, V)[1][0]

The arrays are the figure's settings (`q`, `keys`, `values`), so they are checked by the same
`Param`s as a URL's or `--set`'s: each number within the figure's range (±8 for q and the keys,
the 80 cm table for the values). A wrong shape is refused first, naming the shape expected; the
arrays are given, assigned (`w.settings = {"keys": K}`) and read back (`w.settings["keys"]`) in
the same shape as `w.data` has them.
"""

from __future__ import annotations

from typing import Any

from attnlab.figures.lookup import COLOURS, D
from attnlab.widgets.base import FigureWidget, figure_class

# the arrays a learner gives, keeps and reads back in these shapes (the Params hold them flat)
SHAPES = {"q": (D,), "keys": (len(COLOURS), D), "values": (len(COLOURS), D)}
LookupWidget = figure_class("lookup", shapes=SHAPES)


def lookup(
    q: Any = None, keys: Any = None, values: Any = None, *, mode: str = "softmax", lang: str = "en"
) -> FigureWidget:
    """FIG 1: query q (2,), keys (5, 2) and values (5, 2) in cm; None keeps the lesson's own."""
    arrays = {"q": q, "keys": keys, "values": values}
    settings = {name: a for name, a in arrays.items() if a is not None}
    return LookupWidget(lang=lang, mode=mode, **settings)
