"""A camera frame as a ViT sees it: resized to the model's square input, then cut into patches.

`camera_frame` takes any H × W × 3 picture (uint8, or floats in [0, 1]: what a camera, Pillow
or matplotlib gives) and returns the IMAGE_SIZE × IMAGE_SIZE × 3 uint8 frame FIG 7 counts tokens
on; `patchify` cuts it into the (n_patches, patch² · 3) rows that become tokens. Pure NumPy: a
box filter for the whole-number part of a shrink (so a large frame does not alias), then
bilinear sampling at pixel centres for the rest.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attnlab.nn.cost import IMAGE_SIZE
from attnlab.params import ParamError

MAX_SIDE = 8192  # a frame larger than this is refused rather than held in memory as floats


def _checked(frame: Any) -> np.ndarray:
    """(H, W, 3) floats in [0, 255]; ParamError naming what is wrong."""
    a = np.asarray(frame)
    if a.ndim != 3 or a.shape[2] != 3:
        raise ParamError("image", f"expected an H × W × 3 RGB array, got shape {a.shape}")
    if not (1 <= a.shape[0] <= MAX_SIDE and 1 <= a.shape[1] <= MAX_SIDE):
        raise ParamError("image", f"each side must be 1 to {MAX_SIDE} pixels, got {a.shape[:2]}")
    if a.dtype == np.uint8:
        return a.astype(float)
    if a.dtype.kind != "f":
        raise ParamError("image", f"expected uint8 or floats in [0, 1], got dtype {a.dtype}")
    if not np.all(np.isfinite(a)) or a.min() < 0 or a.max() > 1:
        raise ParamError("image", "float pixels must be finite and in [0, 1]")
    return a.astype(float) * 255.0


def _box_shrink(a: np.ndarray, size: int) -> np.ndarray:
    """Average k × k blocks, k the whole-number part of side / size on each axis (k ≥ 1)."""
    ky, kx = max(1, a.shape[0] // size), max(1, a.shape[1] // size)
    h, w = a.shape[0] // ky * ky, a.shape[1] // kx * kx
    return a[:h, :w].reshape(h // ky, ky, w // kx, kx, 3).mean(axis=(1, 3))


def _centres(n_in: int, n_out: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Source indices below/above each output pixel centre and the weight of the upper one."""
    x = np.clip((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0, n_in - 1)
    lo = np.floor(x).astype(int)
    return lo, np.minimum(lo + 1, n_in - 1), x - lo


def camera_frame(frame: Any, size: int = IMAGE_SIZE) -> np.ndarray:
    """Any H × W × 3 picture as the size × size × 3 uint8 frame a ViT takes (FIG 7: 224)."""
    a = _box_shrink(_checked(frame), size)
    y0, y1, wy = _centres(a.shape[0], size)
    x0, x1, wx = _centres(a.shape[1], size)
    rows = a[y0] * (1 - wy)[:, None, None] + a[y1] * wy[:, None, None]  # (size, w, 3)
    out = rows[:, x0] * (1 - wx)[None, :, None] + rows[:, x1] * wx[None, :, None]  # (size, size, 3)
    return np.clip(np.round(out), 0, 255).astype(np.uint8)


def patchify(img: np.ndarray, patch: int) -> np.ndarray:
    """(S, S, 3) → (S/patch)² rows of patch² · 3 numbers, row-major over the patch grid (ViT)."""
    side = img.shape[0] // patch
    if side * patch != img.shape[0] or img.shape[0] != img.shape[1]:
        raise ParamError("patch", f"{patch} px patches do not tile a {img.shape[:2]} frame")
    grid = img.reshape(side, patch, side, patch, 3).transpose(0, 2, 1, 3, 4)  # (r, c, p, p, 3)
    return grid.reshape(side * side, patch * patch * 3)
