"""Phone and tablet layout (issue 9, item 8): at 390 and 768 px nothing in a figure or a display
formula scrolls sideways, and no SVG label is drawn below 10 px on screen.

A label's drawn size is its computed font size times the scale of its drawing on screen (the
screen CTM), so a wide SVG merely scaled down to fit fails here, as it would for a reader.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.waits import frames, wait_settled

MIN_LABEL_PX = 10

# Every element of a figure, and every display formula, that is wider inside than its box and
# lets the reader scroll it (KaTeX's MathML copy is clipped to 1 px on purpose and not shown).
SIDEWAYS = """() => [...document.querySelectorAll(
    'figure.fig, figure.fig *, .katex-display, .math.display')].filter((n) =>
      !n.closest('.katex-mathml') && n.scrollWidth > n.clientWidth + 1
      && getComputedStyle(n).overflowX !== 'visible' && getComputedStyle(n).overflowX !== 'hidden'
      || n.matches('figure.fig') && n.scrollWidth > n.clientWidth + 1)
    .map((n) => `${n.closest('figure.fig')?.id ?? n.closest('[data-anchor]')?.dataset.anchor}`
      + ` ${n.tagName}.${n.getAttribute('class')}: ${n.scrollWidth} in ${n.clientWidth}`)"""

SMALL_LABELS = """(min) => [...document.querySelectorAll('figure.fig svg text')].flatMap((node) => {
    const box = node.getBoundingClientRect();
    const ctm = node.getScreenCTM();
    if (!ctm || (!box.width && !box.height)) return [];  // not drawn (a hidden panel)
    const px = parseFloat(getComputedStyle(node).fontSize) * Math.hypot(ctm.a, ctm.b);
    const where = `${node.closest('figure.fig').id} "${node.textContent}"`;
    return px < min - 0.05 ? [`${where} ${px.toFixed(1)} px`] : [];
  })"""


@pytest.fixture(scope="module", params=[("en", 390), ("zh", 390), ("en", 768), ("zh", 768)],
                ids=lambda p: f"{p[0]}-{p[1]}")  # fmt: skip
def sized_page(request, browser: Any, server: str) -> Any:
    lang, width = request.param
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US")
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(f"{server}/#lang={lang}")
    page.wait_for_selector("html.is-ready")
    wait_settled(page)
    page.wait_for_selector("#fig-tokens .layer-timing[data-n-timed]", timeout=60_000)  # its words
    frames(page)  # the drawings rescaled to the last layout (svg.js)
    yield page
    context.close()


def test_nothing_in_a_figure_or_formula_scrolls_sideways(sized_page) -> None:
    assert sized_page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    assert sized_page.evaluate(SIDEWAYS) == []


def test_no_svg_label_is_drawn_below_10px(sized_page) -> None:
    assert sized_page.locator("figure.fig svg text").count() > 100  # the figures are drawn
    assert sized_page.evaluate(SMALL_LABELS, MIN_LABEL_PX) == []


def test_the_block_diagram_folds_on_a_phone(sized_page) -> None:
    folded = sized_page.evaluate(
        "document.querySelector('#fig-depth .block-diagram .row-2').hasAttribute('transform')"
    )
    assert folded == (sized_page.viewport_size["width"] < 600)


# Every axis title of every figure (line and bar charts, histograms, the tabletop) whose box meets
# a tick label's, or leaves its drawing (1 px of rounding).
TITLES = "figure.fig svg .axis-label"
AXIS_TITLE_CLASHES = """(sel) => [...document.querySelectorAll(sel)].flatMap((title) => {
    const a = title.getBoundingClientRect();
    if (!a.width || !a.height) return [];  // not drawn (a hidden panel)
    const svg = title.closest('svg');
    const s = svg.getBoundingClientRect();
    const where = `${title.closest('figure.fig').id} "${title.textContent}"`;
    const out = a.left < s.left - 1 || a.right > s.right + 1 || a.top < s.top - 1
      || a.bottom > s.bottom + 1 ? [`${where} leaves its drawing`] : [];
    for (const tick of svg.querySelectorAll('.tick-label')) {
      const b = tick.getBoundingClientRect();
      if (b.width && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) {
        out.push(`${where} meets tick "${tick.textContent}"`);
      }
    }
    return out;
  })"""


def test_no_axis_title_meets_a_tick_label_or_leaves_its_drawing(sized_page) -> None:
    assert sized_page.locator(TITLES).count() > 5  # the charts are drawn
    assert sized_page.evaluate(AXIS_TITLE_CLASHES, TITLES) == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_contents_bar_fits_at_1400_and_says_when_it_scrolls(
    browser: Any, server: str, lang
) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 900}, locale="en-US")
    try:
        page = context.new_page()
        page.goto(f"{server}/#lang={lang}")
        page.wait_for_selector("html.is-ready")
        nav = "nav.contents"
        fits = "n => n.scrollWidth <= n.clientWidth"
        assert page.eval_on_selector(nav, fits)  # "Check" inside the bar, not past its edge
        assert page.get_attribute(nav, "data-overflow") is None
        page.set_viewport_size({"width": 900, "height": 900})  # now the links cannot all fit
        page.wait_for_function(f"document.querySelector('{nav}').dataset.overflow === 'end'")
        assert (
            page.evaluate(f"getComputedStyle(document.querySelector('{nav}')).maskImage") != "none"
        )
        page.eval_on_selector(nav, "n => n.scrollTo({left: n.scrollWidth})")
        page.wait_for_function(f"document.querySelector('{nav}').dataset.overflow === 'start'")
    finally:
        context.close()


def test_the_block_diagrams_labels_stay_inside_their_boxes(sized_page) -> None:
    outside = sized_page.evaluate(
        """() => [...document.querySelectorAll('#fig-depth .part .part-label')].flatMap((label) => {
            const box = label.parentNode.querySelector('.part-box').getBoundingClientRect();
            const text = label.getBoundingClientRect();
            return text.width && (text.left < box.left || text.right > box.right)
              ? [`${label.textContent}: ${text.width} px in ${box.width}`] : [];
        })"""
    )
    assert outside == []


LARGEST_LABEL = """(sel) => Math.max(...[...document.querySelectorAll(sel)]
  .map((node) => {
    const ctm = node.getScreenCTM();
    if (!ctm || !node.getBoundingClientRect().width) return 0;
    return parseFloat(getComputedStyle(node).fontSize) * Math.hypot(ctm.a, ctm.b);
  }))"""


# (what is drawn last, the labels measured): a drawing stretched to a wide column draws its 11-px
# labels far larger than the rest. FIG 8's grid and its m and ℓ plots drew them at 16–26 px;
# stacked at 768 px, FIG 2's tabletop and charts drew tick labels at 17–18 px (the table filled
# the screen) and FIG 3's weights at 15.5 px.
BLOWN_UP = (
    ("#fig-flash svg.fl-history text", "#fig-flash svg text"),
    ("#fig-training svg.head-curves .tick-label", "figure.fig svg .tick-label"),
)


@pytest.mark.parametrize("width", [768, 1400])
@pytest.mark.parametrize(("drawn", "labels"), BLOWN_UP, ids=["fig8", "every-tick"])
def test_no_drawing_is_blown_up_on_a_wide_screen(
    browser: Any, server: str, width, drawn, labels
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US")
    try:
        page = context.new_page()
        page.goto(f"{server}/")
        page.wait_for_selector("html.is-ready")
        page.wait_for_selector(drawn)
        assert 10 <= page.evaluate(LARGEST_LABEL, labels) <= 14
    finally:
        context.close()


# What names a thing (headings, titles, buttons, control labels, table cells, legends, readouts);
# prose (paragraphs, list items, the exercises' answers, the claims) may break anywhere.
LABELS = ("h1, h2, h3, h4, button:not(.ex-option), select, label, th, td, caption, dt,"
          " figure.fig dd, .legend li, nav a, [class*='-title']:not(.claim-title),"
          " [class*='-label'], .try-done, .try-back")  # fmt: skip
# Every place where a label's line ends between two Chinese characters (a word cut in two, 模|型):
# a character's box starts a new line when it sits lower than the one before it.
HAN_SPLITS = """(labels) => {
  const han = /[\\u3400-\\u9fff\\uf900-\\ufaff]/;
  const out = [];
  const range = document.createRange();
  for (const label of document.querySelectorAll(labels)) {
    if (label.closest('svg, .sr-only, [hidden]')) continue;
    const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.data;
      if (!han.test(text) || node.parentElement.closest('.katex, .sr-only')) continue;
      let before = null;
      for (let i = 0; i < text.length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = [...range.getClientRects()].find((r) => r.width > 0);
        if (!box) continue;
        if (before && box.top > before.top + box.height / 2 && han.test(text[i - 1])
            && han.test(text[i])) {
          out.push(`${label.closest('[id]')?.id} ${label.tagName}.${label.className}`
            + ` "${label.textContent.trim().slice(0, 40)}" at ${text[i - 1]}|${text[i]}`);
        }
        before = box;
      }
    }
  }
  return out;
}"""


def test_no_chinese_label_breaks_inside_a_word(sized_page) -> None:
    if sized_page.evaluate("document.documentElement.lang") == "zh-Hans":
        chinese = ("(sel) => [...document.querySelectorAll(sel)]"
                   ".filter((n) => /[\\u4e00-\\u9fff]/.test(n.textContent)).length")  # fmt: skip
        assert sized_page.evaluate(chinese, LABELS) > 100  # the Chinese labels are there to measure
    assert sized_page.evaluate(HAN_SPLITS, LABELS) == []


# FIG 1's scores that meet a key dot (the nearest point of the label's box to the dot's centre
# lies inside the dot): on a phone the grown label "1.41" overlapped the red key.
SCORES_ON_KEYS = """() => {
    const dots = [...document.querySelectorAll('#fig-lookup .key-dot')]
      .map((d) => d.getBoundingClientRect());
    return [...document.querySelectorAll('#fig-lookup .score-label')].flatMap((label) => {
      const b = label.getBoundingClientRect();
      return dots.filter((d) => {
        const [cx, cy] = [d.left + d.width / 2, d.top + d.height / 2];
        const dx = Math.max(b.left - cx, 0, cx - b.right);
        const dy = Math.max(b.top - cy, 0, cy - b.bottom);
        return Math.hypot(dx, dy) < d.width / 2;
      }).map(() => `"${label.textContent}" on a key`);
    });
  }"""


def test_fig1s_scores_stand_clear_of_the_keys(sized_page) -> None:
    assert sized_page.locator("#fig-lookup .score-label").count() == 5
    assert sized_page.evaluate(SCORES_ON_KEYS) == []
