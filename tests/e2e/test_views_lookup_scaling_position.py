"""FIG 1 (lookup), FIG 3 (scaling) and FIG 4 (position) in headless Chromium: each draws, the
reader's actions (drag, keys, switches, buttons) change what is drawn, and the numbers on the
page are the engine's (attnlab.figures.compute_figure), read from data-value attributes so that
no wording is assumed."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

import pytest

from attnlab.figures import compute_figure

pytestmark = pytest.mark.e2e

OWN_FIGURES = ("lookup", "scaling", "position")
LOOKUP_BARS = "#fig-lookup svg.weights .bar-series rect"


def _values(page: Any, selector: str) -> list[float]:
    return page.eval_on_selector_all(selector, "els => els.map(e => Number(e.dataset.value))")


def _hash_setting(page: Any, key: str) -> str | None:
    """The value of `key` (e.g. "lookup.q") in the page's URL hash, or None if it is a default."""
    for part in unquote(page.evaluate("location.hash")).lstrip("#").split("&"):
        name, _, value = part.partition("=")
        if name == key:
            return value
    return None


def _eventually(check: Callable[[], bool], timeout: float = 30.0) -> None:
    """Poll `check` until it holds: answers arrive a frame or more after the action."""
    end = time.monotonic() + timeout
    while not check():
        if time.monotonic() > end:
            raise AssertionError("the page never reached the expected state")
        time.sleep(0.05)


def _close(a: list[float], b: list[float], tol: float = 1e-9) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def _lookup_weights_match_engine(page: Any) -> Callable[[], bool]:
    """A check: the drawn weights are the engine's for the query now in the URL."""

    def check() -> bool:
        q = _hash_setting(page, "lookup.q")
        settings = {"q": [float(v) for v in q.split(",")]} if q else {}
        return _close(_values(page, LOOKUP_BARS), compute_figure("lookup", settings)["weights"])

    return check


def test_each_view_draws_without_errors(open_lesson, recorder) -> None:
    page = open_lesson()
    for name in OWN_FIGURES:
        assert page.locator(f"#fig-{name}.is-pending").count() == 0, name
    page.wait_for_selector("#fig-lookup [data-readout=grad][data-value]")
    page.wait_for_selector("#fig-scaling [data-readout=std][data-value]")
    page.wait_for_selector("#fig-position [data-readout=score][data-value]")
    assert page.locator("#fig-lookup .key-handle").count() == 5
    assert page.locator("#fig-lookup .block").count() == 5
    assert _close(_values(page, LOOKUP_BARS), compute_figure("lookup", {})["weights"])
    assert page.locator("#fig-scaling svg.weights .bar-series rect").count() == 16
    assert page.locator("#fig-scaling path.series").count() == 4
    assert page.locator("#fig-position .heat-cell").count() == 64 * 32
    assert page.locator("#fig-position .pooled-original rect").count() == 8
    for name in OWN_FIGURES:
        assert page.locator(f"#fig-{name} .fig-error:not([hidden])").count() == 0, name
    # a formula symbol in the lesson's text lights the drawing that shows it
    for fig, key, drawn in (("lookup", "q", ".query"), ("scaling", "sqrtd", ".hist-scaled"),
                            ("position", "rope", ".rope-rotated")):  # fmt: skip
        part = page.locator(f"#fig-{fig}").locator("xpath=ancestor::section[1]")
        part.locator(f".prose .hl-symbol[data-hl={key}]").first.hover()
        assert page.locator(f"#fig-{fig} {drawn}.lit").count() == 1, fig
    assert recorder.page_errors == []
    # the whole page's console is test_page.py's business; here: nothing from these three views
    ours = (
        "figures/lookup",
        "figures/scaling",
        "figures/position",
        "i18n/lookup",
        "i18n/scaling",
        "i18n/position",
        "lib/bars",
        "lib/heatmap",
    )
    assert [e for e in recorder.console_errors if any(name in e for name in ours)] == []


