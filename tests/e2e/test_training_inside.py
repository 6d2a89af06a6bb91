"""FIG 2 opened, in the browser: the colour-match table turns diagonal as the fetch model trains,
each head's weight over steps ends at the history's last head_weight, the strip of F2.11's seeds
loads a failed seed and says why it failed, and the Chinese page labels all of it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.waits import frames

pytestmark = pytest.mark.e2e

FIG = "#fig-training"
STRINGS = Path(__file__).parents[2] / "src" / "attnlab" / "static" / "i18n"
AXE = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"  # test_axe.py pins it
AXE_RUN = """async (fig) => (await axe.run(fig, { resultTypes: ["violations"] })).violations
  .map((v) => ({ id: v.id, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }))"""
TRAIN_TIMEOUT_MS = 30_000
CLAIMS_TIMEOUT_MS = 120_000  # F2.11 trains its 20 seeds in the background at server start

# the latest try-it event FIG 2's view sent (what lib/tries.js conditions read); main.js also
# repeats the figure's API answer (the untrained model's) on each settings change, from document
LISTEN = """window.__fig2 = null; document.addEventListener('attnlab:figure-data', (e) => {
  if (e.detail.name === 'training' && e.target !== document) window.__fig2 = e.detail; });"""
# the summed row shows the latest readout's scores, under the instruction the settings name
SUM_IS_SCORES = f"""() => {{ const d = window.__fig2, cells = document.querySelectorAll(
  '{FIG} .cm-part-sum td.cm-cell'), shown = [...cells].map((c) => +c.dataset.value).join();
  return d?.settings.target === 2 && shown === d.data.colour_match.scores.flat().join(); }}"""
STEP = f"+document.querySelector('{FIG} dd[data-key=step]').dataset.value"


def _strings(lang: str) -> dict[str, str]:
    return json.loads((STRINGS / f"training.{lang}.json").read_text("utf-8"))


def _axe_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's violations inside FIG 2 (tables, strip and the failed seed's text drawn)."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `make test` (npm ci in tests/e2e)")
    page.add_script_tag(content=AXE.read_text())
    return page.evaluate(AXE_RUN, FIG)


def _train_to(page: Any, steps: int) -> None:
    page.click(f"{FIG} button[data-role=train]")
    page.wait_for_function(f"{STEP} >= {steps}", timeout=TRAIN_TIMEOUT_MS)
    page.click(f"{FIG} button[data-role=train]")  # pause
    # the paused state comes after the run's last progress (trainpool/worker.py), whose table is
    # drawn at once and whose lines on the next frame (lib/errorcurves.js)
    page.wait_for_selector(f"{FIG} button[data-role=train][aria-pressed=false]")
    frames(page)


def _cells(page: Any) -> list[dict[str, Any]]:
    read = (
        "cs => cs.map((c) => ({ ...c.dataset, value: c.dataset.value ? +c.dataset.value : null }))"
    )
    return page.eval_on_selector_all(f"{FIG} td.cm-cell", read)


def _line_end(page: Any, key: str) -> float:
    """The weight the heads' line `key` ends at, read back from its path and the axis."""
    d = page.get_attribute(f"{FIG} path.head-line.{key}", "d")
    y = float(re.findall(r"[ML]([-\d.]+) ([-\d.]+)", d)[-1][1])
    y0 = float(page.get_attribute(f"{FIG} svg.head-curves", "data-y0"))
    y1 = float(page.get_attribute(f"{FIG} svg.head-curves", "data-y1"))
    return (y0 - y) / (y0 - y1)


