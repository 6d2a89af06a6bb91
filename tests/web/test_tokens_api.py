"""`/api/tokens`: the reader's frame (decoded, checked, refused with a reason) and the timing."""

from __future__ import annotations

import base64
import io
import json
import struct
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from attnlab.figures.tokens import PATCHES
from attnlab.frames import MAX_BYTES, MAX_PIXELS
from attnlab.web import tokens_api

FRAME = "/api/tokens/frame"
AFTER_MB = 40  # what the server may keep of 16 decoded frames once they are answered
NOISE = np.random.default_rng(0).integers(0, 256, size=(64, 64, 3), dtype=np.uint8)


def _png(pixels: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG")
    return buf.getvalue()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _bomb_png(width: int, height: int) -> bytes:
    """A tiny PNG that declares width × height pixels (its data would decompress to GBs)."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 1024)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    )


def _message(response) -> str:
    detail = response.json()["detail"]
    return detail if isinstance(detail, str) else " ".join(d["msg"] for d in detail)


def test_a_png_becomes_the_224_frame_and_its_patch_grids(client) -> None:
    rng = np.random.default_rng(3)
    pixels = rng.integers(0, 256, size=(300, 400, 3), dtype=np.uint8)
    r = client.post(FRAME, json={"image": _b64(_png(pixels))})
    assert r.status_code == 200, r.text
    answer = r.json()
    assert answer["source"] == {"width": 400, "height": 300, "format": "PNG"}
    assert answer["image"]["size"] == 224 and answer["image"]["png"].startswith("data:image/png")
    assert [g["size"] for g in answer["grids"]] == list(PATCHES)
    for grid in answer["grids"]:
        side = 224 // grid["size"]
        assert np.array(grid["mean_rgb"]).shape == (side, side, 3)


def test_a_data_url_and_a_jpeg_are_read(client) -> None:
    buf = io.BytesIO()
    Image.new("RGB", (640, 480), (10, 200, 30)).save(buf, format="JPEG", quality=95)
    r = client.post(FRAME, json={"image": "data:image/jpeg;base64," + _b64(buf.getvalue())})
    assert r.status_code == 200, r.text
    assert r.json()["source"]["format"] == "JPEG"
    mean = np.array(r.json()["grids"][0]["mean_rgb"])
    assert np.abs(mean - [10, 200, 30]).max() <= 3  # JPEG's own rounding


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ({"image": "not base64 !!"}, 422, "base64"),
        ({"image": _b64(b"hello, this is text, not a picture")}, 422, "not a PNG, JPEG or WebP"),
        ({"image": _b64(_bomb_png(100_000, 100_000))}, 413, "pixels"),
        ({"image": _b64(_bomb_png(5000, 5000)[:60])}, 413, "pixels"),
        ({"image": _b64(_png(NOISE)[:2000])}, 422, "decoded"),
        ({"image": 42}, 422, "base64 string"),
        ({"picture": "x"}, 422, "expected"),
        ({"image": "data:image/png,abc"}, 422, "data URL"),
    ],
)
def test_bad_uploads_are_refused_with_a_reason(client, body, status, says) -> None:
    r = client.post(FRAME, json=body)
    assert r.status_code == status, r.text
    assert says in _message(r)


@pytest.mark.parametrize(
    ("head", "says"),
    [
        ("data:text/html;base64,", "text/html"),
        ("data:image/svg+xml;base64,", "image/svg+xml"),
        ("data:image/gif;base64,", "image/gif"),
        ("data:;base64,", "data URL of type"),
    ],
)
def test_a_data_url_must_declare_an_image_type_we_read(client, head, says) -> None:
    r = client.post(FRAME, json={"image": head + _b64(_png(NOISE))})
    assert r.status_code == 422 and says in _message(r), r.text


@pytest.mark.parametrize("kind", ["IMAGE/PNG", "image/jpeg", "application/octet-stream"])
def test_the_bytes_decide_the_format_under_any_image_type(client, kind) -> None:
    r = client.post(FRAME, json={"image": f"data:{kind};base64," + _b64(_png(NOISE))})
    assert r.status_code == 200 and r.json()["source"]["format"] == "PNG", r.text


def test_a_gif_is_not_among_the_formats_read(client) -> None:
    buf = io.BytesIO()
    Image.new("RGB", (32, 32)).save(buf, format="GIF")
    r = client.post(FRAME, json={"image": _b64(buf.getvalue())})
    assert r.status_code == 422 and "not a PNG" in _message(r)


def test_too_many_bytes_are_refused_before_decoding(client) -> None:
    r = client.post(FRAME, json={"image": "A" * (tokens_api.MAX_BODY_BYTES + 8)})
    assert r.status_code == 413, r.text
    big = _b64(b"\x89PNG" + b"\0" * (MAX_BYTES + 10))
    r = client.post(FRAME, json={"image": big})
    assert r.status_code == 413 and str(MAX_BYTES) in _message(r)


def test_the_upload_passes_the_guard_like_every_post(client) -> None:
    body = {"image": _b64(_png(np.zeros((8, 8, 3), np.uint8)))}
    other = client.post(FRAME, json=body, headers={"origin": "https://evil.example"})
    assert other.status_code == 403
    form = client.post(FRAME, content=b"image=abc", headers={"content-type": "text/plain"})
    assert form.status_code == 415
    own = client.post(FRAME, json=body, headers={"origin": "http://127.0.0.1:8000"})
    assert own.status_code == 200


def test_the_frame_cache_is_bounded_and_answers_a_repeat_from_memory(monkeypatch) -> None:
    calls = []
    real = tokens_api.frame_patches
    monkeypatch.setattr(tokens_api, "frame_patches", lambda data: calls.append(1) or real(data))
    cache = tokens_api.FrameCache(size=2)
    images = [_png(np.full((4, 4, 3), i, np.uint8)) for i in range(3)]
    for data in [*images, images[2]]:
        cache.get(data)
    assert len(cache.answers) == 2 and len(calls) == 3  # the repeat was not decoded again


def test_the_openapi_description_lists_every_status() -> None:
    from attnlab.web import create_app

    doc = create_app().openapi()
    post = doc["paths"][FRAME]["post"]
    assert {"200", "403", "413", "415", "422", "503"} <= set(post["responses"])
    assert post["requestBody"]["content"]["application/json"]["schema"]["required"] == ["image"]
    assert str(MAX_PIXELS) in post["responses"]["413"]["description"]
    timing = doc["paths"]["/api/tokens/timing"]["get"]
    assert {"200", "422"} <= set(timing["responses"])


IMAGE_STRINGS = [
    "", "ab", "abc", "ab=c", "a===", "====", "ab==", "abc=", "abcd", "abcd\n", "ab cd", "ab-_",
    "data:image/png;base64,", "data:image/png;base64,abcd", "data:,abcd", "data:image/png,abcd",
    "data:" + "x" * 64 + ";base64,abcd", "data:image/gif;base64,abcd", "data:text/html;base64,abcd",
    "data:image/webp;" + "x" * 64 + ";base64,abcd", "data:image/webp;" + "x" * 65 + ";base64,abcd",
    "data:application/octet-stream;base64,abcd", "data:image/jpeg;name=a.jpg;base64,abcd",
]  # fmt: skip


@pytest.mark.parametrize("image", IMAGE_STRINGS)
def test_the_schema_says_exactly_which_strings_the_server_reads(image: str) -> None:
    # {"image": ""} was valid by the schema and refused: the schema's pattern and lengths and
    # the server's check are built from the same constants, and agree on every one of these
    import re

    from attnlab.web.inputs import InputError

    schema = tokens_api.FRAME_BODY["content"]["application/json"]["schema"]["properties"]["image"]
    ecma = schema["pattern"].removesuffix("$") + r"\Z"  # JSON Schema's $ is the very end
    valid = bool(re.search(ecma, image)) and schema["minLength"] <= len(image)
    try:
        tokens_api.image_bytes({"image": image})
        read = True
    except InputError:
        read = False
    assert valid == read


def test_the_schemas_longest_image_is_the_servers() -> None:
    from attnlab.web.inputs import InputError

    schema = tokens_api.FRAME_BODY["content"]["application/json"]["schema"]["properties"]["image"]
    head = tokens_api.LONGEST_HEAD
    longest = head + "A" * (schema["maxLength"] - len(head))
    assert len(tokens_api.image_bytes({"image": longest})) <= MAX_BYTES + 2  # read, not refused
    with pytest.raises(InputError) as refused:
        tokens_api.image_bytes({"image": longest + "AAAA"})
    assert refused.value.status == 413


def test_the_timing_answers_within_its_grid_and_names_the_machine(client) -> None:
    r = client.get("/api/tokens/timing", params={"n": 100, "model": "small"})
    assert r.status_code == 200, r.text
    t = r.json()
    assert t["n"] == 100 and t["n_timed"] == 64  # the grid point below
    assert t["flops"] == 4 * 64 * 64 * 512
    assert t["plain"]["seconds"] > 0 and t["plain"]["gflops"] > 0
    assert t["machine"]["cores"] >= 1 and t["machine"]["cpu"] and t["machine"]["blas"]


@pytest.mark.parametrize(
    "query", [{"n": 0}, {"n": "abc"}, {"n": 10**8}, {"model": "13b"}, {"x": 1}]
)
def test_bad_timing_queries_are_422(client, query) -> None:
    assert client.get("/api/tokens/timing", params=query).status_code == 422


def _rss_mb(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field} for {pid}")


def _variant(png: bytes, i: int) -> bytes:
    """The same image with a text chunk of its own after IHDR: distinct bytes, the same work."""
    text = f"upload {i}".encode()
    chunk = (
        struct.pack(">I", len(text))
        + b"tEXt"
        + text
        + struct.pack(">I", zlib.crc32(b"tEXt" + text))
    )
    return png[:33] + chunk + png[33:]


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="reads Linux's /proc")
def test_sixteen_largest_uploads_at_once_stay_within_the_memory_ceiling() -> None:
    import httpx

    from tests.cli.test_serve_stops import served

    side = int(MAX_PIXELS**0.5)  # the largest frame read: 4096 × 4096, 50 MB decoded
    blocks = np.random.default_rng(1).integers(0, 256, size=(64, 64, 3), dtype=np.uint8)
    png = _png(np.kron(blocks, np.ones((side // 64, side // 64, 1), np.uint8)))
    bodies = [json.dumps({"image": _b64(_variant(png, i))}) for i in range(17)]
    with served("default") as server, httpx.Client(timeout=120) as http:
        url = f"http://127.0.0.1:{server.port}{FRAME}"

        def post(body: str) -> httpx.Response:
            return http.post(url, content=body, headers={"content-type": "application/json"})

        assert post(bodies[16]).status_code == 200  # the decoder's own modules are loaded
        before = _rss_mb(server.proc.pid)
        Path(f"/proc/{server.proc.pid}/clear_refs").write_text("5")  # VmHWM := VmRSS now
        with ThreadPoolExecutor(16) as clients:
            answers = list(clients.map(post, bodies[:16]))
        peak, after = _rss_mb(server.proc.pid, "VmHWM"), _rss_mb(server.proc.pid)
    codes = sorted(a.status_code for a in answers)
    assert set(codes) <= {200, 503} and codes.count(200) >= tokens_api.DECODERS, codes
    for answer in answers:
        if answer.status_code == 503:
            assert answer.headers["retry-after"] == str(tokens_api.RETRY_AFTER_S)
        else:
            assert answer.json()["source"] == {"width": side, "height": side, "format": "PNG"}
    assert peak - before <= tokens_api.PEAK_MB_PER_TURN * tokens_api.DECODERS, (before, peak)
    assert after - before <= AFTER_MB, (before, after)
