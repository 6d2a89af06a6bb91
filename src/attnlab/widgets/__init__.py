"""The lesson's figures in a notebook: the page's own views, the engine in the kernel.

    pip install "attnlab[notebook]"

    from attnlab import widgets
    w = widgets.lookup(q=[3.0, 0.5], keys=K, values=V)   # FIG 1 on your own arrays
    w.data["weights"]                                    # computed here, by attnlab.nn
    w.settings = {"q": [0.0, 3.0]}                       # checked, recomputed, redrawn

One widget per figure — `lookup`, `training`, `scaling`, `position`, `depth`, `kv_cache`,
`tokens` — and `attention_map` for any attention weights of your own. Each is an
`anywidget.AnyWidget` whose front-end is the page's view module for that figure, bundled with a
small adapter (widgets/build.mjs); a bad setting raises `ParamError` (a ValueError) here and is
shown in the figure when it comes from the view. Where widgets do not run (GitHub, nbviewer) a
widget shows its figure's PNG from `attnlab.export`.
"""

from __future__ import annotations

from attnlab.params import ParamError
from attnlab.widgets.attention_map import AttentionMapWidget, attention_map, checked_weights
from attnlab.widgets.base import FigureWidget
from attnlab.widgets.figures import depth, flash, kv_cache, position, scaling
from attnlab.widgets.lookup import lookup
from attnlab.widgets.tokens import TokensWidget, tokens
from attnlab.widgets.training import TrainingWidget, training

# the page's figure name → the function making its widget
FIGURES = {
    "lookup": lookup,
    "training": training,
    "scaling": scaling,
    "position": position,
    "depth": depth,
    "kv-cache": kv_cache,
    "tokens": tokens,
    "flash": flash,
}

__all__ = [
    "FIGURES",
    "AttentionMapWidget",
    "FigureWidget",
    "ParamError",
    "TokensWidget",
    "TrainingWidget",
    "attention_map",
    "checked_weights",
    "depth",
    "flash",
    "kv_cache",
    "lookup",
    "position",
    "scaling",
    "tokens",
    "training",
]