def test_fetch_table_turns_diagonal_and_the_head_line_follows(open_lesson, recorder) -> None:
    page = open_lesson("#lang=en&training.pace=0")
    page.evaluate(LISTEN)
    page.wait_for_function(f"document.querySelector('{FIG} td.cm-cell').dataset.value !== ''")
    before = _cells(page)
    assert len(before) == 36  # one head, one 6 × 6 block
    _train_to(page, 600)
    after = _cells(page)
    peaks = [c for c in after if c["peak"] == "true"]
    assert len(peaks) == 6 and all(c["row"] == c["col"] for c in peaks)  # F2.10: the diagonal
    assert {c["row"] for c in peaks} == {str(r) for r in range(6)}
    assert max(abs(a["value"] - b["value"]) for a, b in zip(before, after, strict=True)) > 0.5
    # the display instruction's row is marked, and the try-its get the same readout
    target = page.eval_on_selector(f"{FIG} tr.is-instruction", "tr => tr.dataset.row")
    assert target == page.input_value(f"{FIG} select[name=tr-target]")
    detail = page.evaluate("window.__fig2")
    cm = detail["data"]["colour_match"]
    assert cm["peaks"] == [[1.0]] and cm["row_peaks"] == [[list(range(6))]]
    shown = {(int(c["row"]), int(c["col"])): c["value"] for c in after}
    assert all(shown[r, c] == cm["table"][0][0][r][c] for r in range(6) for c in range(6))
    last = detail["data"]["history"][-1]["head_weight"][0]
    assert last > 0.5 and abs(_line_end(page, "h1-target") - last) < 0.01
    assert recorder.console_errors == [] and recorder.page_errors == []


def test_vector_tables_lines_and_keyboard_readout(open_lesson, recorder) -> None:
    page = open_lesson("#lang=en&training.task=vector&training.heads=2&training.pace=0")
    page.evaluate(LISTEN)
    page.wait_for_selector(f"{FIG} .truth-arrow")
    _train_to(page, 300)
    # per head: "from A", "from B" (6 × 6 each) and the summed row under the instruction
    assert page.locator(f"{FIG} table.cm-table").count() == 6
    assert page.locator(f"{FIG} table.cm-part-sum td.cm-cell").count() == 12
    history = page.evaluate("window.__fig2.data.history")
    scores = page.evaluate("window.__fig2.data.colour_match.scores")
    sums = page.eval_on_selector_all(
        f"{FIG} table.cm-part-sum td.cm-cell", "cs => cs.map((c) => +c.dataset.value)"
    )
    assert sums == scores[0] + scores[1]
    for h, (w_a, w_b) in enumerate(history[-1]["head_weight"]):
        assert abs(_line_end(page, f"h{h + 1}-A") - w_a) < 0.01
        assert abs(_line_end(page, f"h{h + 1}-B") - w_b) < 0.01
    assert page.get_attribute(f"{FIG} path.h1-B", "stroke-dasharray")  # on B dashed
    assert not page.get_attribute(f"{FIG} path.h1-A", "stroke-dasharray")
    # keyboard: Tab reaches a table, the arrows move inside it, the readout says the cell
    first = page.locator(f"{FIG} table.cm-part-0 td.cm-cell[tabindex='0']").first
    first.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    focused = page.evaluate("({...document.activeElement.dataset})")
    assert (focused["row"], focused["col"], focused["part"]) == ("1", "1", "0")
    readout = page.inner_text(f"{FIG} [data-role=cm-readout]")
    assert (
        readout.startswith("Head 1, from A: A = orange adds ") and "to the orange block" in readout
    )
    # another A: the marked row moves, and the summed row is the server's scores under it
    page.select_option(f"{FIG} select[name=tr-target]", label="yellow")
    page.wait_for_function(SUM_IS_SCORES)
    marked = page.eval_on_selector(
        f"{FIG} table.cm-part-0 tr.is-instruction", "tr => tr.dataset.row"
    )
    assert marked == "2"  # yellow is colour 2 (the trainer's order)
    assert recorder.console_errors == [] and recorder.page_errors == []


def _strip_values(page: Any) -> dict[str, Any]:
    page.wait_for_selector(f"{FIG} .seed-strip button.seed", timeout=CLAIMS_TIMEOUT_MS)
    return page.evaluate("fetch('/api/claims/measured').then((r) => r.json())")["values"]["F2.11"]


