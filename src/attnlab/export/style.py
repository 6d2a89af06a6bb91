"""Shared look of the exported slide figures: the page's Okabe–Ito palette, slide fonts, 16:9.

The colours match `static/js/lib/colours.js`, so a slide and the live page read the same way:
amber is attention and the query, purple the MLP baseline and the keys, blue the values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

AMBER = "#E69F00"  # attention, the query q
PURPLE = "#7B61A8"  # the MLP baseline, the keys k
BLUE = "#0072B2"  # values v
TEAL = "#009E73"  # cached / "good"
RED = "#D55E00"  # unscaled scores, stale cache cells
SKY = "#56B4E9"
INK = "#1f2328"  # truth, axes, text
MUTED = "#6b7280"
GRID = "#e5e7eb"

# the tabletop's six block colours, by the names the figure data uses
OBJECT_COLOURS: dict[str, str] = {
    "red": "#D55E00",
    "orange": "#E69F00",
    "yellow": "#F0E442",
    "green": "#009E73",
    "blue": "#0072B2",
    "purple": "#CC79A7",
}

# FIG 2's heads, one colour each, as static/js/lib/trainheads.js draws them (rings, weight lines):
# attention amber first, then hues no block has
HEAD_COLOURS = ("#E69F00", "#56B4E9", "#9A6200", "#6b7280")

FIGSIZE = (13.333, 7.5)  # inches, 16:9 like a slide
DPI = 150  # 2000 × 1125 pixels
TITLE_SIZE = 20
PANEL_TITLE_SIZE = 15
LABEL_SIZE = 13
TICK_SIZE = 11
NOTE_SIZE = 11

RC: dict[str, object] = {
    "font.size": LABEL_SIZE,
    "axes.titlesize": PANEL_TITLE_SIZE,
    "axes.labelsize": LABEL_SIZE,
    "xtick.labelsize": TICK_SIZE,
    "ytick.labelsize": TICK_SIZE,
    "legend.fontsize": NOTE_SIZE,
    "axes.edgecolor": INK,
    "axes.labelcolor": INK,
    "text.color": INK,
    "xtick.color": INK,
    "ytick.color": INK,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.fonttype": "none",  # text stays text in the SVG, editable on a slide
}


def object_colour(name: str) -> str:
    """Hex colour of a block colour name ("red" … "purple")."""
    return OBJECT_COLOURS[name]


def title(fig: Figure, text: str, numbers: str | None = None) -> None:
    """The figure's headline at slide size; `numbers`, if given, on a second, lighter line."""
    head = fig.suptitle(text, fontsize=TITLE_SIZE, fontweight="bold", color=INK)
    if numbers:
        # one Text holds one weight, so the second line is a plain-weight suptitle below it
        head.set_text(f"{text}\n")
        fig.text(0.5, 0.985, f"\n{numbers}", ha="center", va="top",
                 fontsize=PANEL_TITLE_SIZE + 1, color=MUTED)  # fmt: skip


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten(v: float, _pos: int | None = None) -> str:
    """Tick label 10ⁿ in plain Unicode: no mathtext, so the SVG keeps simple, editable text."""
    if v <= 0:
        return ""
    n = round(math.log10(v))
    return f"10{str(n).translate(SUPERSCRIPT)}" if math.isclose(v, 10.0**n) else ""


def plain_number(v: float, _pos: int | None = None) -> str:
    """Tick label as a plain number (0.5, 2, 1024)."""
    return f"{v:g}"


def log_scale(ax: Axes, which: str, values: Sequence[float], *, base: int = 10) -> None:
    """Log scale on axis `which` ("x" or "y") with readable ticks: plain numbers within one
    decade or for base 2 (1, 2, 4 … 1024), 10ⁿ beyond."""
    (ax.set_xscale if which == "x" else ax.set_yscale)("log", base=base)
    axis = ax.xaxis if which == "x" else ax.yaxis
    span = max(values) / min(values)
    plain = base == 2 or span < 10
    if base == 10 and plain:
        # labels on 1…9 × 10ⁿ in a narrow range, on 1, 2, 5 × 10ⁿ across about a decade
        subs = tuple(range(1, 10)) if span < 3 else (1, 2, 5)
        axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(plain_number if plain else power_of_ten))
    axis.set_minor_locator(NullLocator())  # minor ticks add clutter, not information


def log_y(ax: Axes, values: Sequence[float]) -> None:
    """Log y axis with readable ticks (see `log_scale`)."""
    log_scale(ax, "y", values)


def grid(ax: Axes) -> None:
    """A light grid behind the data."""
    ax.grid(True, color=GRID, linewidth=0.8, zorder=0)
    ax.set_axisbelow(True)


def fmt(x: float, digits: int = 3) -> str:
    """A number for a label: `digits` significant digits, no trailing noise."""
    return f"{x:.{digits}g}"


def vec(v: Sequence[float], digits: int = 3) -> str:
    """A vector for a label, e.g. (34.6, 57.5)."""
    return "(" + ", ".join(fmt(x, digits) for x in v) + ")"
