"""The reader's frame: decoded, checked, cut to the centre square, box-filtered to 224 × 224."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from attnlab import frames
from attnlab.figures.tokens import PATCHES, frame_patches


def _encoded(pixels: np.ndarray, fmt: str = "PNG", **kw) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format=fmt, **kw)
    return buf.getvalue()


def test_a_wide_frame_keeps_its_centre_square() -> None:
    pixels = np.zeros((224, 448, 3), np.uint8)
    pixels[:, 112:336] = (200, 10, 10)  # the centre square is red, the sides black
    frame, source = frames.to_frame(_encoded(pixels))
    assert source == {"width": 448, "height": 224, "format": "PNG"}
    assert frame.shape == (224, 224, 3) and (frame == (200, 10, 10)).all()


def test_an_array_and_floats_are_read_too() -> None:
    floats = np.full((100, 100, 3), 0.5)
    frame, source = frames.to_frame(floats)
    assert source["format"] == "array" and abs(int(frame.mean()) - 128) <= 1
    grey, _ = frames.to_frame(np.full((50, 60), 7, np.uint8))
    assert grey.shape == (224, 224, 3) and (grey == 7).all()


def test_transparent_pixels_lie_on_white() -> None:
    rgba = np.zeros((32, 32, 4), np.uint8)  # fully transparent black
    frame, _ = frames.to_frame(_encoded(rgba))
    assert (frame == 255).all()


def test_a_phone_photo_is_turned_upright() -> None:
    pixels = np.zeros((40, 80, 3), np.uint8)
    pixels[:, :40] = 255  # left half white
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90° clockwise to view"
    data = _encoded(pixels, "JPEG", exif=exif, quality=95)
    image, source = frames.decode(data)
    assert image.size == (40, 80)  # upright: tall, not wide
    assert (source["width"], source["height"]) == image.size  # the frame shown, not the file's
    frame, _ = frames.to_frame(data)
    assert frame[:20].mean() > 200 and frame[-20:].mean() < 50  # white went to the top


@pytest.mark.parametrize(
    ("data", "status"),
    [
        (b"GIF89a" + b"\0" * 40, 422),
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 30, 422),
        (b"", 422),
    ],
)
def test_what_is_not_an_image_is_refused(data, status) -> None:
    with pytest.raises(frames.FrameError) as err:
        frames.decode(data)
    assert err.value.status == status


def test_the_limits_are_checked_before_decoding() -> None:
    data = _encoded(np.zeros((64, 64, 3), np.uint8))
    with pytest.raises(frames.FrameError, match="bytes") as err:
        frames.decode(data, max_bytes=len(data) - 1)
    assert err.value.status == 413
    with pytest.raises(frames.FrameError, match="pixels") as err:
        frames.decode(data, max_pixels=64 * 64 - 1)
    assert err.value.status == 413
    with pytest.raises(frames.FrameError, match="array"):
        frames.to_frame(np.zeros((4, 4, 5)))


def test_frame_patches_cuts_every_patch_size() -> None:
    answer = frame_patches(np.full((300, 300, 3), 9, np.uint8))
    assert answer["image"]["png"].startswith("data:image/png;base64,")
    assert [g["size"] for g in answer["grids"]] == list(PATCHES)
    assert all((np.array(g["mean_rgb"]) == 9).all() for g in answer["grids"])
    assert [g["count"] for g in answer["grids"]] == [(224 // p) ** 2 for p in PATCHES]


def test_uint8_and_floats_give_the_same_frame() -> None:
    img = np.random.default_rng(1).integers(0, 256, size=(500, 500, 3), dtype=np.uint8)
    a, _ = frames.to_frame(img)
    b, _ = frames.to_frame(img / 255.0)
    assert a.shape == (224, 224, 3) and a.dtype == np.uint8
    np.testing.assert_array_equal(a, b)


def test_a_224_frame_is_kept_and_a_flat_colour_stays_flat() -> None:
    img = np.random.default_rng(2).integers(0, 256, size=(224, 224, 3), dtype=np.uint8)
    np.testing.assert_array_equal(frames.to_frame(img)[0], img)
    flat = np.full((1080, 1920, 3), [10, 200, 30], dtype=np.uint8)
    assert np.all(frames.to_frame(flat)[0] == [10, 200, 30])


def test_integer_pixels_of_any_dtype_are_read_as_uint8() -> None:
    img = np.random.default_rng(3).integers(0, 256, size=(40, 40, 3), dtype=np.uint8)
    as_list = img.tolist()  # Python ints: NumPy makes them int64
    np.testing.assert_array_equal(frames.to_frame(as_list)[0], frames.to_frame(img)[0])


def test_shrinking_averages_instead_of_aliasing() -> None:
    stripes = np.zeros((448, 448, 3), dtype=np.uint8)
    stripes[:, ::2] = 255  # one-pixel stripes: a 2× shrink must give grey, not one of them
    assert np.all(np.abs(frames.to_frame(stripes)[0].astype(int) - 128) <= 1)


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (np.zeros((10, 10, 5)), "got shape \\(10, 10, 5\\)"),
        (np.full((10, 10, 3), 256, dtype=np.int64), "in \\[0, 255\\]; got \\[256, 256\\]"),
        (np.zeros((10, 10, 3), dtype=bool), "got bool"),
        (np.full((10, 10, 3), 1.5), "in \\[0, 1\\]; got \\[1.5, 1.5\\]"),
        (np.full((10, 10, 3), np.nan), "finite"),
        (np.zeros((0, 10, 3), dtype=np.uint8), "array"),
    ],
)
def test_bad_arrays_are_refused(frame: np.ndarray, message: str) -> None:
    with pytest.raises(frames.FrameError, match=message):
        frames.to_frame(frame)
