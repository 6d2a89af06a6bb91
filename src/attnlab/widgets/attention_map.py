"""The learner's own attention weights, drawn as the lesson draws attention.

    attention_map(weights)                          # (n_q, n_k), every row a distribution
    attention_map(w, queries=["head 1"], keys=["red", "blue", "green"])

Rows are checked to be distributions (finite, ≥ 0, summing to 1 within 1e-6) before anything is
drawn: weights from a softmax pass, raw scores are refused with the row that fails. Not a page
figure, so it has no settings; `w.weights = …` redraws.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from attnlab.params import Param, ParamError
from attnlab.plain import plain
from attnlab.widgets.assets import bundle
from attnlab.widgets.base import FigureWidget, png_bytes
from attnlab.widgets.refused import refused

MAX_SIDE = 128  # queries or keys drawn at most (one SVG cell each)
ROW_TOL = 1e-6
CELL_IN = 0.45  # a cell of the PNG, inches
CHAR_IN = 0.085  # a tick label's character at most, inches (matplotlib's 10 pt type)


def checked_weights(weights: Any) -> np.ndarray:
    """(n_q, n_k) floats whose rows are distributions; ParamError naming the first bad row."""
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise ParamError("weights", "expected a 2-D array of numbers") from None
    if w.ndim != 2 or not (1 <= w.shape[0] <= MAX_SIDE and 1 <= w.shape[1] <= MAX_SIDE):
        raise ParamError(
            "weights", f"expected shape (n_q, n_k), each 1 to {MAX_SIDE}, got {w.shape}"
        )
    if not np.all(np.isfinite(w)):
        raise ParamError("weights", "every weight must be finite")
    bad = np.flatnonzero((w.min(axis=1) < 0) | (np.abs(w.sum(axis=1) - 1) > ROW_TOL))
    if bad.size:
        r = int(bad[0])
        raise ParamError("weights", f"row {r} is not a distribution (min {w[r].min():.3g}, "
                         f"sum {w[r].sum():.6g}); pass softmax weights, not scores")  # fmt: skip
    return w


def _labels(name: str, given: Sequence[Any] | None, n: int, prefix: str) -> list[str]:
    if given is None:
        return [f"{prefix}{i + 1}" for i in range(n)]
    labels = [str(x) for x in given]
    if len(labels) != n:
        raise ParamError(
            name, f"expected {n} labels, one per {'row' if name == 'queries' else 'column'}"
        )
    return labels


class AttentionMapWidget(FigureWidget):
    FIGURE = "attention-map"
    _esm = bundle("attention-map")

    def __init__(
        self, weights: Any, queries: Any = None, keys: Any = None, *, lang: str = "en"
    ) -> None:
        self._map = self._checked(weights, queries, keys)
        super().__init__(lang=lang)
        self.data = self.compute({})  # no settings to change, so nothing else computes it

    @property
    def PARAMS(self) -> tuple[Param, ...]:  # no settings: the data is the learner's
        return ()

    def description(self) -> dict[str, Any]:  # not one of the lesson's figures
        return {"params": [], "view_params": [], "constants": {}}

    @staticmethod
    def _checked(weights: Any, queries: Any, keys: Any) -> dict[str, Any]:
        __tracebackhide__ = True  # pytest and IPython's debugger skip this frame
        try:
            w = checked_weights(weights)
            return {"weights": plain(w), "queries": _labels("queries", queries, w.shape[0], "q"),
                    "keys": _labels("keys", keys, w.shape[1], "k")}  # fmt: skip
        except ParamError as err:
            raise refused(err) from None

    @property
    def weights(self) -> np.ndarray:
        return np.asarray(self._map["weights"])

    @weights.setter
    def weights(self, weights: Any) -> None:
        self.update(weights)

    def update(self, weights: Any, queries: Any = None, keys: Any = None) -> None:
        """New weights (and labels; None keeps the current ones when the shape is the same)."""
        w = np.asarray(weights)
        same = w.shape == self.weights.shape
        queries = queries if queries is not None or not same else self._map["queries"]
        keys = keys if keys is not None or not same else self._map["keys"]
        self._map = self._checked(weights, queries, keys)
        self.data = self.compute({})

    def compute(self, settings: Any) -> dict[str, Any]:
        return {"figure": self.FIGURE, "settings": {}, **self._map}

    def drawn(self) -> dict[str, Any]:
        return self._map

    def figure_png(self) -> bytes:
        return png_bytes(self.map_figure(), dpi="figure")  # its own size: a few cells, not a slide

    def map_figure(self) -> Any:
        """The map as a matplotlib Figure (what the PNG shows)."""
        from matplotlib.colors import LinearSegmentedColormap
        from matplotlib.figure import Figure

        from attnlab.export import style

        w = self.weights
        fig = Figure(figsize=(1.2 + CELL_IN * w.shape[1], 1.0 + CELL_IN * w.shape[0]), dpi=100,
                     layout="constrained")  # fmt: skip
        ax = fig.subplots()
        cmap = LinearSegmentedColormap.from_list("attention", ["#f7f5f0", style.AMBER])
        image = ax.imshow(w, cmap=cmap, vmin=0, vmax=1)
        keys = self._map["keys"]
        # labels that fit over their column stand upright (a slanted "x" reads as "+")
        if max(len(k) for k in keys) * CHAR_IN <= CELL_IN:
            ax.set_xticks(range(w.shape[1]), keys)
        else:
            ax.set_xticks(range(w.shape[1]), keys, rotation=45, ha="right")
        ax.set_yticks(range(w.shape[0]), self._map["queries"])
        fig.colorbar(image, ax=ax, label="weight")
        return fig


def attention_map(
    weights: Any, queries: Sequence[Any] | None = None, keys: Sequence[Any] | None = None,
    *, lang: str = "en",
) -> AttentionMapWidget:  # fmt: skip
    """Any (n_q, n_k) attention weights, e.g. from your own model; labels are optional."""
    return AttentionMapWidget(weights, queries, keys, lang=lang)
