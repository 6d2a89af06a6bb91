"""FIG 5 (depth), FIG 6 (KV cache) and FIG 7 (tokens) in headless Chromium: each draws, its
controls change the drawing, and the numbers on the page are the engine's numbers
(attnlab.figures.compute_figure), read from data-value attributes so no wording is assumed."""

from __future__ import annotations

from typing import Any

import pytest

from attnlab.figures import compute_figure, kv_cache

pytestmark = pytest.mark.e2e

OWN_FIGURES = ("depth", "kv-cache", "tokens")


def _cosines(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        "#fig-depth .cosine-map .heat-cell", "cells => cells.map(c => c.dataset.value)"
    )


def _wait_value(page: Any, selector: str, value: float | int) -> None:
    """Wait until `selector`'s data-value is `value` (the API answer has been drawn)."""
    page.wait_for_function(
        "([sel, v]) => Number(document.querySelector(sel)?.dataset.value) === v",
        arg=[selector, value],
    )


def test_each_view_draws_without_errors(open_lesson, recorder) -> None:
    page = open_lesson()
    for name in OWN_FIGURES:
        assert page.locator(f"#fig-{name}.is-pending").count() == 0, name
    page.wait_for_selector("#fig-depth .readouts [data-readout=rms][data-value]")
    page.wait_for_selector("#fig-kv-cache [data-key=so-far][data-value]")
    page.wait_for_selector("#fig-tokens .readouts [data-readout=tokens][data-value]")
    assert page.locator("#fig-depth .cosine-map .heat-cell").count() == 64
    assert page.locator("#fig-kv-cache .cell").count() == len(kv_cache.TOKENS) ** 2
    assert page.locator("#fig-tokens .flop-chart path.series:is(.linear, .attention)").count() == 2
    for name in OWN_FIGURES:
        assert page.locator(f"#fig-{name} .fig-error:not([hidden])").count() == 0, name
    assert recorder.page_errors == []


def test_depth_switches_layer_and_depth_change_the_drawing(open_lesson, page) -> None:
    open_lesson("#lang=en&depth.layer=6")
    rms = "#fig-depth [data-readout=rms]"
    page.wait_for_selector(f"{rms}[data-value]")
    assert page.locator("#fig-depth .skip.is-cut").count() == 0
    page.click("#fig-depth [aria-labelledby=seg-dp-res] button[data-value=false]")
    page.wait_for_selector("#fig-depth .skip.is-cut")
    expected = compute_figure("depth", {"residual": False, "layer": 6})
    _wait_value(page, "#fig-depth [data-readout=diversity]", expected["diversity_at_layer"])
    assert expected["diversity_at_layer"] < 1e-10  # the collapse the caption promises
    assert page.locator("#fig-depth .skip.is-cut .skip-cross").first.is_visible()

    before = _cosines(page)
    page.locator("#fig-depth input[name=dp-layer]").focus()
    page.keyboard.press("ArrowLeft")  # layer 6 → 5
    page.wait_for_function("document.querySelector('#fig-depth svg.cosine').dataset.layer === '5'")
    after_layer = _cosines(page)
    assert after_layer != before

    page.locator("#fig-depth input[name=dp-depth]").focus()
    page.keyboard.press("Home")  # depth 24 → 1: the layer follows, so the matrix changes again
    page.wait_for_function("document.querySelector('#fig-depth svg.cosine').dataset.layer === '1'")
    assert _cosines(page) != after_layer
    page.wait_for_function("location.hash.includes('depth.depth=1')")


