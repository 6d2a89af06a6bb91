"""The page's own copies of logic that also runs in Python, on the cases both test suites read:
the number formatting of the lesson's text (static/js/lib/lessonvalues.js, tests/cases/values.json)
and the reading of settings from the URL (static/js/lib/state.js, tests/cases/settings.json).
The try-it conditions have their own file (test_condition.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

CASES = Path(__file__).parents[1] / "cases"
VALUES = json.loads((CASES / "values.json").read_text("utf-8"))
SETTINGS = json.loads((CASES / "settings.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def lib_page(browser: Any, server: str) -> Iterator[Any]:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{server}/static/i18n/en.json")  # any document of the lesson's origin
    try:
        yield page
    finally:
        context.close()


def test_the_page_formats_the_shared_values(lib_page) -> None:
    shown = lib_page.evaluate(
        """async (cases) => {
             const V = await import("/static/js/lib/lessonvalues.js");
             const both = (v, s) => [V.formatValue(v, s), V.formatValue(v, s, {tex: true})];
             return cases.map(([v, spec]) => both(v, spec));
           }""",
        VALUES["cases"],
    )
    assert shown == [[prose, tex] for _, _, prose, tex in VALUES["cases"]]


def test_the_page_reads_the_shared_settings(lib_page) -> None:
    read = lib_page.evaluate(
        """async ({specs, cases}) => {
             const { coerce } = await import("/static/js/lib/state.js");
             return cases.map(([spec, text]) => coerce(specs[spec], text) ?? null);
           }""",
        {"specs": SETTINGS["specs"], "cases": SETTINGS["cases"]},
    )
    assert read == [value for _, _, value in SETTINGS["cases"]]
