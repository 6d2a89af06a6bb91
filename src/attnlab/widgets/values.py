"""A learner's Python values as a figure's settings: arrays in their own shape, refused by name.

In a notebook a setting arrives as whatever Python holds: a NumPy array, a list, a NumPy scalar.
The figure's `Param`s take JSON values (a vector is a flat list), so each value is made plain
here first, and whatever JSON cannot carry is refused with a `ParamError` naming the setting:
NaN and infinities, complex numbers (NumPy would drop the imaginary part with only a warning),
objects. An array setting (FIG 1's `keys`, shape (5, 2)) is given, kept and read back in its own
shape; it is flattened only for the Params and the view, which hold it as the page's URL does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from attnlab.params import ParamError
from attnlab.plain import plain

Shapes = Mapping[str, tuple[int, ...]]

_REAL = "iuf"  # NumPy's kinds of real numbers (booleans are no numbers in a setting)


def flat_array(name: str, array: Any, shape: tuple[int, ...]) -> list[float]:
    """`array` of exactly `shape`, real and finite, as a flat list of floats (a vector setting)."""
    try:
        a = np.asarray(array)
    except (TypeError, ValueError):  # ragged nested lists
        raise ParamError(name, f"expected an array of numbers of shape {shape}") from None
    if a.dtype.kind == "c":
        raise ParamError(name, "complex numbers are not accepted; expected real numbers")
    if a.dtype.kind not in _REAL:
        raise ParamError(name, f"expected an array of numbers of shape {shape}")
    if a.shape != shape:
        raise ParamError(name, f"expected shape {shape}, got {a.shape}")
    bad = np.argwhere(~np.isfinite(a))
    if bad.size:
        at = tuple(int(i) for i in bad[0])
        raise ParamError(name, f"every number must be finite; got {a[at]} at index {at}")
    return a.astype(float).ravel().tolist()


def plain_setting(name: str, value: Any) -> Any:
    """One setting's value as JSON carries it; ParamError naming `name` where JSON cannot."""
    if isinstance(value, (complex, np.complexfloating)) or (
        isinstance(value, np.ndarray) and value.dtype.kind == "c"
    ):
        raise ParamError(name, "complex numbers are not accepted; expected real numbers")
    try:
        return plain(value)
    except ValueError:  # NaN or an infinity, somewhere inside
        raise ParamError(name, "every number must be finite (no NaN or infinity)") from None
    except TypeError:  # a complex inside a list, an object JSON has no spelling for
        raise ParamError(name, f"cannot be sent as a setting: {value!r}") from None


def to_params(raw: Mapping[str, Any], shapes: Shapes) -> dict[str, Any]:
    """Settings in the learner's shapes → JSON values for the figure's Params (arrays flat)."""
    return {
        name: flat_array(name, v, shapes[name]) if name in shapes else plain_setting(name, v)
        for name, v in raw.items()
    }


def from_params(checked: Mapping[str, Any], shapes: Shapes) -> dict[str, Any]:
    """Checked settings (arrays flat) → the learner's shapes, as nested lists."""
    return {
        name: np.reshape(v, shapes[name]).tolist() if name in shapes else v
        for name, v in checked.items()
    }


def from_view(partial: Mapping[str, Any], shapes: Shapes) -> dict[str, Any]:
    """A view's change (arrays flat, as the page holds them) → the learner's shapes; a flat list
    of the wrong length is passed on as it is, to be refused with its length."""
    out = dict(partial)
    for name, shape in shapes.items():
        v = out.get(name)
        if isinstance(v, list) and len(v) == int(np.prod(shape)):
            out[name] = np.reshape(np.asarray(v, dtype=object), shape).tolist()
    return out
