"""FIG 7 (§6, §5 "compute and memory", ViT): from camera pixels to tokens, and the n² wall.

Each camera frame (224 × 224) is cut into patches; each patch becomes one token. With a frame's
proprioception token and the action tokens that gives n, and one layer costs 24nd² FLOPs in its
linear parts plus 4n²d in attention: attention dominates only past n = 6d. We also draw a
synthetic robot-camera image (our own NumPy drawing, no files) so the page can show which pixels
become which token; a reader's own frame goes through `frame_patches`.

What real models do about the wall: share key/value heads (GQA, MQA: a smaller KV cache) and
let m latent tokens read the n inputs (Perceiver: 4nmd attention FLOPs instead of 4n²d).
"""

from __future__ import annotations

import base64
import struct
import zlib
from functools import lru_cache
from typing import Any

import numpy as np

from attnlab import frames
from attnlab.nn.cost import (
    IMAGE_SIZE,
    KV_SHARING,
    MODEL_PRESETS,
    ModelSize,
    attention_share,
    crossover_tokens,
    kv_cache_bytes,
    kv_heads_of,
    latent_crossover_tokens,
    latent_layer_flops,
    layer_flops,
    model_flops,
    patch_numbers,
    token_counts,
    total,
)
from attnlab.nn.ops import Array
from attnlab.params import Param
from attnlab.plain import Encoded

NAME = "tokens"

PATCHES = (8, 14, 16, 28, 32)  # sizes that tile 224 exactly
MAX_CAMERAS, MAX_FRAMES, MAX_ACTIONS = 16, 16, 256
BYTES_FP16 = 2
# GQA's KV heads: each divides both presets' query heads (8 and 32), so every setting is valid.
GQA_HEADS = (2, 4, 8)
LATENTS = (0, 64, 256, 1024, 4096)  # Perceiver's latent tokens; 0 = every token attends to all

# The reader's own frame (POST /api/tokens/frame): the page checks a file against these before
# sending it, and states them, so they are the server's limits (attnlab.frames), sent, not retyped.
CONSTANTS = {
    "frame": {
        "max_bytes": frames.MAX_BYTES,
        "max_pixels": frames.MAX_PIXELS,
        "types": [f"image/{name.lower()}" for name in frames.FORMATS],
    }
}

PARAMS: tuple[Param, ...] = (
    Param("cameras", "int", 2, "number of cameras", lo=1, hi=MAX_CAMERAS),
    Param("patch", "choice", 16, "patch size in pixels (ViT: 16)", choices=PATCHES),
    Param("frames", "int", 1, "frames of history per camera", lo=1, hi=MAX_FRAMES),
    Param("actions", "int", 8, "action tokens", lo=0, hi=MAX_ACTIONS),
    Param(
        "model",
        "choice",
        "small",
        "small: L = 6, d = 512; 7b: L = 32, d = 4096",
        choices=tuple(MODEL_PRESETS),
    ),
    Param(
        "kv",
        "choice",
        "mha",
        "key/value heads: one per query head (mha), one per group (gqa) or one for all (mqa)",
        choices=KV_SHARING,
    ),
    Param("kv_heads", "choice", 8, "KV heads under gqa", choices=GQA_HEADS),
    Param(
        "latents",
        "choice",
        0,
        "latent tokens m that cross-attend to the n inputs (Perceiver); 0 = none",
        choices=LATENTS,
    ),
)

# FLOP curve against n: log-spaced from 10 tokens to past the largest setting (~2·10⁵ tokens).
CURVE_N = np.unique(np.round(np.logspace(1, 6, 101)).astype(np.int64))


# --- the synthetic camera image ------------------------------------------------------------------


def _fill(img: Array, region: Array, rgb: tuple[int, int, int], alpha: float = 1.0) -> None:
    """Paint `rgb` over the pixels where `region` is True (alpha < 1 blends, e.g. shadows)."""
    img[region] = (1 - alpha) * img[region] + alpha * np.array(rgb, dtype=float)


