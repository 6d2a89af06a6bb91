"""What a first load asks the server for (issue 19: a page a class can open at once): the bundle
instead of the modules, the reader's language only, every figure's first data in one answer;
and the unbundled sources (ATTNLAB_PAGE_SOURCES=1) still make the same page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.e2e.conftest import VIEWPORT, Recorder, run_server

pytestmark = pytest.mark.e2e

MAX_REQUESTS = 30  # issue 19's target for a first load


def _paths(recorder: Recorder) -> list[str]:
    return [urlsplit(url).path for url in recorder.requests if url.startswith("http")]


def _load(browser: Any, base: str, hash_: str = "") -> tuple[Any, Recorder, Any]:
    context = browser.new_context(viewport=VIEWPORT, locale="en-US")
    context.set_default_timeout(30_000)
    page = context.new_page()
    recorder = Recorder()
    recorder.attach(page)
    page.goto(f"{base}/{hash_}")
    page.wait_for_selector("html.is-ready")
    page.wait_for_load_state("networkidle")
    return page, recorder, context


def test_a_first_load_is_the_bundle_one_language_and_one_figure_request(browser, server) -> None:
    page, recorder, context = _load(browser, server)
    try:
        paths = _paths(recorder)
        assert len(paths) <= MAX_REQUESTS, paths
        assert not [p for p in paths if p.startswith(("/static/js/", "/static/css/"))], paths
        assert sum(p.startswith("/static/bundle/page-") for p in paths) == 2
        assert "/api/figures-at-defaults" in paths
        assert not [p for p in paths if p.startswith("/api/figures/")], paths  # all from the one
        assert "/api/strings/en" in paths and "/api/lesson/en" in paths
        assert not [p for p in paths if p.endswith("/zh") or p.startswith("/static/i18n/")], paths
        assert page.locator(".katex").count() > 0  # KaTeX came in the bundle
        assert recorder.page_errors == [] and recorder.console_errors == []

        page.locator("[data-set-lang=zh]").dispatch_event("click")
        page.wait_for_function("document.documentElement.lang === 'zh-Hans'")
        page.wait_for_load_state("networkidle")
        later = _paths(recorder)[len(paths) :]
        assert "/api/strings/zh" in later and "/api/lesson/zh" in later
        title = page.inner_text("#fig-training .fig-title")
        assert title and not title.startswith("fig.")
        assert recorder.page_errors == [] and recorder.console_errors == []
    finally:
        context.close()


def test_settings_from_a_link_are_asked_for_on_their_own(browser, server) -> None:
    _, recorder, context = _load(browser, server, "#scaling.d_k=16")
    try:
        paths = _paths(recorder)
        assert "/api/figures/scaling" in paths  # not the default: asked for itself
        assert paths.count("/api/figures/scaling") == 1
        assert not [
            p for p in paths if p.startswith("/api/figures/") and p != "/api/figures/scaling"
        ]
    finally:
        context.close()


@pytest.fixture(scope="module")
def sources_server() -> Iterator[str]:
    with run_server(page_sources=True) as base_url:
        yield base_url


def test_the_sources_make_the_same_page(browser, server, sources_server) -> None:
    shown = []
    for base in (server, sources_server):
        page, recorder, context = _load(browser, base)
        try:
            assert recorder.page_errors == [] and recorder.console_errors == []
            shown.append(
                page.evaluate(
                    """() => ({
                      figures: [...document.querySelectorAll('figure[data-fig]')]
                        .map((f) => f.dataset.fig),
                      math: document.querySelectorAll('.katex').length,
                      svgs: document.querySelectorAll('figure[data-fig] svg').length,
                      background: getComputedStyle(document.querySelector('.fig')).backgroundColor,
                    })"""
                )
            )
            uses_sources = any(p.startswith("/static/js/") for p in _paths(recorder))
            assert uses_sources == (base == sources_server)
        finally:
            context.close()
    # KaTeX draws the formulas in both; how many there are grows as the lesson's measured values
    # arrive (each server measures on its own clock), so the counts are not compared
    math = [page_shown.pop("math") for page_shown in shown]
    assert min(math) > 100, math
    assert shown[0] == shown[1]
