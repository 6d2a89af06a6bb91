"""The lesson page in headless Chromium: loads cleanly, stays on 127.0.0.1, draws every mounted
figure, keeps its state in the URL, switches language without losing state, links formula
symbols to figure elements."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from attnlab.figures.registry import by_name, names

pytestmark = pytest.mark.e2e

CONTENT = Path(__file__).resolve().parents[2] / "src" / "attnlab" / "content" / "en"
SECTIONS = [
    re.search(r"^id: (\S+)", f.read_text("utf-8"), re.M)[1] for f in sorted(CONTENT.glob("0*"))
]
# The one list (attnlab.figures.registry), in page order: by the section each figure sits in (a
# later figure may sit in an earlier section: FIG 8, §5, stands before FIG 7, §6).
FIGURES = tuple(sorted(names(), key=lambda n: SECTIONS.index(by_name(n).section)))
PAGE_BUDGET_BYTES = 2_000_000


def _pressed(page: Any, value: str) -> bool:
    """Whether FIG 2's toggle button for `value` (a task or a head count) is pressed."""
    button = page.locator(f"#fig-training .segmented button[data-value='{value}']")
    return button.get_attribute("aria-pressed") == "true"


def _fig2_top(page: Any) -> float:
    return page.evaluate("document.querySelector('#fig-training').getBoundingClientRect().top")


def test_page_loads_without_errors_and_only_talks_to_localhost(loaded_lesson) -> None:
    page, recorder = loaded_lesson
    page.wait_for_selector("#fig-training dd[data-key=gradcheck][data-value]")
    page.wait_for_load_state("networkidle")
    assert recorder.page_errors == []
    assert recorder.console_errors == []
    hosts = {urlsplit(url).hostname for url in recorder.requests if not url.startswith("data:")}
    assert hosts == {"127.0.0.1"}, hosts
    assert any(url.startswith("ws://127.0.0.1") for url in recorder.requests)
    total = sum(recorder.bytes_by_url.values())
    assert 0 < total < PAGE_BUDGET_BYTES, f"page weight {total} bytes"


def test_page_has_every_section_and_figure_in_lesson_order(loaded_lesson) -> None:
    page, _ = loaded_lesson
    names = page.eval_on_selector_all("figure[data-fig]", "els => els.map(e => e.dataset.fig)")
    assert tuple(names) == FIGURES
    nums = page.eval_on_selector_all(".fig-num", "els => els.map(e => e.textContent)")
    assert nums == [f"FIG {by_name(n).number}" for n in FIGURES]
    # every figure has a title and a caption from the catalogue, not a raw key
    for name in FIGURES:
        title = page.inner_text(f"#fig-{name} .fig-title")
        assert title and not title.startswith("fig."), name
        assert len(page.inner_text(f"#fig-{name} figcaption")) > 80, name
    assert page.locator(".prose[data-part]").count() >= 9


def test_every_mounted_figure_draws(loaded_lesson) -> None:
    page, _ = loaded_lesson
    mounted = page.eval_on_selector_all(
        "figure[data-fig]:not(.is-pending)", "els => els.map(e => e.dataset.fig)"
    )
    assert "training" in mounted
    for name in mounted:
        page.wait_for_function(
            """name => [...document.querySelectorAll(`#fig-${name} .fig-body svg`)].some(
                 svg => svg.querySelectorAll('path, rect, circle, line, polygon').length > 5)""",
            arg=name,
        )
    assert sorted(mounted) == sorted(FIGURES)  # every view is there: none is "still being built"
    assert page.locator(".fig-error:not([hidden])").count() == 0


def test_formula_symbols_light_up_figure_elements(loaded_lesson) -> None:
    page, _ = loaded_lesson
    assert page.locator("#fig-training figcaption .katex").count() > 0
    # the symbol in the lesson's formula of §3 (the model written out) lights FIG 2's rings
    symbol = page.locator("#s-training .prose .hl-symbol[data-hl=alpha]").first
    page.wait_for_selector("#fig-training .attention-rings circle")
    symbol.hover()
    assert page.locator("#fig-training .attention-rings.lit").count() == 1
    page.mouse.move(2, 2)
    assert page.locator("#fig-training .attention-rings.lit").count() == 0
    # the same link for keyboard readers: the formula takes focus (its symbols sit in KaTeX's
    # aria-hidden layer), and the arrow keys step to the symbol
    formula = symbol.locator("xpath=ancestor::span[contains(@class, 'hl-formula')]")
    formula.focus()
    for _ in range(formula.locator("[data-hl]").count()):
        if formula.locator(".hl-current[data-hl=alpha]").count():
            break
        page.keyboard.press("ArrowRight")
    assert page.locator("#fig-training .attention-rings.lit").count() == 1
    formula.blur()
    assert page.locator("#fig-training .attention-rings.lit").count() == 0


def test_url_state_round_trips(open_lesson, page) -> None:
    open_lesson()
    page.click("#fig-training .segmented button[data-value=vector]")
    page.click("#fig-training .segmented button[data-value='2']")
    page.wait_for_function("location.hash.includes('training.heads=2')")
    url = page.url
    assert "training.task=vector" in url
    page.goto("about:blank")
    page.goto(url)
    page.wait_for_selector("html.is-ready")
    assert _pressed(page, "vector")
    assert _pressed(page, "2")
    assert page.locator("#fig-training select[name=tr-second]").is_visible()
    # a bad value in a shared link falls back to the default instead of breaking the page
    page.goto(url.split("#")[0] + "#lang=en&training.heads=3&training.seed=-4")
    page.wait_for_selector("html.is-ready")
    assert _pressed(page, "1")


def test_language_switch_keeps_state_and_place(open_lesson, page) -> None:
    open_lesson("#lang=en&training.heads=2")
    title_en = page.inner_text("h1")
    page.locator("#fig-training").scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, 200)")
    top_before = _fig2_top(page)
    # dispatch, not click: Playwright scrolls a sticky element "into view" before clicking it,
    # which would move the page by itself
    page.locator("[data-set-lang=zh]").dispatch_event("click")
    page.wait_for_function("document.documentElement.lang === 'zh-Hans'")
    assert page.inner_text("h1") != title_en
    assert "训练" in page.inner_text("#fig-training button[data-role=train]")
    assert _pressed(page, "2")
    page.wait_for_function("location.hash.includes('lang=zh') && location.hash.includes('heads=2')")
    top_after = _fig2_top(page)
    assert abs(top_after - top_before) < 40
    page.reload()
    page.wait_for_selector("html.is-ready")
    assert page.evaluate("document.documentElement.lang") == "zh-Hans"


def test_blocks_move_with_the_keyboard(open_lesson, page) -> None:
    open_lesson()
    block = page.locator("#fig-training .block").first
    before = block.get_attribute("transform")
    block.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowUp")
    assert block.get_attribute("transform") != before
    page.wait_for_function("location.hash.includes('training.pos=')")
    label = block.get_attribute("aria-label")
    assert "21" in label and "68" in label, label  # 20 → 21 cm right, 58 → 68 cm up


def test_the_chinese_kicker_is_chinese(open_lesson) -> None:
    page = open_lesson("#lang=zh")
    kicker = page.inner_text(".hero .kicker")
    assert "第五部分" in kicker and not re.search(r"[A-Za-z]", kicker)  # not "Part V · 第 17 章"
