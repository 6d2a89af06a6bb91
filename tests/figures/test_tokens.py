from __future__ import annotations

import base64
import json
import struct
import zlib

import numpy as np
import pytest

from attnlab.figures import compute_figure
from attnlab.figures.tokens import camera_image, png_bytes
from attnlab.params import ParamError


def _decode_png(data: bytes) -> np.ndarray:
    """A minimal reader for our own PNGs (8-bit RGB, filter 0): chunks, CRCs, pixels."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, size = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        tag, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(tag + body)
        if tag == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif tag == b"IDAT":
            idat += body
        pos += 12 + length
    w, h = size
    rows = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(h, 1 + 3 * w)
    assert (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(h, w, 3)


def test_token_count_and_cost():
    data = compute_figure("tokens", {"cameras": 4, "patch": 8, "frames": 1, "actions": 0})
    assert data["n"] == data["tokens"]["total"] == 4 * 28 * 28 + 1
    assert data["attention_share"] > 0.5
    lf = data["layer_flops"]
    assert lf["projections"] + lf["mlp"] == lf["linear"]
    assert lf["linear"] + lf["attention"] == pytest.approx(lf["total"], rel=1e-15)
    assert data["crossover_n"] == 6 * data["model_size"]["d"]
    assert data["model_flops"]["total"] == pytest.approx(6 * lf["total"], rel=1e-15)
    assert data["kv_cache_bytes"]["total"] == 2 * 6 * data["n"] * 512 * 2
    json.dumps(data)


@pytest.mark.parametrize(
    ("cameras", "patch", "frames", "actions"), [(1, 32, 1, 0), (3, 14, 7, 100)]
)
def test_token_formula(cameras, patch, frames, actions):
    settings = {"cameras": cameras, "patch": patch, "frames": frames, "actions": actions}
    data = compute_figure("tokens", settings)
    assert data["n"] == cameras * (224 // patch) ** 2 * frames + frames + actions


def test_curve_crosses_at_six_d_and_marks_the_current_point():
    for model in ("small", "7b"):
        data = compute_figure("tokens", {"model": model})
        n = np.array(data["curve"]["n"])
        lin, att = np.array(data["curve"]["linear"]), np.array(data["curve"]["attention"])
        assert (np.diff(n) > 0).all() and n[0] <= 10 and n[-1] >= 200_976
        below = n < data["crossover_n"]
        assert (att[below] < lin[below]).all() and (att[~below] >= lin[~below]).all()
        assert data["point"]["n"] == data["n"]
        assert data["point"]["attention"] == data["layer_flops"]["attention"]


def test_image_is_a_png_of_the_drawn_frame_and_patches_cover_it():
    img, url = camera_image()
    assert img.shape == (224, 224, 3) and img.dtype == np.uint8
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20  # a scene, not a blank
    assert url.startswith("data:image/png;base64,")
    np.testing.assert_array_equal(_decode_png(base64.b64decode(url.split(",", 1)[1])), img)
    np.testing.assert_array_equal(_decode_png(png_bytes(img[:10, :7])), img[:10, :7])
    data = compute_figure("tokens", {"patch": 28})
    grid = data["patches"]
    assert (grid["rows"], grid["cols"], grid["count"]) == (8, 8, 64)
    assert grid["numbers_per_patch"] == 28 * 28 * 3
    means = np.array(grid["mean_rgb"])
    assert means.shape == (8, 8, 3)
    np.testing.assert_allclose(
        means[2, 5], img[56:84, 140:168].reshape(-1, 3).mean(axis=0), atol=0.5
    )


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ({"patch": 7}, "patch"),
        ({"cameras": 10**9}, "cameras"),
        ({"cameras": 0}, "cameras"),
        ({"frames": 17}, "frames"),
        ({"actions": 257}, "actions"),
        ({"actions": float("nan")}, "actions"),
        ({"cameras": "inf"}, "cameras"),
        ({"model": "70b"}, "model"),
    ],
)
def test_invalid_settings_name_the_setting(raw, name):
    with pytest.raises(ParamError) as err:
        compute_figure("tokens", raw)
    assert err.value.name == name and name in str(err.value)