def test_the_strip_loads_a_failed_seed_and_says_why(open_lesson, recorder) -> None:
    page = open_lesson("#lang=en")
    assert page.locator(f"{FIG} [data-role=seed-strip]").is_visible()
    values = _strip_values(page)
    seeds = values["per_seed"]["seed"]
    assert page.locator(f"{FIG} .seed-strip button.seed").count() == len(seeds) == 20
    failed = page.locator(f"{FIG} button.seed[data-failed=true]")
    assert [int(s) for s in failed.evaluate_all("bs => bs.map((b) => b.dataset.seed)")] == values[
        "failing_seeds"
    ]
    assert failed.first.inner_text().count("failed") == 1  # a word and a ✕, not colour alone
    assert page.locator(f"{FIG} button.seed", has_text="★").count() == 1  # the default seed
    assert page.locator(f"{FIG} [data-role=seed-why]").is_hidden()
    seed = values["failing_seeds"][0]
    page.click(f"{FIG} button.seed[data-seed='{seed}']")
    page.wait_for_function(f"location.hash.includes('training.seed={seed}')")
    hash_ = page.evaluate("location.hash")
    assert "training.task=vector" in hash_ and "training.heads=2" in hash_
    assert page.input_value(f"{FIG} input[name=tr-seed]") == str(seed)
    assert (
        page.get_attribute(f"{FIG} .segmented button[data-value=vector]", "aria-pressed") == "true"
    )
    assert page.get_attribute(f"{FIG} button.seed[data-seed='{seed}']", "aria-pressed") == "true"
    why = page.locator(f"{FIG} [data-role=seed-why]")
    assert why.is_visible()
    i = seeds.index(seed)
    what = why.locator("[data-role=seed-what]").inner_text()
    assert f"Seed {seed}" in what and f"{values['per_seed']['final_cm'][i]:.1f} cm" in what
    looks = values["per_seed"]["looks_at"][i]
    assert f"both heads look at {looks[0]}" in what
    assert "Σα v" in why.locator("[data-role=seed-because]").inner_text()
    assert _axe_violations(page) == []
    # Enter on a learned seed loads it, and the explanation goes
    learned = page.locator(f"{FIG} button.seed[data-failed=false]").first
    learned.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(
        f"location.hash.includes('training.seed={learned.get_attribute('data-seed')}')"
    )
    assert why.is_hidden()
    assert recorder.console_errors == [] and recorder.page_errors == []


def test_chinese_labels(open_lesson, recorder) -> None:
    zh = _strings("zh")
    page = open_lesson("#lang=zh&training.task=vector&training.heads=2")
    page.wait_for_selector(f"{FIG} .cm-title")
    assert page.inner_text(f"{FIG} .cm-title") == zh["cm.title"]
    assert page.inner_text(f"{FIG} table.cm-part-0 caption").startswith("来自 A")
    assert "第 2 头" in page.inner_text(f"{FIG} .head-legend")
    _strip_values(page)
    assert page.inner_text(f"{FIG} .seed-strip-title").startswith("20 个种子")
    assert "失败" in page.inner_text(f"{FIG} button.seed[data-failed=true]")
    page.click(f"{FIG} button.seed[data-failed=true]")
    assert "两个头都看着" in page.inner_text(f"{FIG} [data-role=seed-what]")
    assert _axe_violations(page) == []
    # the language switch relabels the view in place
    page.click("[data-set-lang=en]")
    title = json.dumps(_strings("en")["cm.title"])
    page.wait_for_function(f"document.querySelector('{FIG} .cm-title').textContent === {title}")
    assert recorder.console_errors == [] and recorder.page_errors == []


def test_a_phone_taps_cells_and_seeds_and_four_heads_fit(browser: Any, server: str) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale="en-US"
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        page.goto(f"{server}/#lang=en&training.task=vector&training.heads=4")
        page.wait_for_selector("html.is-ready")
        page.wait_for_function(f"document.querySelector('{FIG} td.cm-cell').dataset.value !== ''")
        assert page.locator(f"{FIG} .cm-head").count() == 4
        # the heads wrap inside the figure; the page itself never scrolls sideways
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        cell = page.locator(f"{FIG} table.cm-part-1 td.cm-cell[data-row='2'][data-col='3']").first
        cell.scroll_into_view_if_needed()
        cell.tap()
        readout = page.inner_text(f"{FIG} [data-role=cm-readout]")
        assert readout.startswith("Head 1, from B: B = yellow adds ") and "green block" in readout
        seed = page.locator(f"{FIG} button.seed").nth(3)
        seed.wait_for(timeout=CLAIMS_TIMEOUT_MS)
        seed.scroll_into_view_if_needed()
        seed.tap()
        page.wait_for_function("location.hash.includes('training.seed=3')")
        assert "training.heads=2" in page.evaluate("location.hash")  # the strip's run
        assert page.locator(f"{FIG} .cm-head").count() == 2
    finally:
        context.close()
