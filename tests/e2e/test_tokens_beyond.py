"""FIG 7 beyond the spec in headless Chromium: the KV-head and latent controls redraw with the
engine's numbers and tick their try-its, the timed layer names its machine, and a generated PNG
chosen in the file input becomes the frame (its patch colours the server's); no console errors."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
from PIL import Image

from attnlab.figures import compute_figure, describe_figure

pytestmark = pytest.mark.e2e

CJK = re.compile(r"[\u4e00-\u9fff]")
FIG = "#fig-tokens"


def _wait_value(page: Any, selector: str, value: float | int) -> None:
    page.wait_for_function(
        "([sel, v]) => Number(document.querySelector(sel)?.dataset.value) === v",
        arg=[selector, value],
    )


def _token_colour(page: Any, rgb: str) -> None:
    """Wait until the picked patch's token square shows colour `rgb` ("rgb(r, g, b)")."""
    page.wait_for_function(
        "([sel, rgb]) => getComputedStyle(document.querySelector(sel)).backgroundColor === rgb",
        arg=[f"{FIG} .patch-token", rgb],
    )


def _stage_met(page: Any, try_id: str, stage: int) -> None:
    page.wait_for_selector(f"aside.try[data-try={try_id}] .try-stage[data-stage='{stage}'].met")


def test_kv_heads_and_latents_redraw_and_tick_their_try_its(open_lesson, recorder) -> None:
    page = open_lesson("#lang=en&tokens.cameras=4&tokens.patch=8")
    kv = f"{FIG} [data-readout=kv]"
    page.wait_for_selector(f"{kv}[data-value]")
    assert page.locator(f"{FIG} [aria-labelledby=seg-tk-kv-heads]").is_hidden()  # MHA: no choice

    page.click(f"{FIG} [aria-labelledby=seg-tk-model] button[data-value='7b']")
    page.click(f"{FIG} [aria-labelledby=seg-tk-kv] button[data-value=gqa]")
    heads = page.locator(f"{FIG} [aria-labelledby=seg-tk-kv-heads]")
    heads.wait_for(state="visible")
    heads.locator("button[data-value='8']").click()
    gqa = compute_figure("tokens", {"cameras": 4, "patch": 8, "model": "7b", "kv": "gqa"})
    _wait_value(page, kv, gqa["kv_cache_bytes"]["total"])
    assert gqa["kv"]["fraction"] == 0.25
    _stage_met(page, "kv-share", 0)
    mqa_button = page.locator(f"{FIG} [aria-labelledby=seg-tk-kv] button[data-value=mqa]")
    mqa_button.focus()
    page.keyboard.press("Enter")  # the keyboard works the controls too
    _wait_value(page, kv, gqa["kv"]["bytes_mha"] / 32)
    _stage_met(page, "kv-share", 1)

    page.click(f"{FIG} [aria-labelledby=seg-tk-model] button[data-value=small]")
    page.click(f"{FIG} [aria-labelledby=seg-tk-latents] button[data-value='256']")
    lat = compute_figure("tokens", {"cameras": 4, "patch": 8, "latents": 256})["latent"]
    _wait_value(page, f"{FIG} [data-readout=latent]", lat["layer_flops"]["attention"])
    page.wait_for_selector(f"{FIG} .flop-chart[data-latents='256']")
    assert page.get_attribute(f"{FIG} path.series.latent-attention", "d")
    _stage_met(page, "latents", 0)
    page.click(f"{FIG} [aria-labelledby=seg-tk-latents] button[data-value='4096']")
    _stage_met(page, "latents", 1)
    assert recorder.console_errors == [] and recorder.page_errors == []


def test_the_timed_layer_names_its_machine(open_lesson, recorder) -> None:
    page = open_lesson("#lang=en&tokens.cameras=1&tokens.patch=32&tokens.actions=0")
    box = page.locator(f"{FIG} .layer-timing")
    page.wait_for_selector(f"{FIG} .layer-timing[data-n-timed]", timeout=30_000)
    n = compute_figure("tokens", {"cameras": 1, "patch": 32, "actions": 0})["n"]  # 50 tokens
    assert box.get_attribute("data-n-timed") == "64" and n < 64
    assert "cores" in box.locator("[data-readout=machine]").inner_text()
    assert float(box.locator("[data-readout=plain]").get_attribute("data-value")) > 0
    assert recorder.console_errors == [] and recorder.page_errors == []


def _png(tmp_path: Any) -> tuple[Any, np.ndarray]:
    """A 448 × 448 PNG of four flat quadrants: every 16-px patch of the frame is one colour."""
    pixels = np.zeros((448, 448, 3), np.uint8)
    pixels[:224, :224], pixels[:224, 224:] = (250, 20, 20), (20, 250, 20)
    pixels[224:, :224], pixels[224:, 224:] = (20, 20, 250), (240, 240, 30)
    path = tmp_path / "frame.png"
    Image.fromarray(pixels).save(path)
    return path, pixels