def test_kv_cache_steps_through_generation_to_the_engine_total(open_lesson, page) -> None:
    open_lesson("#lang=en&kv-cache.mask=causal&kv-cache.cache=true")
    so_far = "#fig-kv-cache [data-key=so-far]"
    page.wait_for_selector(f"{so_far}[data-value]")
    page.click("#fig-kv-cache button:text('Reset')")
    passes = compute_figure("kv-cache", {"mask": "causal", "cache": True})["passes"]
    _wait_value(page, so_far, passes[0]["cumulative"])
    forward = page.locator("#fig-kv-cache .kv-steps button").nth(1)
    for p in passes[1:]:
        forward.click()
        _wait_value(page, so_far, p["cumulative"])
        computed = page.locator("#fig-kv-cache .cell[data-state=computed]").count()
        assert computed == p["computed"]
    total = compute_figure("kv-cache", {"mask": "causal", "cache": True})["count_total"]
    assert int(page.get_attribute(so_far, "data-value")) == total
    assert forward.is_disabled()
    # screen readers hear where the generation stands once the reader stops stepping
    page.wait_for_function(
        "n => document.getElementById('announcer').textContent.includes(n)", arg=str(total)
    )
    # the totals for this mask, with and without the cache, are the engine's
    totals = compute_figure("kv-cache", {"mask": "causal"})["totals"]["causal"]
    for key in ("cached", "uncached"):
        bar = f"#fig-kv-cache .kv-bar-row[data-key={key}] .kv-bar-value"
        shown = page.get_attribute(bar, "data-value")
        assert int(shown) == totals[key]


def test_kv_cache_bidirectional_cache_shows_stale_cells_and_play_runs(open_lesson, page) -> None:
    open_lesson("#lang=en&kv-cache.mask=bidirectional&kv-cache.step=7")
    expected = compute_figure("kv-cache", {"mask": "bidirectional", "step": 7})
    _wait_value(page, "#fig-kv-cache [data-key=stale]", expected["stale_now"])
    stale = page.locator("#fig-kv-cache .cell[data-state=stale]").count()
    assert stale == expected["stale_now"] > 0
    assert page.locator("#fig-kv-cache .kv-check.is-wrong").count() == 1
    play = page.locator("#fig-kv-cache button.primary")
    play.click()
    assert play.get_attribute("aria-pressed") == "true"
    last = compute_figure("kv-cache", {"mask": "bidirectional", "step": 8})
    _wait_value(page, "#fig-kv-cache [data-key=so-far]", last["count_so_far"])
    page.wait_for_function(
        "document.querySelector('#fig-kv-cache button.primary').ariaPressed === 'false'"
    )


def test_tokens_hovering_a_patch_shows_its_numbers(open_lesson, page) -> None:
    open_lesson("#lang=en&tokens.patch=16")
    card = page.locator("#fig-tokens .patch-card")
    page.wait_for_selector("#fig-tokens .patch-card[data-value]")
    hit = page.locator("#fig-tokens .patch-hit")
    hit.scroll_into_view_if_needed()
    box = hit.bounding_box()
    # the centre of patch (row 3, col 11) of the 14 × 14 grid, counted from 0
    hit.hover(position={"x": box["width"] * 11.5 / 14, "y": box["height"] * 3.5 / 14})
    assert (card.get_attribute("data-row"), card.get_attribute("data-col")) == ("3", "11")
    assert int(card.get_attribute("data-value")) == 16 * 16 * 3
    assert "768" in page.inner_text("#fig-tokens .patch-numbers")
    page.locator("#fig-tokens .patch-image").focus()
    page.keyboard.press("ArrowRight")  # the keyboard picks patches too
    assert card.get_attribute("data-col") == "12"

    page.click("#fig-tokens [aria-labelledby=seg-tk-patch] button[data-value='8']")
    _wait_value(page, "#fig-tokens .patch-card", 8 * 8 * 3)
    expected = compute_figure("tokens", {"patch": 8})
    _wait_value(page, "#fig-tokens [data-readout=tokens]", expected["n"])
    assert int(page.get_attribute("#fig-tokens .flop-chart", "data-n")) == expected["n"]
    _wait_value(page, "#fig-tokens [data-readout=share]", expected["attention_share"])