def _draw_scene() -> Array:
    """(224, 224, 3) uint8: a table seen from a wrist-height camera, three objects, a gripper."""
    y, x = np.mgrid[0:IMAGE_SIZE, 0:IMAGE_SIZE].astype(float)
    img = np.zeros((IMAGE_SIZE, IMAGE_SIZE, 3))
    wall = y < 70
    _fill(img, wall, (205, 212, 222))
    _fill(img, wall & (y > 60), (170, 178, 190))  # skirting board
    grain = 10 * np.sin(y / 3.0 + 2 * np.sin(x / 37.0))  # wood grain, a deterministic texture
    table = ~wall
    img[table] = np.stack([178 + grain, 130 + grain, 86 + grain / 2], axis=-1)[table]
    _fill(img, (y >= 70) & (y < 74), (120, 84, 52))  # the table's far edge

    def ellipse(cx: float, cy: float, rx: float, ry: float) -> Array:
        return ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1.0

    def box(x0: float, y0: float, x1: float, y1: float) -> Array:
        return (x >= x0) & (x < x1) & (y >= y0) & (y < y1)

    # red cube: shadow, front face, lighter top face
    _fill(img, ellipse(62, 178, 30, 9), (0, 0, 0), alpha=0.25)
    _fill(img, box(38, 140, 82, 176), (200, 50, 45))
    _fill(img, box(38, 128, 82, 140), (235, 95, 85))
    # blue cup: a cylinder, body then rim
    _fill(img, ellipse(165, 170, 24, 7), (0, 0, 0), alpha=0.25)
    _fill(img, box(145, 118, 185, 168), (40, 90, 190))
    _fill(img, ellipse(165, 168, 20, 6), (40, 90, 190))
    _fill(img, ellipse(165, 118, 20, 6), (20, 50, 120))
    # yellow ball with a highlight
    _fill(img, ellipse(118, 206, 18, 5), (0, 0, 0), alpha=0.25)
    _fill(img, ellipse(114, 190, 16, 16), (235, 190, 40))
    _fill(img, ellipse(109, 184, 5, 5), (250, 235, 160))
    # the gripper coming down from the top: wrist, palm, two fingers with inward pads
    metal, dark = (150, 155, 160), (90, 94, 100)
    _fill(img, box(98, 0, 126, 40), metal)
    _fill(img, box(84, 40, 140, 52), dark)
    _fill(img, box(86, 52, 96, 100), metal)
    _fill(img, box(128, 52, 138, 100), metal)
    _fill(img, box(96, 86, 102, 100), dark)
    _fill(img, box(122, 86, 128, 100), dark)
    return np.clip(np.round(img), 0, 255).astype(np.uint8)


def png_bytes(img: Array) -> bytes:
    """Encode an (h, w, 3) uint8 image as PNG: signature, IHDR, one zlib IDAT, IEND."""
    h, w, _ = img.shape

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    rows = b"".join(b"\x00" + row.tobytes() for row in img)  # filter type 0 on every row
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8 bits, RGB, no interlace
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


@lru_cache(maxsize=1)
def camera_image() -> tuple[Array, str]:
    """The synthetic frame and its PNG data URL (drawn once; it depends on no setting)."""
    img = _draw_scene()
    img.flags.writeable = False
    url = "data:image/png;base64," + base64.b64encode(png_bytes(img)).decode("ascii")
    return img, url


def patch_grid(img: Array, patch: int) -> dict[str, Any]:
    """How the frame becomes tokens: rows × cols patches, each patch² · 3 numbers; the mean colour
    of every patch (rows, cols, 3) lets the page show one token per patch."""
    side = img.shape[0] // patch
    mean_rgb = img.reshape(side, patch, side, patch, 3).mean(axis=(1, 3))
    return {
        "size": patch,
        "rows": side,
        "cols": side,
        "count": side * side,
        "numbers_per_patch": patch_numbers(patch),
        "mean_rgb": np.round(mean_rgb).astype(int),
    }


def frame_patches(image: Any, patches: tuple[int, ...] = PATCHES) -> dict[str, Any]:
    """A reader's own camera frame as FIG 7 shows it: the image (PNG bytes, JPEG, WebP; or an
    (h, w, 3) array) cut to its centre square and box-filtered to 224 × 224, and its patch grid
    at every patch size (`patch_grid`: rows, cols, count, each patch's mean colour).

    The one place where an image becomes patches: the web upload and the notebook widget both
    call it. Raises `attnlab.frames.FrameError` for anything that is not an image we read.
    """
    img, source = frames.to_frame(image, IMAGE_SIZE)
    url = "data:image/png;base64," + base64.b64encode(png_bytes(img)).decode("ascii")
    return {
        "image": {"size": IMAGE_SIZE, "png": url},
        "source": source,
        "grids": [patch_grid(img, p) for p in patches],
    }


# --- the cost of a layer -------------------------------------------------------------------------


