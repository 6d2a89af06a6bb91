"""FIG 8 (FlashAttention's tiles) in headless Chromium: it draws, the keyboard and the mouse drive
it, the numbers shown are the engine's (attnlab.figures.compute_figure, read from data-value
attributes so no wording is assumed), its try-it ticks, and nothing reaches the console."""

from __future__ import annotations

from typing import Any

import pytest

from attnlab.figures import compute_figure

pytestmark = pytest.mark.e2e

FIG = "#fig-flash"
STEP = f"{FIG} .fl-step"


def _wait_step(page: Any, step: int) -> None:
    page.wait_for_function(
        "([sel, v]) => Number(document.querySelector(sel)?.dataset.step) === v", arg=[STEP, step]
    )


def _wait_tiles(page: Any, tiles: int) -> None:
    """Until the answer for a new tile width is drawn (the step buttons wait for it too)."""
    page.wait_for_function(
        "([sel, v]) => Number(document.querySelector(sel)?.dataset.tiles) === v", arg=[STEP, tiles]
    )


def _readout(page: Any, key: str) -> float:
    return float(page.get_attribute(f"{FIG} [data-readout={key}]", "data-value"))


def _states(page: Any) -> list[str]:
    cells = f"{FIG} .fl-grid .fl-cell"
    return page.eval_on_selector_all(cells, "cs => cs.map(c => c.dataset.state)")


def test_the_view_draws_the_engines_tiles_and_numbers(open_lesson, recorder) -> None:
    page = open_lesson()
    page.wait_for_selector(f"{FIG} .fl-check[data-value]")
    expected = compute_figure("flash")
    assert page.locator(f"{FIG}.is-pending").count() == 0
    cells = _states(page)
    assert cells == [c for row in expected["cells"] for c in row]  # 12 × 12, cell by cell
    assert _readout(page, "m") == expected["now"]["m"]
    assert _readout(page, "l") == expected["now"]["l"]
    held = page.get_attribute(f"{FIG} .fl-mem-row[data-key=held] .fl-mem-value", "data-value")
    assert int(held) == expected["memory"]["held_now"] == 48
    diff = float(page.get_attribute(f"{FIG} .fl-check", "data-value"))
    assert diff == expected["final"]["max_abs_diff"] < 1e-12
    assert page.locator(f"{FIG} .fig-error:not([hidden])").count() == 0
    assert recorder.page_errors == []
    assert [e for e in recorder.console_errors if "flash" in e or "tilegrid" in e] == []


def test_keyboard_steps_the_tiles_and_follows_the_row(open_lesson, recorder) -> None:
    page = open_lesson("#lang=en&flash.causal=true")
    _wait_step(page, 1)
    page.locator(f"{FIG} input[name=fl-tile]").focus()
    page.keyboard.press("Home")  # tile 1: one key per tile
    _wait_tiles(page, 12)
    forward = page.locator(f"{FIG} .fl-steps button").nth(1)
    forward.focus()
    for step in (2, 3):
        page.keyboard.press("Enter")
        _wait_step(page, step)
    expected = compute_figure("flash", {"tile": 1, "causal": True, "step": 3})
    assert _readout(page, "m") == expected["now"]["m"]
    assert _readout(page, "rescale") == expected["now"]["rescale"]
    assert _states(page) == [c for row in expected["cells"] for c in row]
    # the grid takes ↑ / ↓ to follow another query row
    page.locator(f"{FIG} .fl-grid").focus()
    page.keyboard.press("ArrowUp")
    page.wait_for_function(
        "v => document.querySelector('#fig-flash .fl-row-label')?.textContent === v", arg="10"
    )
    row10 = compute_figure("flash", {"tile": 1, "causal": True, "step": 3, "row": 10})
    page.wait_for_function(
        "v => Number(document.querySelector('#fig-flash [data-readout=l]').dataset.value) === v",
        arg=row10["now"]["l"],
    )
    page.wait_for_function("() => location.hash.includes('flash.row=10')")  # the URL keeps it
    assert recorder.page_errors == []


def test_mouse_picks_a_row_plays_to_the_end_and_ticks_the_try(open_lesson, recorder) -> None:
    page = open_lesson("#lang=en&flash.n=6&flash.tile=2&flash.step=0")
    _wait_step(page, 0)
    assert _readout_text(page, "m") == "—"  # nothing read yet: no maximum
    page.locator(f"{FIG} .fl-cell[data-i='3'][data-j='4']").click()  # row 3
    page.wait_for_function("() => location.hash.includes('flash.row=3')")
    page.click(f"{FIG} .fl-steps button.primary")  # play
    _wait_step(page, 3)
    expected = compute_figure("flash", {"n": 6, "tile": 2, "step": 3, "row": 3})
    assert _readout(page, "l") == expected["now"]["l"]
    assert page.locator(f"{FIG} .fl-history-m .fl-dots circle[fill]").count() == 3
    # the try-it: its last stage is reaching the last tile (the first two need one-key tiles)
    box = "#try-one-key"
    page.wait_for_function("sel => document.querySelector(sel) !== null", arg=box)
    assert page.locator(f"{box} .try-stage[data-stage='2'].met").count() == 0
    page.locator(f"{FIG} input[name=fl-tile]").focus()
    page.keyboard.press("Home")
    _wait_tiles(page, 6)
    _wait_step(page, 1)
    page.click(f"{FIG} .fl-steps button >> nth=1")
    _wait_step(page, 2)
    page.wait_for_selector(f"{box} .try-stage[data-stage='1'].met")  # key 1 raised m for row 3
    assert compute_figure("flash", {"n": 6, "tile": 1, "step": 2, "row": 3})["now"]["grew"]
    page.click(f"{FIG} .fl-steps button.primary")
    _wait_step(page, 6)
    page.wait_for_selector(f"{box}.is-done")
    assert recorder.page_errors == []


def _readout_text(page: Any, key: str) -> str:
    return page.inner_text(f"{FIG} [data-readout={key}]")


def test_chinese_labels_and_a_link_past_the_end(open_lesson, recorder) -> None:
    page = open_lesson("#lang=zh&flash.step=32&flash.row=31")
    _wait_step(page, 3)  # a step past the last tile shows the finished run
    assert "第 3 块" in page.inner_text(STEP)
    assert page.text_content(f"{FIG} .fl-row-label") == "11"
    assert page.locator(f"{FIG} .fl-steps button").nth(1).is_disabled()
    assert recorder.page_errors == []
