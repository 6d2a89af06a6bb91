"""What a stored picture was drawn from: a signature that holds on any machine.

A notebook stores each widget's PNG with the signature of the data it was drawn from, so a fresh
run can tell a stale picture from a current one. A hash of the raw floats cannot: another BLAS
kernel (OPENBLAS_CORETYPE, a CPU's SIMD width) sums in another order and moves the last bits,
and a value that is 0 in exact arithmetic comes out as 1e-14 on one machine and 7e-15 or 0.0 on
another, so no rounding to significant digits makes it stable. The signature keeps exact what
is exact and summarises the floats:

    {"figure": "kv-cache", "settings": {...},
     "fields": {name: {"structure": hash of everything but the floats (keys, lengths, ints,
                                      strings, booleans, where the floats are),
                       "n": floats, "sum": Σx, "abs": Σ|x|, "moment": Σ x·(i+1)/n}}}

and `differences` compares two with a stated tolerance: a float summary within
REL_TOL · Σ|x| + ABS_TOL is the same. Measured: under four OpenBLAS core types (SkylakeX,
Haswell, Sandybridge, Prescott without AVX) no float of the tutorial's eight figures moved by
more than 1.5e-14, 600 training steps included; a change a reader could see is far above 1e-9.
The moment weights each float by its place, so two values swapped are a change.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

from attnlab.plain import plain

__all__ = ["ABS_TOL", "REL_TOL", "differences", "signature"]

REL_TOL = 1e-9  # of a field's Σ|x|: five orders above the noise of another kernel
ABS_TOL = 1e-10  # for fields whose floats are all noise around 0 (a max |Δ| of two exact paths)
FLOAT = "<float>"  # where a finite float stood, in a field's structure
SUMMARY = ("sum", "abs", "moment")  # the float summaries `differences` compares with tolerance


def _split(x: Any, floats: list[float]) -> Any:
    """Plain `x` with each float replaced by FLOAT and appended to `floats` (in order)."""
    if isinstance(x, float):  # finite: `plain` refuses NaN and inf
        floats.append(x)
        return FLOAT
    if isinstance(x, dict):
        return {k: _split(v, floats) for k, v in x.items()}
    if isinstance(x, list):
        return [_split(v, floats) for v in x]
    return x


def field_signature(value: Any) -> dict[str, Any]:
    """One field's structure hash and float summaries (see the module docstring)."""
    floats: list[float] = []
    structure = json.dumps(_split(plain(value), floats), sort_keys=True)
    n = len(floats)
    return {
        "structure": hashlib.sha256(structure.encode("utf-8")).hexdigest()[:16],
        "n": n,
        "sum": math.fsum(floats),
        "abs": math.fsum(abs(x) for x in floats),
        "moment": math.fsum(x * (i + 1) / n for i, x in enumerate(floats)),
    }


def signature(figure: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """The signature of figure data `data` (its "settings" kept as they are: the inputs)."""
    fields = {k: field_signature(v) for k, v in data.items() if k not in ("figure", "settings")}
    return {"figure": figure, "settings": plain(data.get("settings", {})), "fields": fields}


def _close(a: float, b: float, scale: float) -> bool:
    return abs(a - b) <= REL_TOL * scale + ABS_TOL


def _field_differences(name: str, a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    exact = [k for k in ("structure", "n") if a[k] != b[k]]
    if exact:
        return [f"{name}: {k} {a[k]!r} != {b[k]!r}" for k in exact]
    scale = max(a["abs"], b["abs"])
    return [
        f"{name}: {k} {a[k]!r} != {b[k]!r} (tolerance {REL_TOL:g}·{scale:.6g} + {ABS_TOL:g})"
        for k in SUMMARY
        if not _close(a[k], b[k], scale)
    ]


def differences(stored: Mapping[str, Any], fresh: Mapping[str, Any]) -> list[str]:
    """What differs between two signatures beyond float noise (empty: drawn from the same data)."""
    found = [
        f"{k}: {stored.get(k)!r} != {fresh.get(k)!r}"
        for k in ("figure", "settings")
        if stored.get(k) != fresh.get(k)
    ]
    a, b = stored.get("fields", {}), fresh.get("fields", {})
    found += [f"{k}: only in one of them" for k in sorted(set(a) ^ set(b))]
    for name in sorted(set(a) & set(b)):
        found += _field_differences(name, a[name], b[name])
    return found