def test_lookup_dragging_the_query_changes_the_weights(open_lesson, page) -> None:
    page = open_lesson()
    page.wait_for_selector(f"{LOOKUP_BARS}[data-value]")
    before = _values(page, LOOKUP_BARS)
    page.locator("#fig-lookup .key-space").scroll_into_view_if_needed()
    box = page.locator("#fig-lookup .q-handle .hit").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 70, y - 60, steps=8)  # towards the yellow and green keys
    page.mouse.up()
    page.wait_for_function("location.hash.includes('lookup.q=')")
    _eventually(_lookup_weights_match_engine(page))
    assert not _close(_values(page, LOOKUP_BARS), before, tol=1e-3)


def test_lookup_query_moves_with_the_arrow_keys(open_lesson, page) -> None:
    page = open_lesson()
    handle = page.locator("#fig-lookup .q-handle")
    handle.focus()
    qx, qy = compute_figure("lookup", {})["settings"]["q"]
    for _ in range(5):
        page.keyboard.press("ArrowUp")  # 0.1 a press: q = (qx, qy) → (qx, qy + 0.5)
    expected = compute_figure("lookup", {"q": [qx, round(qy + 0.5, 2)]})["weights"]
    _eventually(lambda: _close(_values(page, LOOKUP_BARS), expected))
    assert f"{qy + 0.5:.1f}" in handle.get_attribute("aria-label")
    page.keyboard.press("Shift+ArrowLeft")  # ten times as far: q = (qx − 1, qy + 0.5)
    expected = compute_figure("lookup", {"q": [round(qx - 1, 2), round(qy + 0.5, 2)]})["weights"]
    _eventually(lambda: _close(_values(page, LOOKUP_BARS), expected))


def test_lookup_hard_mode_has_zero_gradient(open_lesson, page) -> None:
    page = open_lesson()
    grad = "#fig-lookup [data-readout=grad]"
    page.wait_for_selector(f"{grad}[data-value]")
    assert float(page.get_attribute(grad, "data-value")) > 1  # the soft lookup has a gradient
    page.click("#fig-lookup [aria-labelledby=seg-lk-mode] button[data-value=hard]")
    page.wait_for_function(f"document.querySelector('{grad}').dataset.value === '0'")
    assert page.inner_text(grad).startswith("0")
    assert sorted(_values(page, LOOKUP_BARS)) == [0, 0, 0, 0, 1]
    page.wait_for_function("location.hash.includes('lookup.mode=hard')")


def _marker_x(page: Any) -> str:
    return page.get_attribute("#fig-scaling .dk-marker", "x1")


def test_scaling_slider_and_switch_change_histogram_and_marker(open_lesson, page) -> None:
    page = open_lesson()
    std = "#fig-scaling [data-readout=std]"
    page.wait_for_selector(f"{std}[data-value]")
    hist = "#fig-scaling .hist-unscaled path"
    path_before, marker_before = page.get_attribute(hist, "d"), _marker_x(page)
    page.locator("#fig-scaling input[name=sc-dk]").focus()
    page.keyboard.press("ArrowRight")  # d_k 64 → 96, the next stop
    page.wait_for_function("location.hash.includes('scaling.d_k=96')")
    expected = compute_figure("scaling", {"d_k": 96})
    _eventually(
        lambda: float(page.get_attribute(std, "data-value")) == expected["score_std_unscaled"]
    )
    assert page.get_attribute(hist, "d") != path_before
    assert _marker_x(page) != marker_before
    assert page.text_content("#fig-scaling .dk-label") == "dₖ = 96"

    dots_scaled = page.eval_on_selector_all(
        "#fig-scaling .dk-dot", "ds => ds.map(d => d.getAttribute('cy'))"
    )
    assert page.locator("#fig-scaling .hist-unscaled.is-faded").count() == 1
    page.click("#fig-scaling [aria-labelledby=seg-sc-scaled] button[data-value=false]")
    page.wait_for_selector("#fig-scaling .hist-scaled.is-faded")
    assert page.locator("#fig-scaling .hist-unscaled.is-faded").count() == 0
    maxw = "#fig-scaling [data-readout=maxw]"
    _eventually(
        lambda: float(page.get_attribute(maxw, "data-value")) == expected["max_weight_unscaled"]
    )
    dots_unscaled = page.eval_on_selector_all(
        "#fig-scaling .dk-dot", "ds => ds.map(d => d.getAttribute('cy'))"
    )
    assert len(dots_unscaled) == 2 and dots_unscaled != dots_scaled


