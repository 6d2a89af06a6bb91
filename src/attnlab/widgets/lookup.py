"""FIG 1 as a widget, on the learner's own query, keys and values.

    w = lookup(q=[3.0, 0.5], keys=K, values=V)   # K, V: (5, 2) arrays
    w.data["weights"]                            # == attnlab.nn.attention(q[None], K, V)[1][0]

The arrays are the figure's settings (`q`, `keys`, `values`), so they are checked by the same
`Param`s as a URL's or `--set`'s: each number within the figure's range (±8 for q and the keys,
the 80 cm table for the values). A wrong shape is refused first, naming the shape expected.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attnlab.figures.lookup import COLOURS, D
from attnlab.params import ParamError
from attnlab.widgets.base import FigureWidget, figure_class

LookupWidget = figure_class("lookup")


def flat_array(name: str, array: Any, shape: tuple[int, ...]) -> list[float]:
    """`array` of exactly `shape` as a flat list of floats (a vector setting); ParamError if not."""
    try:
        a = np.asarray(array, dtype=float)
    except (TypeError, ValueError):
        raise ParamError(name, f"expected an array of numbers of shape {shape}") from None
    if a.shape != shape:
        raise ParamError(name, f"expected shape {shape}, got {a.shape}")
    return a.ravel().tolist()


def lookup(
    q: Any = None, keys: Any = None, values: Any = None, *, mode: str = "softmax", lang: str = "en"
) -> FigureWidget:
    """FIG 1: query q (2,), keys (5, 2) and values (5, 2) in cm; None keeps the lesson's own."""
    arrays = {
        "q": (q, (D,)),
        "keys": (keys, (len(COLOURS), D)),
        "values": (values, (len(COLOURS), D)),
    }
    settings = {n: flat_array(n, a, shape) for n, (a, shape) in arrays.items() if a is not None}
    return LookupWidget(lang=lang, mode=mode, **settings)
