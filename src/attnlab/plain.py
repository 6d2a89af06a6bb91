"""Plain data for JSON: NumPy arrays and scalars become lists, ints and floats.

Figure data crosses to the browser and to `--json` output. NaN and infinities have no JSON
spelling, so they are refused here rather than silently written as invalid JSON.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np


def plain(obj: Any, *, digits: int | None = None) -> Any:
    """Recursively convert `obj` to JSON-safe Python values; raise on NaN/inf.

    `digits` rounds floats to that many significant digits (smaller payloads for the page).
    """
    if isinstance(obj, np.ndarray):
        return plain(obj.tolist(), digits=digits)
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer, int)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        x = float(obj)
        if not math.isfinite(x):
            raise ValueError(f"non-finite number {x} cannot go to JSON")
        return float(f"{x:.{digits}g}") if digits else x
    if isinstance(obj, Mapping):
        return {str(k): plain(v, digits=digits) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v, digits=digits) for v in obj]
    if obj is None or isinstance(obj, str):
        return obj
    raise TypeError(f"cannot make {type(obj).__name__} plain")
