from __future__ import annotations

import numpy as np
import pytest

from attnlab.nn.frames import camera_frame, patchify
from attnlab.params import ParamError


def test_uint8_and_floats_give_the_same_frame() -> None:
    rng = np.random.default_rng(1)
    img = rng.integers(0, 256, size=(300, 500, 3), dtype=np.uint8)
    a = camera_frame(img)
    b = camera_frame(img / 255.0)
    assert a.shape == (224, 224, 3) and a.dtype == np.uint8
    assert np.abs(a.astype(int) - b.astype(int)).max() <= 1


def test_a_224_frame_is_kept_and_a_flat_colour_stays_flat() -> None:
    img = np.random.default_rng(2).integers(0, 256, size=(224, 224, 3), dtype=np.uint8)
    np.testing.assert_array_equal(camera_frame(img), img)
    flat = np.full((1080, 1920, 3), [10, 200, 30], dtype=np.uint8)
    assert np.all(camera_frame(flat) == [10, 200, 30])


def test_shrinking_averages_instead_of_aliasing() -> None:
    stripes = np.zeros((448, 448, 3), dtype=np.uint8)
    stripes[:, ::2] = 255  # one-pixel stripes: a 2× shrink must give grey, not one of them
    out = camera_frame(stripes)
    assert np.all(np.abs(out.astype(int) - 128) <= 1)


def test_patchify_is_row_major_patch_by_patch() -> None:
    img = np.arange(224 * 224 * 3).reshape(224, 224, 3) % 251
    rows = patchify(img, 16)
    assert rows.shape == (196, 16 * 16 * 3)
    np.testing.assert_array_equal(rows[15], img[16:32, 16:32].ravel())  # row 1, col 1
    with pytest.raises(ParamError, match="do not tile"):
        patchify(img, 15)


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (np.zeros((10, 10)), "H × W × 3"),
        (np.zeros((10, 10, 4)), "H × W × 3"),
        (np.zeros((10, 10, 3), dtype=np.int64), "dtype int64"),
        (np.full((10, 10, 3), 1.5), "in \\[0, 1\\]"),
        (np.zeros((0, 10, 3), dtype=np.uint8), "1 to 8192"),
    ],
)
def test_bad_frames_are_refused(frame: np.ndarray, message: str) -> None:
    with pytest.raises(ParamError, match=message):
        camera_frame(frame)