def test_scaling_reseed_draws_new_numbers(open_lesson, page) -> None:
    page = open_lesson()
    std = "#fig-scaling [data-readout=std]"
    page.wait_for_selector(f"{std}[data-value]")
    page.click("#fig-scaling button[data-role=reseed]")
    expected = compute_figure("scaling", {"seed": 1})["score_std_unscaled"]
    _eventually(lambda: float(page.get_attribute(std, "data-value")) == expected)
    assert "1" in page.inner_text("#fig-scaling button[data-role=reseed]")


def _rotated_tips(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        "#fig-position .rope-rotated line",
        "ls => ls.map(l => l.getAttribute('x2') + ',' + l.getAttribute('y2'))",
    )


def test_rope_shifting_both_positions_turns_arrows_not_the_score(open_lesson, page) -> None:
    page = open_lesson()
    score = "#fig-position [data-readout=score]"
    page.wait_for_selector(f"{score}[data-value]")
    value_before = float(page.get_attribute(score, "data-value"))
    shown_before = page.inner_text(score).split()[0]
    tips_before = _rotated_tips(page)
    for _ in range(3):
        page.click("#fig-position button[data-role=shift]")
    page.wait_for_function(
        "location.hash.includes('position.m=6') && location.hash.includes('position.n=10')"
    )
    angles = "[...document.querySelectorAll('#fig-position .rope-angle')]"
    page.wait_for_function(f"{angles}.some(t => t.textContent === '6ω')")
    assert _rotated_tips(page) != tips_before  # both arrows turned
    assert abs(float(page.get_attribute(score, "data-value")) - value_before) < 1e-12
    assert page.inner_text(score).split()[0] == shown_before


def _bar_geometry(page: Any, series: str) -> list[tuple[float, float]]:
    return page.eval_on_selector_all(
        f"#fig-position .pooled-{series} rect",
        "rs => rs.map(r => [Number(r.getAttribute('y')), Number(r.getAttribute('height'))])",
    )


def test_reversing_without_position_encoding_gives_the_same_bars(open_lesson, page) -> None:
    page = open_lesson()
    page.wait_for_selector("#fig-position [data-readout=score][data-value]")
    assert not page.locator("#fig-position .pooled-reversed").is_visible()
    page.click("#fig-position button[data-role=reverse]")
    assert page.get_attribute("#fig-position button[data-role=reverse]", "aria-pressed") == "true"
    assert page.locator("#fig-position .pooled-reversed").is_visible()
    diff = "#fig-position [data-readout=diff]"
    page.wait_for_selector(f"{diff}[data-value]:not([data-value=''])")
    assert float(page.get_attribute(diff, "data-value")) < 1e-12
    original, reversed_ = _bar_geometry(page, "original"), _bar_geometry(page, "reversed")
    assert all(
        abs(a - b) < 0.05
        for p, r in zip(original, reversed_, strict=True)
        for a, b in zip(p, r, strict=True)
    )
    page.wait_for_function("location.hash.includes('position.reversed=true')")

    page.click("#fig-position [aria-labelledby=seg-ps-pe] button[data-value=sinusoidal]")
    expected = compute_figure("position", {"pe": "sinusoidal"})["pooled_diff_relative"]
    _eventually(lambda: float(page.get_attribute(diff, "data-value") or 0) == expected)
    original, reversed_ = _bar_geometry(page, "original"), _bar_geometry(page, "reversed")
    assert max(abs(p[1] - r[1]) for p, r in zip(original, reversed_, strict=True)) > 2  # px apart


def test_views_speak_chinese_without_raw_keys(open_lesson, page) -> None:
    page = open_lesson("#lang=zh")
    page.wait_for_selector("#fig-position [data-readout=score][data-value]")
    for name in OWN_FIGURES:
        text = page.inner_text(f"#fig-{name} .fig-body")
        assert "va." not in text, name
    assert "反转轨迹" in page.inner_text("#fig-position button[data-role=reverse]")
    assert "硬查找" in page.inner_text("#fig-lookup .fig-body")
