"""FIG 2 on a phone (issue 23): with four heads on the vector task at 390 px, every label stays
readable. Measured on screen: the colour-match table's letters are at least 11 px, each block's
weights stand beside its rings (not on them, nor on one another), no arrow's shaft crosses a
block's letter, and a block dragged past any edge of the table stays whole on it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

FIG = "#fig-training"
MIN_PX = 11  # the page's smallest label size (figures.css: tick labels)
# the scene's scale (svg.js: --s, kept by a ResizeObserver, which then re-places the weights) is
# the one of its box as drawn now
RESCALED = """(fig) => { const svg = document.querySelector(`${fig} svg.scene`);
  const box = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
  const s = Math.min(r.width / box.width, r.height / box.height).toFixed(3);
  return svg.style.getPropertyValue('--s') === s; }"""


@pytest.fixture(scope="module", params=["en", "zh"])
def phone(request, browser: Any, server: str) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(f"{server}/#lang={request.param}&training.task=vector&training.heads=4")
    page.wait_for_selector("html.is-ready")
    page.wait_for_function("document.fonts.status === 'loaded'")
    page.wait_for_function(f"document.querySelector('{FIG} td.cm-cell').dataset.value !== ''")
    page.wait_for_selector(f"{FIG} .truth-arrow")
    page.locator(f"{FIG} svg.scene").scroll_into_view_if_needed()
    page.wait_for_function(RESCALED, arg=FIG)
    yield page
    context.close()


# Every drawn text of the colour-match tables (swatch letters, Σ, captions, the ▸ marker) whose
# computed size is below the limit.
SMALL_TEXT = """([root, min]) => [...document.querySelectorAll(`${root} *`)].flatMap((node) => {
    const own = [...node.childNodes].some((c) => c.nodeType === 3 && c.data.trim());
    const box = node.getBoundingClientRect();
    const px = parseFloat(getComputedStyle(node).fontSize);
    const marker = parseFloat(getComputedStyle(node, '::before').fontSize);
    const out = [];
    if (own && box.width && px < min) out.push(`"${node.textContent.trim()}" ${px} px`);
    if (getComputedStyle(node, '::before').content !== 'none' && box.width && marker < min) {
      out.push(`::before of "${node.textContent.trim()}" ${marker} px`);
    }
    return out;
  })"""


def test_the_colour_match_letters_are_at_least_11px(phone) -> None:
    assert phone.locator(f"{FIG} .cm-table .cm-swatch").count() >= 4 * 2 * 6
    assert phone.evaluate(SMALL_TEXT, [f"{FIG} .inside .cm-table", MIN_PX]) == []


# Where a block's weight labels meet a ring (any block's: the nearest point of the label's box to
# the ring's centre lies inside the ring's outer edge), another label, or leave the drawing.
WEIGHT_CLASHES = """(fig) => {
    const svg = document.querySelector(`${fig} svg.scene`);
    const scale = svg.getScreenCTM().a;
    const labels = [...svg.querySelectorAll('.ring-label')]
      .map((t) => [t, t.getBoundingClientRect()]);
    const s = svg.getBoundingClientRect();
    const out = [];
    for (const ring of svg.querySelectorAll('.attention-rings circle')) {
      const c = ring.getBoundingClientRect();
      const [cx, cy] = [c.left + c.width / 2, c.top + c.height / 2];
      const reach = c.width / 2 + parseFloat(ring.getAttribute('stroke-width')) * scale / 2;
      for (const [t, b] of labels) {
        const dx = Math.max(b.left - cx, 0, cx - b.right);
        const dy = Math.max(b.top - cy, 0, cy - b.bottom);
        if (Math.hypot(dx, dy) < reach) {
          out.push(`"${t.textContent}" on a ring (${ring.getAttribute('class')})`);
        }
      }
    }
    labels.forEach(([t, a], i) => {
      if (a.left < s.left || a.right > s.right || a.top < s.top || a.bottom > s.bottom) {
        out.push(`"${t.textContent}" leaves the drawing`);
      }
      for (const [u, b] of labels.slice(i + 1)) {
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) {
          out.push(`"${t.textContent}" meets "${u.textContent}"`);
        }
      }
    });
    return out;
  }"""


def test_the_weights_stand_beside_the_rings(phone) -> None:
    assert phone.locator(f"{FIG} .ring-label").count() == 4 * 4  # four heads, four blocks
    assert phone.evaluate(WEIGHT_CLASHES, FIG) == []


# Every arrow shaft (and the truth arrow's head) that crosses a block letter's box, widened by
# half the stroke: the segment is clipped to the box (Liang–Barsky) on screen.
ARROWS_OVER_LETTERS = """(fig) => {
    const svg = document.querySelector(`${fig} svg.scene`);
    const toScreen = (node, x, y) => {
      const p = new DOMPoint(x, y).matrixTransform(node.getScreenCTM());
      return [p.x, p.y];
    };
    const crosses = ([x0, y0], [x1, y1], r) => {
      let [t0, t1] = [0, 1];
      const [dx, dy] = [x1 - x0, y1 - y0];
      const sides = [[-dx, x0 - r.left], [dx, r.right - x0],
        [-dy, y0 - r.top], [dy, r.bottom - y0]];
      for (const [p, q] of sides) {
        if (p === 0) { if (q < 0) return false; continue; }
        const t = q / p;
        if (p < 0) t0 = Math.max(t0, t); else t1 = Math.min(t1, t);
        if (t0 > t1) return false;
      }
      return true;
    };
    const out = [];
    const letters = [...svg.querySelectorAll('.block-letter')];
    const shafts = [...svg.querySelectorAll('.prediction .arrow line:not(.halo)')];
    const heads = [...svg.querySelectorAll('.prediction .truth-arrow polygon')];
    for (const letter of letters) {
      const box = letter.getBoundingClientRect();
      for (const line of shafts) {
        const w = parseFloat(line.getAttribute('stroke-width')) * svg.getScreenCTM().a / 2;
        const r = { left: box.left - w, right: box.right + w,
          top: box.top - w, bottom: box.bottom + w };
        const a = toScreen(line, +line.getAttribute('x1'), +line.getAttribute('y1'));
        const b = toScreen(line, +line.getAttribute('x2'), +line.getAttribute('y2'));
        if (crosses(a, b, r)) {
          out.push(`${line.parentNode.getAttribute('class')} over "${letter.textContent}"`);
        }
      }
      for (const head of heads) {
        const h = head.getBoundingClientRect();
        if (h.left < box.right && box.left < h.right && h.top < box.bottom && box.top < h.bottom) {
          out.push(`truth arrow's head over "${letter.textContent}"`);
        }
      }
    }
    return out;
  }"""


def test_no_arrow_covers_a_block_letter(phone) -> None:
    assert phone.locator(f"{FIG} .prediction .arrow").count() == 3  # truth, attention, MLP
    assert phone.evaluate(ARROWS_OVER_LETTERS, FIG) == []


@pytest.mark.parametrize("corner", [(-1, -1), (1, 1), (1, -1), (-1, 1)])
def test_a_block_dragged_past_the_table_stays_on_it(phone, corner) -> None:
    block = phone.locator(f"{FIG} .scene .block").first
    box = block.bounding_box()
    table = phone.locator(f"{FIG} .scene .table-top").bounding_box()
    start = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    # far past the corner, over the instruction, the axis labels or the controls under the table
    end = (table["x"] + (table["width"] + 80 if corner[0] > 0 else -80),
           table["y"] + (table["height"] + 80 if corner[1] > 0 else -80))  # fmt: skip
    phone.mouse.move(*start)
    phone.mouse.down()
    phone.mouse.move(*end, steps=12)
    phone.mouse.up()
    face = phone.locator(f"{FIG} .scene .block .block-face").first.bounding_box()
    assert face["x"] >= table["x"] - 0.5 and face["y"] >= table["y"] - 0.5
    assert face["x"] + face["width"] <= table["x"] + table["width"] + 0.5
    assert face["y"] + face["height"] <= table["y"] + table["height"] + 0.5
