"""Engine numbers in the lesson's text: how `{{F2.2.steps}}` or `{{F3.3.std_unscaled_64:.1f}}`
is shown, and the slot a number sits in while the page waits for the engine to measure it.

The page formats exactly the same way in JavaScript (static/js/lib/lessonvalues.js), and
tests/cases/values.json holds the two to the same output; so only the format specs both can
follow are allowed: none, `.Nf` (fixed), `.N%` (percent) and `sciN` (7.9 × 10⁸ with N decimals).

A slot, for a number that may only arrive later (`attnlab.lesson.load_lesson(..., slots=True)`):
- in prose `<span class="val" data-claim="F2.2" data-name="steps" data-fmt=".0f">225</span>`;
- in TeX `\\htmlData{claim=F2.2,name=steps,fmt=.0f}{225}` (KaTeX turns it into the same data-*
  attributes). A `%` would start a TeX comment, so a spec's `%` is spelled `pct` there.
Until the value is known the slot shows "…" (`\\ldots` in TeX) and has the class "pending".
"""

from __future__ import annotations

import html
import math
import numbers
import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "FORMAT_RE",
    "LessonError",
    "check_spec",
    "format_value",
    "lookup",
    "slot_html",
    "slot_tex",
]

FORMAT_RE = re.compile(r"\.\d+[f%]|sci\d*")
PENDING_TEXT = "…"
PENDING_TEX = r"\ldots"
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


class LessonError(ValueError):
    """A content file breaks the format, or a measured value the text needs is missing."""


def check_spec(spec: str | None) -> None:
    """Refuse a format spec the page could not follow (LessonError)."""
    if spec and not FORMAT_RE.fullmatch(spec):
        raise LessonError(f"format {spec!r}: use none, .Nf, .N% or sciN (the page formats too)")


def _scientific(x: float, digits: int, tex: bool) -> str:
    """7.9 × 10⁸ in prose, 7.9\\times10^{8} in math: easier to read than 7.9e+08."""
    mantissa, exponent = f"{x:.{digits}e}".split("e")
    power = str(int(exponent))
    if tex:
        return f"{mantissa}\\times10^{{{power}}}"
    return f"{mantissa} × 10{power.translate(SUPERSCRIPT)}"


def format_value(value: Any, spec: str | None, *, tex: bool = False) -> str:
    """A measured value as the reader sees it: a format spec (see above), or a readable default."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise LessonError(f"value {value!r} is not a number")
    x = float(value)
    if not math.isfinite(x):
        raise LessonError(f"value {x} is not finite")
    check_spec(spec)
    if spec and spec.startswith("sci"):
        return _scientific(x, int(spec[3:] or 1), tex)
    if spec:
        return format(value, spec)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    # Three significant digits read well for 0.97, 7.8 or 0.32; large numbers are counts.
    if abs(x) >= 100:
        return f"{x:.0f}"
    return f"{x:.3g}" if abs(x) >= 1e-3 else f"{x:.1e}"


def lookup(values: Mapping[str, Any], claim: str, name: str) -> Any:
    """values["F2.2.steps"] or values["F2.2"]["steps"]; KeyError when neither is there."""
    if f"{claim}.{name}" in values:
        return values[f"{claim}.{name}"]
    group = values.get(claim)
    if isinstance(group, Mapping) and name in group:
        return group[name]
    raise KeyError(f"{claim}.{name}")


def slot_html(claim: str, name: str, spec: str | None, shown: str | None) -> str:
    """The prose slot of one number; `shown` is its formatted value, None while unknown."""
    pending = " pending" if shown is None else ""
    text = html.escape(PENDING_TEXT if shown is None else shown, quote=False)
    fmt = html.escape(spec or "")
    return (
        f'<span class="val{pending}" data-claim="{claim}" data-name="{name}" '
        f'data-fmt="{fmt}">{text}</span>'
    )


def slot_tex(claim: str, name: str, spec: str | None, shown: str | None) -> str:
    """The TeX slot of one number; `shown` is its TeX-formatted value, None while unknown."""
    fmt = f",fmt={spec.replace('%', 'pct')}" if spec else ""
    body = PENDING_TEX if shown is None else shown.replace("%", r"\%")
    return f"\\htmlData{{claim={claim},name={name}{fmt}}}{{{body}}}"