def test_a_chosen_png_becomes_the_frame_and_a_bad_file_says_why(
    open_lesson, recorder, tmp_path
) -> None:
    page = open_lesson("#lang=en&tokens.patch=16")
    page.wait_for_selector(f"{FIG} .patch-card[data-value]")
    path, _ = _png(tmp_path)
    page.set_input_files(f"{FIG} input.frame-file", str(path))
    page.wait_for_selector(f"{FIG} .fig-body[data-frame=own]")
    assert "448 × 448" in page.inner_text(f"{FIG} .frame-status")
    hit = page.locator(f"{FIG} .patch-hit")
    hit.scroll_into_view_if_needed()
    box = hit.bounding_box()
    hit.hover(position={"x": 0.9 * box["width"], "y": 0.9 * box["height"]})  # lower right
    _token_colour(page, "rgb(240, 240, 30)")
    assert page.get_attribute(f"{FIG} .patch-card", "data-value") == "768"
    page.locator(f"{FIG} .patch-image").focus()
    for _ in range(13):
        page.keyboard.press("ArrowLeft")  # to the lower left quadrant, by keyboard
    _token_colour(page, "rgb(20, 20, 250)")

    bad = tmp_path / "notes.png"
    bad.write_bytes(b"these are notes, not an image")
    page.set_input_files(f"{FIG} input.frame-file", str(bad))
    page.wait_for_selector(f"{FIG} .frame-picker[data-state=error]")
    assert "could not read this file as an image (PNG, JPEG, WebP)" in page.inner_text(
        f"{FIG} .frame-status"
    )
    # the frame shown before the refusal is still there, and so is the way back
    assert page.get_attribute(f"{FIG} .fig-body", "data-frame") == "own"
    assert page.locator(f"{FIG} .frame-back").is_visible()
    page.set_input_files(f"{FIG} input.frame-file", str(path))
    page.wait_for_selector(f"{FIG} .frame-picker[data-state=own]")
    page.click(f"{FIG} .frame-back")
    page.wait_for_selector(f"{FIG} .fig-body[data-frame=synthetic]")
    errors = [e for e in recorder.console_errors if "422" not in e]  # the refused upload's line
    assert errors == [] and recorder.page_errors == []


def test_the_frame_limits_are_the_servers_stated_and_told_in_chinese(
    open_lesson, recorder, tmp_path
) -> None:
    limits = describe_figure("tokens")["constants"]["frame"]  # what the server sends the page
    side = math.isqrt(limits["max_pixels"])
    page = open_lesson("#lang=zh")
    status = page.locator(f"{FIG} .frame-status")
    hint = status.inner_text()
    assert f"{limits['max_bytes'] / 2**20:g} MiB" in hint and f"{side} × {side}" in hint
    assert str(limits["max_pixels"]) not in hint  # not a raw count: "16.8 百万像素"
    sent = []
    page.on("request", lambda r: sent.append(r.url) if "/api/tokens/frame" in r.url else None)

    notes = tmp_path / "notes.txt"
    notes.write_text("not an image")
    page.set_input_files(f"{FIG} input.frame-file", str(notes))
    page.wait_for_selector(f"{FIG} .frame-picker[data-state=error]")
    assert "notes.txt" in status.inner_text() and CJK.search(status.inner_text())

    big = tmp_path / "photo.jpg"  # over the byte limit: refused before a byte is sent
    big.write_bytes(b"\xff\xd8" + bytes(limits["max_bytes"] + 2**20))
    page.set_input_files(f"{FIG} input.frame-file", str(big))
    size = f"{big.stat().st_size / 2**20:.3g} MiB"  # "7 MiB", as the page writes it
    page.wait_for_function(
        f"document.querySelector('{FIG} .frame-status').textContent.includes('{size}')"
    )
    assert f"{limits['max_bytes'] / 2**20:g} MiB" in status.inner_text()
    assert sent == []

    wide = tmp_path / "wide.png"  # few bytes, too many pixels: the server's refusal, in Chinese
    Image.new("L", (side + 1, side)).save(wide)
    page.set_input_files(f"{FIG} input.frame-file", str(wide))
    page.wait_for_function(
        f"document.querySelector('{FIG} .frame-picker').dataset.state === 'error' && "
        f"document.querySelector('{FIG} .frame-status').textContent.includes('{side} × {side}')"
    )
    assert len(sent) == 1 and CJK.search(status.inner_text())
    told = status.inner_text()
    assert "image:" not in told and str(limits["max_pixels"]) not in told
    errors = [e for e in recorder.console_errors if "413" not in e]  # the refused upload's line
    assert errors == [] and recorder.page_errors == []
