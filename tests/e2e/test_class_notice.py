"""The page counts as a reader, and FIG 2 says when the class is larger than the server can
train at the watch pace while it drags (issue 19, part 4)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import VIEWPORT, run_server

pytestmark = pytest.mark.e2e

NOTICE = "#fig-training .class-notice"


@pytest.fixture(scope="module")
def one_seat() -> Iterator[str]:
    with run_server(train_capacity=1) as base:  # a chosen capacity: one learner at a time
        yield base


def _tab(browser: Any, base: str) -> Any:
    page = browser.new_context(viewport=VIEWPORT, locale="en-US").new_page()
    page.goto(f"{base}/")
    page.wait_for_selector("html.is-ready")
    return page


def test_a_second_reader_makes_the_class_larger_than_one_seat(browser, one_seat: str) -> None:
    first = _tab(browser, one_seat)
    try:
        first.wait_for_function("document.querySelector('#fig-training .class-notice') !== null")
        assert first.locator(NOTICE).is_hidden()  # one reader, one seat: nothing to say
        stated = httpx.get(f"{one_seat}/api/training/capacity", timeout=10).json()
        assert stated["readers"] == 1 and stated["over_capacity"] is False
        second = _tab(browser, one_seat)
        try:
            second.wait_for_selector(f"{NOTICE}:not([hidden])")
            text = second.inner_text(NOTICE)
            assert "2 people" in text and "train 1 at 200 steps" in text
            second.click("[data-set-lang=zh]")
            second.wait_for_function(
                f"document.querySelector('{NOTICE}').textContent.includes('每秒 200 步')"
            )
            stated = httpx.get(f"{one_seat}/api/training/capacity", timeout=10).json()
            assert stated["readers"] == 2 and stated["over_capacity"] is True
        finally:
            second.context.close()
    finally:
        first.context.close()
