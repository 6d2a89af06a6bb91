"""The figures whose settings are all there is: FIG 3, 4, 5, 6 and 8 as widgets.

w = scaling(d_k=64, scaled=False)     # FIG 3: why scores are divided by √d
w.settings = {"scaled": True}          # recomputed in the kernel, redrawn in the view
"""

from __future__ import annotations

from typing import Any

from attnlab.widgets.base import FigureWidget, figure_class

ScalingWidget = figure_class("scaling")
PositionWidget = figure_class("position")
DepthWidget = figure_class("depth")
KvCacheWidget = figure_class("kv-cache")
FlashWidget = figure_class("flash")


def scaling(*, lang: str = "en", **settings: Any) -> FigureWidget:
    """FIG 3 (§4): softmax of q·k over d_k, scaled by √d_k or not; settings d_k, scaled, seed."""
    return ScalingWidget(lang=lang, **settings)


def position(*, lang: str = "en", **settings: Any) -> FigureWidget:
    """FIG 4 (§4): sinusoidal encodings and RoPE; `attnlab figure position --help` lists them."""
    return PositionWidget(lang=lang, **settings)


def depth(*, lang: str = "en", **settings: Any) -> FigureWidget:
    """FIG 5 (§4): stacked blocks with the residual and LayerNorm switches."""
    return DepthWidget(lang=lang, **settings)


def kv_cache(*, lang: str = "en", **settings: Any) -> FigureWidget:
    """FIG 6 (§5): masks and the KV cache, one decoding step at a time."""
    return KvCacheWidget(lang=lang, **settings)


def flash(*, lang: str = "en", **settings: Any) -> FigureWidget:
    """FIG 8 (§5): FlashAttention's online softmax, one tile of keys at a time."""
    return FlashWidget(lang=lang, **settings)
