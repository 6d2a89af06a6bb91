from __future__ import annotations

import numpy as np
import pytest

from attnlab.figures import compute_figure
from attnlab.figures.tokens import patch_grid
from attnlab.frames import FrameError, to_frame
from attnlab.widgets import tokens


def frame(h: int = 360, w: int = 480) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w] / np.array([h, w])[:, None, None]
    return np.stack([x, y, 1 - x], axis=-1)  # floats in [0, 1]


def test_the_learners_frame_is_cut_into_fig7s_patches() -> None:
    w = tokens(image=frame(), patch=32, cameras=3)
    own, _ = to_frame(frame())  # its centre square, box-filtered: as the server does
    assert w.image.shape == (224, 224, 3)
    assert w.data["patches"] == patch_grid(own, 32) | {
        "mean_rgb": patch_grid(own, 32)["mean_rgb"].tolist()
    }
    assert w.data["image"]["png"].startswith("data:image/png;base64,")
    lesson = compute_figure("tokens", {"patch": 32, "cameras": 3}, "json")
    assert w.data["image"] != lesson["image"]
    for key in ("n", "tokens", "layer_flops", "model_flops", "kv_cache_bytes"):
        assert w.data[key] == lesson[key]  # the same readouts: they count, not look


def test_a_new_patch_size_recuts_the_frame() -> None:
    w = tokens(image=frame())
    w.settings = {"patch": 8}
    assert w.data["patches"]["rows"] == 28


def test_swapping_and_removing_the_frame() -> None:
    w = tokens(image=frame())
    w.image = np.zeros((50, 50, 3), dtype=np.uint8)
    assert w.data["patches"]["mean_rgb"][0][0] == [0, 0, 0]
    w.image = None
    assert w.data["image"] == compute_figure("tokens", {})["image"]


def test_a_bad_frame_is_refused() -> None:
    with pytest.raises(FrameError, match="float pixels must be finite and in"):  # a ValueError
        tokens(image=frame() * 2)
