from __future__ import annotations

import numpy as np
import pytest

from attnlab.figures import compute_figure
from attnlab.figures.tokens import patch_grid
from attnlab.frames import to_frame
from attnlab.widgets import ParamError, tokens


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


@pytest.mark.parametrize(
    ("image", "message"),
    [
        (frame() * 3 - 1, "image: float pixels must be in [0, 1]; got [-1, 2]"),
        (np.full((8, 8), np.nan), "image: float pixels must be finite"),
        ([[300, 0], [0, 0]], "image: integer pixels must be in [0, 255]; got [0, 300]"),
        ("no-such-frame.png", "image: cannot read the file no-such-frame.png"),
        (b"not an image", "image: not a PNG, JPEG or WebP image"),
        (np.zeros((4, 4, 5)), "image: expected an (h, w), (h, w, 3) or (h, w, 4) array, got shape"),
    ],
)
def test_a_bad_frame_is_refused_naming_image_and_what_it_got(image, message: str) -> None:
    with pytest.raises(ParamError) as refused:  # a ValueError
        tokens(image=image)
    assert str(refused.value).startswith(message)
    w = tokens()
    with pytest.raises(ParamError, match=r"^image: "):
        w.image = image


def test_a_file_a_path_or_a_list_of_ints_is_a_frame(tmp_path) -> None:
    from PIL import Image

    pixels = (frame(90, 120) * 255).astype(np.uint8)
    Image.fromarray(pixels).save(tmp_path / "frame.png")
    expected, _ = to_frame(pixels)
    for image in (str(tmp_path / "frame.png"), tmp_path / "frame.png", pixels.tolist(),
                  (tmp_path / "frame.png").read_bytes()):  # fmt: skip
        np.testing.assert_array_equal(tokens(image=image).image, expected)


def _answers(w, catch, *messages) -> list:
    from attnlab.widgets.tokens import _WORKER, API_CHANNEL
    from tests.widgets.conftest import from_view

    sent = catch(w)
    for i, message in enumerate(messages, 1):
        from_view(w, API_CHANNEL, {**message, "id": i})
    _WORKER.submit(lambda: None).result(timeout=60)  # the worker has answered them all
    return sent.of(API_CHANNEL)


def test_the_views_server_requests_are_answered_by_the_kernel(catch) -> None:
    import base64
    import io

    from PIL import Image

    png = io.BytesIO()
    Image.fromarray((frame(120, 160) * 255).astype(np.uint8)).save(png, format="PNG")
    image = "data:image/png;base64," + base64.b64encode(png.getvalue()).decode("ascii")
    w = tokens()
    timing_url, frame_body = "/api/tokens/timing?n=401&model=small", {"image": image}
    timing, own = _answers(
        w,
        catch,
        {"type": "get", "url": timing_url},
        {"type": "post", "url": "/api/tokens/frame", "body": frame_body},
    )
    assert timing["type"] == "answer" and timing["id"] == 1 and timing["ok"]
    assert timing["body"]["n"] == 401 and 0 < timing["body"]["n_timed"] <= 401
    assert timing["body"]["plain"]["seconds"] > 0  # measured here, in the kernel
    assert own["id"] == 2 and own["ok"] and own["body"]["source"]["width"] == 160
    assert own["body"]["grids"][0]["count"] == (224 // own["body"]["grids"][0]["size"]) ** 2


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ({"type": "get", "url": "/api/tokens/timing?n=0"}, "n: 0 is out of range"),
        ({"type": "get", "url": "/api/tokens/timing?model=huge"}, "model: 'huge'"),
        ({"type": "post", "url": "/api/tokens/frame", "body": {"image": "abc!"}}, "base64"),
        (
            {"type": "post", "url": "/api/tokens/frame", "body": {"image": "bm90IGFuIGltYWdl"}},
            "not a PNG, JPEG or WebP",
        ),
        ({"type": "get", "url": "/api/claims"}, "the kernel answers GET /api/tokens/timing"),
    ],
)
def test_a_refused_request_gets_the_servers_sentence(catch, message, error) -> None:
    (answer,) = _answers(tokens(), catch, message)
    assert answer["ok"] is False and error in answer["error"]
