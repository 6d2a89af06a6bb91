"""The lesson's figures, listed once: every other list of figures is derived from `FIGURES`.

Read from here: `attnlab.figures` (the modules behind `compute_figure`, the CLI's and the web
API's names), `attnlab.export` (the slide drawers), `attnlab.claims` (the claims modules and the
ids F{number}.1 … F{number}.{claims}), `attnlab.lesson` (the names a `::: figure NAME` box may
use) and the page: `GET /api/figures` sends each entry's `describe()` with the figure's settings,
and the page builds the figure's shell (`<figure id="fig-NAME">`, its "FIG n" label) from it, in
the section the entry names (static/js/lib/figureshells.js).

This module imports nothing of the engine, so any layer can read it cheaply.

How to add a figure (say FIG 8, "flash", in §4):
1. One entry at the end of `FIGURES`:
   `Figure("flash", 8, section="parts", module="flash", export="flash", claims=3)`.
   `section` is a part id of the lesson's text (the `id:` of content/*/0N-*.md); the shell is
   placed after that part's text, and the text's `::: figure flash` box moves it where it goes.
   `export=None` if the figure has no slide; `wide=True` for a figure spanning the page.
2. `attnlab/figures/flash.py`: `NAME`, `PARAMS`, `compute(**settings)`, optionally `CONSTANTS`
   (plain data the page's view needs before the first answer, e.g. the table's size) and
   `VIEW_PARAMS` (settings the page keeps in the URL but never sends to the API).
3. `attnlab/export/flash.py` with `draw(fig, data)` (when `export` is set).
4. `attnlab/claims/fig8.py` with `CHECKS` for F8.1 … F8.3 (ids as in shared/CLAIMS.md).
5. `static/js/figures/flash.js` exporting `mount(root, ctx)` (see static/js/lib/view.js; it reads
   `ctx.params` and `ctx.constants`, never restates them), `static/css/figures/flash.css` (the
   page links it for every figure, so it must exist), `static/i18n/flash.{en,zh}.json` (its
   strings, loaded by the view with `loadViewStrings("flash")`).
6. Its `::: figure flash` box in both languages' text (content/{en,zh}/), whose caption's bold
   lead is the figure's title; and its claims in shared/CLAIMS.md.
Nothing else lists figures: not index.html, not the tests (they read this list too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["FIGURES", "Figure", "by_name", "names"]


@dataclass(frozen=True)
class Figure:
    """One figure: its name (CLI, API, page, text), its number ("FIG 2") and where it lives."""

    name: str
    number: int
    section: str  # the lesson part whose text holds it (content/*/: front matter `id`)
    module: str  # attnlab.figures.<module>
    export: str | None  # attnlab.export.<export>, the slide drawer (None: no slide)
    claims: int  # how many claims F{number}.1 … F{number}.{claims} it has (attnlab.claims.fig{n})
    wide: bool = False  # the page gives it the whole width

    @property
    def claims_module(self) -> str:
        return f"fig{self.number}"

    @property
    def claim_ids(self) -> tuple[str, ...]:
        return tuple(f"F{self.number}.{i}" for i in range(1, self.claims + 1))

    def describe(self) -> dict[str, Any]:
        """What the page needs to build the figure's shell."""
        return {"name": self.name, "number": self.number, "section": self.section,
                "wide": self.wide}  # fmt: skip


# fmt: off
FIGURES: tuple[Figure, ...] = (
    Figure("lookup", 1, section="lookup", module="lookup", export="lookup", claims=4),
    Figure("training", 2, section="training", module="training", export="training", claims=11,
           wide=True),
    Figure("scaling", 3, section="parts", module="scaling", export="scaling", claims=3),
    Figure("position", 4, section="parts", module="position", export="position", claims=4),
    Figure("depth", 5, section="parts", module="depth", export="depth", claims=3),
    Figure("kv-cache", 6, section="parts", module="kv_cache", export="kv_cache", claims=3),
    Figure("tokens", 7, section="robots", module="tokens", export="tokens", claims=9),
    Figure("flash", 8, section="math", module="flash", export="flash", claims=3),
)
# fmt: on


def names() -> tuple[str, ...]:
    """Every figure's name, in lesson order."""
    return tuple(f.name for f in FIGURES)


def by_name(name: str) -> Figure:
    """The entry of figure `name` (KeyError for a name that is not one)."""
    return {f.name: f for f in FIGURES}[name]
