"""Plain data for JSON: NumPy arrays and scalars become lists, ints and floats.

Figure data crosses to the browser and to `--json` output. NaN and infinities have no JSON
spelling, so they are refused here rather than silently written as invalid JSON.

Two ways to the same data: `plain_reference` is the readable definition, element by element;
`plain` gives the same values (tests/test_plain.py holds them equal, bit for bit) with fast
paths: a numeric array is checked for NaN/inf in one call and converted by `tolist()`, and a
flat list of Python floats, ints, strings or bools is checked without a call per element
(cProfile: the element by element walk was a third of a figure request's CPU).

`Encoded` holds a part of a figure's data that no setting changes (FIG 4's PE table, FIG 7's
frame): its JSON text is written once, and `encode` splices it into each answer as it is.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

_NUMERIC = frozenset("biuf")  # bool, int, unsigned, float: `tolist()` gives plain values
_SCALARS = frozenset({float, int, str, bool})  # plain as they are (a float once checked)


def plain(obj: Any, *, digits: int | None = None) -> Any:
    """Recursively convert `obj` to JSON-safe Python values; raise on NaN/inf.

    `digits` rounds floats to that many significant digits (smaller payloads for the page).
    """
    kind = type(obj)
    if kind is float:
        return _finite(obj, digits)
    if kind is int or kind is str or obj is None or kind is bool:
        return obj
    if kind is np.ndarray and obj.dtype.kind in _NUMERIC and not digits:
        if obj.dtype.kind == "f" and not np.isfinite(obj).all():
            _finite(float(obj[~np.isfinite(obj)].flat[0]), None)
        return obj.tolist()
    if kind is list or kind is tuple:
        flat = _flat(obj, digits)
        return flat if flat is not None else [plain(v, digits=digits) for v in obj]
    if kind is dict:
        return {str(k): plain(v, digits=digits) for k, v in obj.items()}
    if kind is Encoded:
        return plain(obj.value, digits=digits)
    return plain_reference(obj, digits=digits)


def _finite(x: float, digits: int | None) -> float:
    if not math.isfinite(x):
        raise ValueError(f"non-finite number {x} cannot go to JSON")
    return float(f"{x:.{digits}g}") if digits else x


def _flat(obj: list[Any] | tuple[Any, ...], digits: int | None) -> list[Any] | None:
    """A list of only Python floats (all finite), ints, strings or bools, as a new list; else
    None."""
    if digits or not obj:
        return None
    first = type(obj[0])
    if first not in _SCALARS or not all(type(v) is first for v in obj):
        return None
    if first is float and not all(map(math.isfinite, obj)):
        for v in obj:
            _finite(v, None)
    return list(obj)


def plain_reference(obj: Any, *, digits: int | None = None) -> Any:
    """`plain`, element by element: the definition the fast paths are held equal to."""
    if isinstance(obj, np.ndarray):
        return plain_reference(obj.tolist(), digits=digits)
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer, int)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        return _finite(float(obj), digits)
    if isinstance(obj, Mapping):
        return {str(k): plain_reference(v, digits=digits) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain_reference(v, digits=digits) for v in obj]
    if obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, Encoded):
        return plain_reference(obj.value, digits=digits)
    raise TypeError(f"cannot make {type(obj).__name__} plain")


def dumps(obj: Any) -> str:
    """JSON text as the web answers write it (FastAPI's JSONResponse: compact, UTF-8 as is)."""
    return json.dumps(obj, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":"))


class Encoded:
    """A value that no setting changes, with its JSON text written once (`plain` of it is the
    value's; `encode` splices the text). Made where the value is cached (an lru_cache)."""

    __slots__ = ("text", "value")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.text = dumps(plain(value))


def encode(obj: Any) -> str:
    """`dumps(plain(obj))`, with the text of each `Encoded` that is a value of the dict `obj`
    (or an item of a list that is one) spliced in as it is. The parts between are written in
    one `dumps` each (a call per value cost more than it saved)."""
    if type(obj) is not dict:
        return dumps(plain(obj))
    parts: list[str] = []
    run: dict[str, Any] = {}
    for key, value in obj.items():
        spliced = _spliced(value)
        if spliced is None:
            run[str(key)] = value
            continue
        if run:
            parts.append(dumps(plain(run))[1:-1])
            run = {}
        parts.append(f"{dumps(str(key))}:{spliced}")
    if run:
        parts.append(dumps(plain(run))[1:-1])
    return "{" + ",".join(parts) + "}"


def _spliced(value: Any) -> str | None:
    """The text of an `Encoded`, or of a list holding some; None for anything else."""
    if type(value) is Encoded:
        return value.text
    if type(value) is list and any(type(v) is Encoded for v in value):
        items = (v.text if type(v) is Encoded else dumps(plain(v)) for v in value)
        return "[" + ",".join(items) + "]"
    return None
