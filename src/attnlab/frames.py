"""A camera frame from the reader (FIG 7): decode, check, and make it the 224 × 224 frame a ViT
reads.

The bytes come from a browser, so nothing about them is trusted: their size is capped, only
PNG, JPEG and WebP decoders are tried, and the pixel count a file declares is checked before a
single pixel is decoded (a 100-byte PNG can declare 10⁵ × 10⁵ pixels: a decompression bomb).
The frame is cut to its centre square and shrunk with a box filter, so every output pixel is
the mean of the photo's pixels it covers, and a patch token's colour is that part's mean colour.
"""

from __future__ import annotations

import io
import warnings
from typing import Any

import numpy as np
from PIL import ExifTags, Image, ImageOps, UnidentifiedImageError

from attnlab.nn.ops import Array

__all__ = [
    "FORMATS",
    "MAX_BYTES",
    "MAX_PIXELS",
    "MEDIA_TYPES",
    "UNTYPED",
    "FrameError",
    "check_media_type",
    "decode",
    "to_frame",
]

MEDIA_TYPES = {"image/png": "PNG", "image/jpeg": "JPEG", "image/webp": "WEBP"}  # → PIL's format
FORMATS = tuple(MEDIA_TYPES.values())
UNTYPED = "application/octet-stream"  # what a browser declares for a file of no known type
_QUARTER_TURNS = frozenset({5, 6, 7, 8})  # EXIF orientations that swap width and height
MAX_BYTES = 6 * 2**20  # 6 MiB: a phone photo as a JPEG
MAX_PIXELS = 4096 * 4096  # 16.8 megapixels, 50 MB once decoded to RGB


class FrameError(ValueError):
    """An upload that is not a frame we read; `status` is the HTTP status that says why."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


def decode(
    data: bytes, *, max_bytes: int = MAX_BYTES, max_pixels: int = MAX_PIXELS
) -> tuple[Image.Image, dict[str, Any]]:
    """The image in `data`, checked: ≤ max_bytes, PNG/JPEG/WebP, ≤ max_pixels, not damaged; and
    what it was ({"width", "height", "format"}: the size the file declares, turned upright).

    The image is upright (a phone's EXIF orientation applied) and decoded only as finely as
    `to_frame` needs (a large JPEG is decoded at 1/2, 1/4 or 1/8 scale).
    """
    if len(data) > max_bytes:
        raise FrameError(f"the image is {len(data)} bytes; at most {max_bytes} are read", 413)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=FORMATS)
            width, height = image.size
            if width * height > max_pixels:
                raise FrameError(
                    f"the image declares {width} × {height} pixels; at most {max_pixels} are "
                    "decoded (shrink it first)",
                    413,
                )
            if image.getexif().get(ExifTags.Base.Orientation, 1) in _QUARTER_TURNS:
                width, height = height, width  # the frame a viewer shows is the turned one
            source = {"width": width, "height": height, "format": image.format}
            image.draft("RGB", (2 * 224, 2 * 224))  # JPEG only: decode at a reduced scale
            image.load()
            ImageOps.exif_transpose(image, in_place=True)  # not a copy: 50 MB at 4096²
            return image, source
    except FrameError:
        raise
    except UnidentifiedImageError:
        raise FrameError("not a PNG, JPEG or WebP image") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise FrameError(f"the image has more than {max_pixels} pixels", 413) from None
    except (OSError, SyntaxError, ValueError, EOFError) as err:  # truncated or damaged data
        raise FrameError(f"the image could not be decoded: {err}") from None


def check_media_type(media_type: str) -> None:
    """FrameError unless `media_type` (a data URL's) is one we read, or says no type at all
    (a browser's `application/octet-stream` for a file it cannot name). The bytes decide the
    format either way: a photo saved under another image type's name is still read."""
    if media_type.strip().lower() not in (*MEDIA_TYPES, UNTYPED):
        raise FrameError(f"a data URL of type {media_type!r}: send {', '.join(MEDIA_TYPES)}")


def _from_array(pixels: Array) -> Image.Image:
    """(h, w, 3 or 4) or (h, w): integers in [0, 255] (uint8, or a list of ints), or floats in
    [0, 1] (matplotlib's convention); a refusal says what range or shape it got."""
    a = np.asarray(pixels)
    if a.ndim not in (2, 3) or (a.ndim == 3 and a.shape[2] not in (3, 4)) or 0 in a.shape:
        raise FrameError(f"expected an (h, w), (h, w, 3) or (h, w, 4) array, got shape {a.shape}")
    if a.dtype.kind == "f":
        if not np.all(np.isfinite(a)):
            raise FrameError("float pixels must be finite and in [0, 1]; got NaN or infinity")
        if a.min() < 0 or a.max() > 1:
            raise FrameError(f"float pixels must be in [0, 1]; got [{a.min():.4g}, {a.max():.4g}]")
        a = np.round(a.astype(float) * 255).astype(np.uint8)
    elif a.dtype.kind in "iu":
        if a.min() < 0 or a.max() > 255:
            raise FrameError(f"integer pixels must be in [0, 255]; got [{a.min()}, {a.max()}]")
        a = a.astype(np.uint8)
    else:
        raise FrameError(f"expected integer pixels in [0, 255] or floats in [0, 1]; got {a.dtype}")
    if a.shape[0] * a.shape[1] > MAX_PIXELS:
        raise FrameError(f"the image has more than {MAX_PIXELS} pixels", 413)
    return Image.fromarray(a)


def _rgb(image: Image.Image) -> Image.Image:
    """RGB, with anything transparent laid on white (as a page shows it)."""
    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("RGB")
    return image if image.mode == "RGB" else image.convert("RGB")  # convert would copy it


def to_frame(image: bytes | Array | Image.Image, size: int = 224) -> tuple[Array, dict[str, Any]]:
    """(size, size, 3) uint8 pixels of the centre square of `image`, box-filtered, and what the
    source was ({"width", "height", "format"})."""
    if isinstance(image, (bytes, bytearray, memoryview)):
        image, source = decode(bytes(image))
    else:
        image = image if isinstance(image, Image.Image) else _from_array(image)
        source = {"width": image.width, "height": image.height, "format": image.format or "array"}
    w, h = image.size
    side = min(w, h)
    box = ((w - side) / 2, (h - side) / 2, (w + side) / 2, (h + side) / 2)  # the centre square
    frame = _rgb(image).resize((size, size), Image.Resampling.BOX, box=box)
    return np.asarray(frame, dtype=np.uint8).copy(), source
