"""Accessibility (issue 9, item 9): axe-core finds no violation of any impact on the whole page,
in English and in Chinese, after a reader has used it (dragged a handle, answered an exercise,
trained FIG 2 for a moment).

axe-core is a test asset, pinned at 4.14.1 in tests/e2e/package.json and package-lock.json and
installed by `make test` with `npm ci` (node_modules is not committed and never served). It is
injected into the page from disk; the page itself does not know about it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
AXE = HERE / "node_modules" / "axe-core" / "axe.min.js"
AXE_VERSION = "4.14.1"
STRINGS = HERE.parents[1] / "src" / "attnlab" / "static" / "i18n"

RUN_AXE = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations.map((v) => ({ id: v.id, impact: v.impact,
    nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
}"""


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `make test` (npm ci in tests/e2e)")
    pinned = json.loads((HERE / "package-lock.json").read_text())
    assert pinned["packages"]["node_modules/axe-core"]["version"] == AXE_VERSION
    return AXE.read_text()


def _use_the_page(page: Any) -> None:
    # drag FIG 1's query tip with the mouse
    page.locator("#fig-lookup .key-space").scroll_into_view_if_needed()
    box = page.locator("#fig-lookup .q-handle .hit").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 40, y - 30, steps=5)
    page.mouse.up()
    page.wait_for_function("location.hash.includes('lookup.q=')")
    # answer the first exercise (its feedback and answer open)
    page.locator(".exercise .ex-option").first.click()
    # train FIG 2 for a moment, then pause
    fig = "#fig-training"
    page.click(f"{fig} button[data-role=train]")
    page.wait_for_function(
        f"+document.querySelector('{fig} dd[data-key=step]')?.dataset.value >= 50", timeout=60_000
    )
    page.click(f"{fig} button[data-role=train]")
    page.wait_for_selector(f"{fig} button[data-role=train][aria-pressed=false]")


def _violations(page: Any, source: str) -> list[dict]:
    page.add_script_tag(content=source)
    assert page.evaluate("axe.version") == AXE_VERSION
    return page.evaluate(RUN_AXE)


@pytest.mark.slow
def test_axe_finds_no_violation_in_either_language_after_use(open_lesson, axe_source) -> None:
    page = open_lesson()
    _use_the_page(page)
    assert _violations(page, axe_source) == []
    page.click("button[data-set-lang=zh]")
    # said once the switch is done: the text, the figures and the panel are in Chinese (main.js)
    said = json.loads((STRINGS / "zh.json").read_text("utf-8"))["page.langChanged"]
    page.wait_for_function(
        "(said) => document.getElementById('announcer').textContent === said", arg=said
    )
    assert _violations(page, axe_source) == []