def _floats(parts: dict[str, int]) -> dict[str, float]:
    """Counts as floats for JSON: beyond 2⁵³ the page could not hold them as exact integers."""
    return {k: float(v) for k, v in parts.items()} | {"total": float(total(parts))}


def _kv(n: int, size: ModelSize, sharing: str, gqa_heads: int) -> dict[str, Any]:
    """The KV cache under the chosen head sharing, beside full multi-head attention's."""
    h_kv = kv_heads_of(size, sharing, gqa_heads)
    mha = total(kv_cache_bytes(n, size, BYTES_FP16))
    shared = total(kv_cache_bytes(n, size, BYTES_FP16, kv_heads=h_kv))
    return {
        "sharing": sharing,
        "kv_heads": h_kv,
        "n_heads": size.n_heads,
        "queries_per_kv_head": size.n_heads // h_kv,
        "bytes_mha": float(mha),
        "fraction": shared / mha,
    }


def _latent(n: int, m: int, size: ModelSize) -> dict[str, Any] | None:
    """A Perceiver-style layer's FLOPs at n, its crossover and its curve; None without latents."""
    if m == 0:
        return None
    parts = latent_layer_flops(n, m, size.d)
    linear = parts["projections"] + parts["mlp"]
    curve = [latent_layer_flops(int(k), m, size.d) for k in CURVE_N]
    return {
        "m": m,
        "layer_flops": _floats(parts) | {"linear": float(linear)},
        "attention_share": parts["attention"] / total(parts),
        "attention_vs_full": parts["attention"] / layer_flops(n, size.d)["attention"],
        "crossover_n": latent_crossover_tokens(m, size.d),
        "curve": {
            "linear": [float(c["projections"] + c["mlp"]) for c in curve],
            "attention": [float(c["attention"]) for c in curve],
        },
        "point": {"n": n, "linear": float(linear), "attention": float(parts["attention"])},
    }


def compute(
    *,
    cameras: int,
    patch: int,
    frames: int,
    actions: int,
    model: str,
    kv: str = "mha",
    kv_heads: int = 8,
    latents: int = 0,
) -> dict[str, Any]:
    """Token counts, one layer's and the whole model's FLOPs, KV-cache bytes (under the chosen
    KV-head sharing), the FLOP curves against n with the current point (and a latent layer's,
    with latents), and the camera image with its patch grid."""
    size = MODEL_PRESETS[model]
    tokens = token_counts(cameras=cameras, patch=patch, frames=frames, actions=actions)
    n = total(tokens)
    per_layer = layer_flops(n, size.d)
    linear = per_layer["projections"] + per_layer["mlp"]
    kv_info = _kv(n, size, kv, kv_heads)
    return {
        "tokens": tokens | {"total": n},
        "n": n,
        "model_size": {
            "name": size.name,
            "n_layers": size.n_layers,
            "d": size.d,
            "n_heads": size.n_heads,
        },
        "layer_flops": _floats(per_layer) | {"linear": float(linear)},
        "attention_share": attention_share(n, size.d),
        "crossover_n": crossover_tokens(size.d),
        "model_flops": _floats(model_flops(n, size)),
        "kv_cache_bytes": _floats(
            kv_cache_bytes(n, size, BYTES_FP16, kv_heads=kv_info["kv_heads"])
        ),
        "kv": kv_info,
        "latent": _latent(n, latents, size),
        "bytes_per_number": BYTES_FP16,
        "curve": _curve(size.d),
        "point": {"n": n, "linear": float(linear), "attention": float(per_layer["attention"])},
        "image": _image(),
        "patches": _patches(patch),
    }


# The parts of FIG 7's answer that depend on one setting or none, written once (cProfile: the
# patch grid's mean colours, the frame and the curve were most of a request).


@lru_cache(maxsize=len(MODEL_PRESETS))
def _curve(d: int) -> Encoded:
    """One layer's FLOPs (linear parts, attention) along CURVE_N, for width d."""
    curve = [layer_flops(int(m), d) for m in CURVE_N]
    return Encoded(
        {
            "n": CURVE_N,
            "linear": [float(c["projections"] + c["mlp"]) for c in curve],
            "attention": [float(c["attention"]) for c in curve],
        }
    )


@lru_cache(maxsize=1)
def _image() -> Encoded:
    return Encoded({"size": IMAGE_SIZE, "png": camera_image()[1]})


@lru_cache(maxsize=len(PATCHES))
def _patches(patch: int) -> Encoded:
    return Encoded(patch_grid(camera_image()[0], patch))
