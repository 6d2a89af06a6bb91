"""One validation layer for every setting a reader can change.

The CLI (`--set key=value`), the web API (query strings and JSON bodies) and the figure modules
all describe their settings as a tuple of `Param` and call `validate`. A bad value is refused with
a `ParamError` whose message names the setting and its allowed range, so the CLI can print one
line and the web layer can answer 422, and neither ever shows a traceback.

Text (a URL's query, `--set`) is read as text: "2", "true" and "1.5,0.2" are coerced. A JSON
value (a request body, a socket message) is taken strictly for what it is, as the OpenAPI schema
says: a boolean must be `true`/`false` (not 0), an integer a JSON number with no fraction (not "2",
not `true`; 2.0 is one, as JSON Schema says), a vector a JSON array of numbers (not "1,2").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["int", "float", "bool", "choice", "vector"]
Source = Literal["text", "json"]  # how raw values arrive: as text (URL, CLI) or as JSON values

# How a boolean may be spelled in text (any case, spaces around ignored); the page reads its URL
# the same way (static/js/lib/state.js; tests/cases/settings.json holds the two together).
_TRUE = {"1", "true"}
_FALSE = {"0", "false"}


class ParamError(ValueError):
    """A setting is missing, of the wrong type or out of range."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


@dataclass(frozen=True)
class Param:
    """One setting: its name, type, default and allowed range.

    kind "vector" is a flat list of `length` floats, each in [lo, hi] (e.g. 5 keys × 2 = 10
    numbers); a string "1,2,3" is accepted so that it travels in a URL or on the command line.
    """

    name: str
    kind: Kind
    default: Any
    help: str = ""
    lo: float | None = None
    hi: float | None = None
    choices: tuple[Any, ...] = ()
    length: int = 0
    log: bool = False  # a hint for sliders: the natural axis is logarithmic
    extra: dict[str, Any] = field(default_factory=dict)

    def range_text(self) -> str:
        if self.kind == "choice":
            return "one of " + ", ".join(str(c) for c in self.choices)
        if self.kind == "bool":
            return "true or false"
        if self.kind == "vector":
            return f"{self.length} numbers in [{_fmt(self.lo)}, {_fmt(self.hi)}]"
        what = "an integer" if self.kind == "int" else "a number"
        return f"{what} in [{_fmt(self.lo)}, {_fmt(self.hi)}]"

    def describe(self) -> dict[str, Any]:
        """Plain data for `--help`, the web API and the page's controls."""
        out: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "default": self.default,
            "help": self.help,
            "range": self.range_text(),
        }
        if self.lo is not None:
            out["min"] = self.lo
        if self.hi is not None:
            out["max"] = self.hi
        if self.choices:
            out["choices"] = list(self.choices)
        if self.length:
            out["length"] = self.length
        if self.log:
            out["log"] = True
        return out


def _fmt(x: float | None) -> str:
    if x is None:
        return "?"
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _number(p: Param, raw: Any, source: Source = "text") -> float:
    if isinstance(raw, bool) or (source == "json" and not isinstance(raw, (int, float))):
        raise ParamError(p.name, f"expected {p.range_text()}, got {raw!r}")
    try:
        x = float(raw)
    except (TypeError, ValueError, OverflowError):  # OverflowError: float(10**400)
        raise ParamError(p.name, f"expected {p.range_text()}, got {raw!r}") from None
    if not math.isfinite(x):
        raise ParamError(p.name, f"must be finite; expected {p.range_text()}")
    return x


def _in_range(p: Param, x: float) -> None:
    if (p.lo is not None and x < p.lo) or (p.hi is not None and x > p.hi):
        raise ParamError(p.name, f"{_fmt(x)} is out of range; expected {p.range_text()}")


def _coerce_int(p: Param, raw: Any, source: Source) -> int:
    x = _number(p, raw, source)
    if not x.is_integer():
        raise ParamError(p.name, f"{raw!r} is not an integer; expected {p.range_text()}")
    _in_range(p, x)
    return int(x)


def _coerce_float(p: Param, raw: Any, source: Source) -> float:
    x = _number(p, raw, source)
    _in_range(p, x)
    return x


def _coerce_bool(p: Param, raw: Any, source: Source) -> bool:
    if isinstance(raw, bool):
        return raw
    if source == "json":
        raise ParamError(p.name, f"expected true or false, got {raw!r}")
    text = str(raw).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ParamError(p.name, f"expected true or false, got {raw!r}")


def _coerce_choice(p: Param, raw: Any, source: Source) -> Any:
    for c in p.choices:
        if source == "text" and (raw == c or str(raw).strip() == str(c)):
            return c
        if source == "json" and raw == c and _json_kind(raw) == _json_kind(c):  # True is no 1
            return c
    raise ParamError(p.name, f"{raw!r} is not allowed; expected {p.range_text()}")


def _json_kind(x: Any) -> str:
    """JSON's type of a value: `True == 1` in Python, but a boolean is no number in JSON."""
    if isinstance(x, bool):
        return "boolean"
    return "number" if isinstance(x, (int, float)) else type(x).__name__


def _coerce_vector(p: Param, raw: Any, source: Source) -> list[float]:
    items: Sequence[Any]
    if isinstance(raw, str) and source == "text":
        items = [s for s in raw.replace(" ", "").split(",") if s != ""]
    elif isinstance(raw, Sequence) and not isinstance(raw, str):
        items = raw
    else:
        raise ParamError(p.name, f"expected {p.range_text()}, got {raw!r}")
    if len(items) != p.length:
        raise ParamError(p.name, f"got {len(items)} numbers; expected {p.range_text()}")
    out = [_number(p, x, source) for x in items]
    for x in out:
        _in_range(p, x)
    return out


_COERCE = {
    "int": _coerce_int,
    "float": _coerce_float,
    "bool": _coerce_bool,
    "choice": _coerce_choice,
    "vector": _coerce_vector,
}


def coerce(p: Param, raw: Any, source: Source = "text") -> Any:
    """Turn one raw value (text from a URL or CLI, or a JSON value) into a checked value."""
    return _COERCE[p.kind](p, raw, source)


def validate(
    params: Sequence[Param], raw: Mapping[str, Any], source: Source = "text"
) -> dict[str, Any]:
    """Checked settings: defaults filled in, every value coerced and bounded.

    source "text": values are strings to read ("2", "false"); "json": JSON values, taken
    strictly. Unknown names are refused too: a typo must not silently fall back to a default.
    """
    known = {p.name: p for p in params}
    for name in raw:
        if name not in known:
            allowed = ", ".join(known) or "none"
            raise ParamError(name, f"unknown setting; allowed settings: {allowed}")
    return {p.name: coerce(p, raw[p.name], source) if p.name in raw else p.default for p in params}


def parse_assignments(items: Sequence[str]) -> dict[str, str]:
    """`["d_k=64", "scaled=false"]` → `{"d_k": "64", "scaled": "false"}` (for `--set`)."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ParamError(item, "expected key=value")
        out[name.strip()] = value.strip()
    return out
