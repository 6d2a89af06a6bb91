"""Shared links and what a reader sees of them, in Chromium: a link cut mid-escape or holding
settings out of range still opens the whole lesson, with a notice of what was ignored and what is
used instead (static/js/lib/state.js, notice.js); no TeX source shows anywhere the lesson's words
appear, with every exercise option tried (lib/exercises.js, math.js); each figure's try-its tick
inside the figure (lib/figuretasks.js); a link with FIG 2's step retrains to the same model
(lib/trainlink.js)."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest

from attnlab import lesson
from attnlab.figures import figure_module
from attnlab.tabletop import TrainConfig, Trainer
from attnlab.web import WebSettings
from tests.e2e.waits import SWEEP_ONLY

pytestmark = pytest.mark.e2e

PARTS = [p["id"] for p in lesson.load_lesson("en", None)["parts"]]
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
NOTICE = "#link-notice"
FIG2 = "#fig-training"
PHONE = {"width": 390, "height": 844}


def _api_params(server: str) -> dict[str, dict[str, dict[str, Any]]]:
    figures = httpx.get(f"{server}/api/figures", timeout=10).json()
    return {f["name"]: {p["name"]: p for p in f["params"]} for f in figures}


def _whole_lesson_is_there(page: Any, recorder: Any) -> None:
    assert recorder.page_errors == [] and recorder.console_errors == []
    assert page.locator("#page-error").is_hidden()
    for part in PARTS:
        assert page.locator(f'.prose[data-part="{part}"] > *').count() > 0, part
    assert page.locator("figure[data-fig]:not(.is-pending) svg").count() >= 7
    assert page.locator(".exercise").count() == len(lesson.exercises("en"))


def _default(figure: str, name: str) -> Any:
    """A setting's default, from the figure's own declaration (attnlab.figures)."""
    return next(p.default for p in figure_module(figure).PARAMS if p.name == name)


def _notice_items(page: Any) -> list[str]:
    return page.locator(f"{NOTICE} li").all_inner_texts()


# --- broken and out-of-range links -----------------------------------------------------------


@pytest.mark.parametrize(
    ("hash_", "lang"),
    [("#lookup.q=%E0%A4%A", "en"), ("#lookup.q=%", "en"), ("#lang=zh&lookup.q=%ZZ", "zh")],
)
def test_a_link_cut_mid_escape_opens_the_whole_lesson_with_a_notice(
    open_lesson, recorder, hash_: str, lang: str
) -> None:
    page = open_lesson(f"{hash_}&scaling.d_k=256")  # a good piece after the broken one
    _whole_lesson_is_there(page, recorder)
    assert page.get_attribute(NOTICE, "role") == "status"
    [item] = _notice_items(page)
    used = ", ".join(f"{x:g}" for x in _default("lookup", "q"))
    assert "lookup.q" in item and used in item  # what was ignored, and what is used instead
    assert bool(CJK.search(item)) == (lang == "zh")
    assert page.evaluate("document.documentElement.lang") == ("zh-Hans" if lang == "zh" else "en")
    # the rest of the link is kept: FIG 3 opens at d_k = 256, and the URL says so
    page.wait_for_function("location.hash.includes('scaling.d_k=256')")
    assert "lookup.q" not in page.evaluate("location.hash")


def test_out_of_range_settings_are_named_with_their_range_and_what_is_used(
    open_lesson, recorder, server
) -> None:
    params = _api_params(server)
    page = open_lesson("#lookup.q=99,99&training.heads=3&tokens.cameras=1e309&depth.depth=12")
    _whole_lesson_is_there(page, recorder)
    items = _notice_items(page)
    assert len(items) == 3, items
    q, heads = params["lookup"]["q"], params["training"]["heads"]
    cameras = params["tokens"]["cameras"]
    # ranges and replacements as the server describes them (GET /api/figures), not restated
    assert items[0].startswith("lookup.q (FIG 1) = 99,99")
    assert f"from {q['min']:g} to {q['max']:g}" in items[0]
    assert ", ".join(f"{x:g}" for x in q["default"]) in items[0]
    assert "training.heads (FIG 2) = 3" in items[1]
    assert ", ".join(map(str, heads["choices"])) in items[1]
    assert f"using {heads['default']} instead" in items[1]
    assert "1e309" in items[2] and f"from {cameras['min']} to {cameras['max']}" in items[2]
    assert f"using {cameras['default']} instead" in items[2]
    # the good setting is in use, the bad ones left the URL
    page.wait_for_function("location.hash.includes('depth.depth=12')")
    for gone in ("lookup.q", "training.heads", "tokens.cameras"):
        assert gone not in page.evaluate("location.hash")
    # dismissable with the keyboard: Tab to its button, Enter
    page.focus(f"{NOTICE} button")
    page.keyboard.press("Enter")
    assert page.locator(f"{NOTICE} li").count() == 0 and page.locator(NOTICE).is_hidden()


def test_the_notice_speaks_chinese_and_closes_on_escape(open_lesson) -> None:
    page = open_lesson("#lang=zh&training.heads=3&foo.bar=1")
    items = _notice_items(page)
    assert len(items) == 2 and all(CJK.search(i) for i in items)
    assert "1, 2, 4" in items[0] and "foo.bar" in items[1]
    page.click("[data-set-lang=en]")  # a language switch rewrites it
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert "is not allowed" in _notice_items(page)[0]
    page.keyboard.press("Escape")
    assert page.locator(NOTICE).is_hidden()


@pytest.mark.parametrize(
    ("hash_", "named", "lang"),
    [("#%%%%", "%%%%", "en"), ("#%E4%B8", "%E4%B8", "zh"), ("#nowhere", "nowhere", "en")],
)
def test_a_link_the_page_cannot_read_at_all_says_what_it_ignored(
    browser, server, recorder, hash_: str, named: str, lang: str
) -> None:
    context = browser.new_context(locale="zh-CN" if lang == "zh" else "en-US")
    try:
        page = context.new_page()
        recorder.attach(page)
        page.goto(f"{server}/{hash_}")
        page.wait_for_selector("html.is-ready")
        _whole_lesson_is_there(page, recorder)
        page.wait_for_selector(f"{NOTICE} li")
        [item] = _notice_items(page)
        assert named in item and bool(CJK.search(item)) == (lang == "zh")
    finally:
        context.close()


def test_an_anchor_that_names_nothing_is_told_when_the_text_arrives_late(browser, server) -> None:
    """The page rewrites the address bar 150 ms after it starts (#nowhere → #lang=en); the text,
    where an anchor may point, can come later (a busy machine). The notice reads the link as it
    was opened, not the rewritten address (a CI run timed out waiting for it)."""
    context = browser.new_context(locale="en-US")
    try:
        page = context.new_page()
        held: list[Any] = []
        page.route("**/api/lesson/**", lambda route: held.append(route))  # held until let go
        page.goto(f"{server}/#nowhere")
        page.wait_for_function("location.hash === '#lang=en'")  # rewritten before the text came
        deadline = time.monotonic() + 15  # the route's handler runs while Playwright waits
        while not held and time.monotonic() < deadline:
            page.wait_for_timeout(20)
        held[0].continue_()
        page.wait_for_selector("html.is-ready")
        page.wait_for_selector(f"{NOTICE} li")
        [item] = _notice_items(page)
        assert "nowhere" in item
    finally:
        context.close()


def test_a_long_list_of_problems_opens_in_full_with_the_step_beyond_the_limit(
    open_lesson, recorder
) -> None:
    page = open_lesson(
        "#lookup.q=9,9&lookup.nope=1&scaling.t=99&depth.depth=99&foo=1&bar.x=2&training.step=999999"
    )
    page.wait_for_function(f"document.querySelectorAll('{NOTICE} li').length === 6")
    more = f"{NOTICE} .link-notice-more"
    page.wait_for_function(f"document.querySelector('{more}')?.textContent.includes('1')")
    page.click(more)  # the seventh, FIG 2's step, found only once the server stated its limit
    items = _notice_items(page)
    assert len(items) == 7 and page.locator(f"{NOTICE} .link-notice-more").count() == 0
    [step] = [i for i in items if "training.step" in i]
    assert "999999" in step and f"using {WebSettings().max_steps} instead" in step
    assert recorder.page_errors == []


def test_a_bad_link_pasted_into_an_open_page_is_told_too(open_lesson, recorder) -> None:
    page = open_lesson()
    assert page.locator(NOTICE).is_hidden()
    page.evaluate("location.hash = '#lang=en&scaling.d_k=%E0%A4&scaling.scaled=false'")
    page.wait_for_selector(f"{NOTICE} li")
    assert "scaling.d_k" in _notice_items(page)[0]
    page.wait_for_function("location.hash.includes('scaling.scaled=false')")
    assert recorder.page_errors == []


# --- no TeX source where the lesson's words appear -------------------------------------------

# A TeX command, a sub- or superscript written as TeX (W_O, d_k, x^2, ^{…}).
TEX = re.compile(r"\\[A-Za-z]+|[A-Za-z0-9)}\]]_[A-Za-z0-9{\\]|\^[{A-Za-z0-9\\]")
# Every text node a reader sees or hears, and the words of titles and labels. Left out: KaTeX's
# own rendering (its hidden TeX annotation is its source, on purpose), <code> (identifiers such
# as scaled_dot_product_attention) and the "check the numbers" panel (rendered by its own module,
# claimspanel.js, not the lesson's text).
VISIBLE_TEXT = """() => {
  const skip = (el) => !el || el.closest('.katex, code, script, style, #check-panel');
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (skip(n.parentElement) || !n.textContent.trim()) continue;
    if (n.parentElement.closest('[hidden]') && !n.parentElement.closest('#announcer')) continue;
    out.push(n.textContent.trim());
  }
  for (const el of document.querySelectorAll('[title], [aria-label]')) {
    if (skip(el)) continue;
    for (const a of ['title', 'aria-label']) if (el.getAttribute(a)) out.push(el.getAttribute(a));
  }
  return out;
}"""


def _tex_left(page: Any) -> list[str]:
    return [text for text in page.evaluate(VISIBLE_TEXT) if TEX.search(text)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_tex_source_in_what_the_reader_sees(open_lesson, lang: str) -> None:
    page = open_lesson(f"#lang={lang}")
    # every number the fast checks give (a seed sweep's few are measured only when a test asks)
    page.wait_for_function(
        f"+document.documentElement.dataset.pendingValues <= {SWEEP_ONLY}", timeout=120_000
    )
    assert page.locator(".exercise .katex").count() > 0  # the options' formulas are drawn
    found = _tex_left(page)
    heard = []
    # every option of every exercise, and what the live region says of it; a tried option's
    # feedback stays open, so one scan at the end reads them all
    for option in page.locator(".exercise .ex-option").all():
        # emptied here, the live region is written 30 ms after the click (lib/viewctx.js)
        page.eval_on_selector("#announcer", "node => { node.textContent = ''; }")
        option.click()
        page.wait_for_function("document.getElementById('announcer').textContent !== ''")
        heard.append(page.inner_text("#announcer"))
    assert page.locator(".ex-feedback:not([hidden])").count() == page.locator(".ex-option").count()
    found += _tex_left(page)
    # every glossary term's tooltip
    for term in page.locator("#s-lookup a.gloss, #s-training a.gloss, #s-math a.gloss").all()[:12]:
        term.hover()
        found += [t for t in page.locator("#gloss-tip").all_inner_texts() if TEX.search(t)]
    found += [t for t in heard if TEX.search(t)]
    assert found == [], sorted(set(found))[:10]
    assert any("√64" in t for t in heard)  # the root is heard, not "\\sqrt{64}" nor "64"


# --- each figure's try-its inside the figure -------------------------------------------------


def _box(page: Any, selector: str) -> dict[str, float]:
    return page.eval_on_selector(selector, "el => el.getBoundingClientRect().toJSON()")


ON_SCREEN = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
  return r.top >= 0 && r.bottom <= innerHeight; }"""


@pytest.mark.parametrize("viewport", [None, PHONE])
def test_try_its_tick_inside_their_figure(page, server, viewport) -> None:
    if viewport:
        page.set_viewport_size(viewport)
    page.goto(f"{server}/")
    page.wait_for_selector("html.is-ready")
    fig, tasks, line = "#fig-position", "#fig-position .fig-tasks", ".ft-task[data-task=rope-shift]"
    # every figure with a try-it lists its tasks, in lesson order, above its controls
    # (a task of several stages: one line per stage, each with its own words)
    for name in {t["figure"] for t in lesson.tries("en")}:
        ids = [(t["id"], str(i)) for t in lesson.tries("en") if t["figure"] == name
               for i in (range(len(t["when"])) if len(t["when"]) > 1 else ["0"])]  # fmt: skip
        shown = page.eval_on_selector_all(
            f"#fig-{name} .ft-task", "els => els.map(e => [e.dataset.task, e.dataset.stages])"
        )
        assert [tuple(x) for x in shown] == ids, name
    assert _box(page, tasks)["bottom"] <= _box(page, f"{fig} .fig-body")["top"] + 1
    assert page.eval_on_selector(tasks, "el => el.scrollWidth <= el.clientWidth")
    assert page.locator(f"{tasks} {line} .ft-tick.met").count() == 0
    shift = page.locator(f"{fig} button[data-role=shift]")
    page.wait_for_selector(f"{fig} [data-readout=score][data-value]")
    for _ in range(3):
        shift.click()
    page.wait_for_selector(f"{tasks} {line}.is-done .ft-tick.met")
    assert page.locator("#try-rope-shift.is-done").count() == 1  # the same tick as the text's
    assert "1 of 1" in page.inner_text(f"{tasks} {line} .ft-state")
    # the line leads to the full text, and the text's box leads back
    page.click(f"{tasks} {line} a")
    page.wait_for_function("document.activeElement?.id === 'try-rope-shift'")
    page.click("#try-rope-shift .try-back")
    page.wait_for_function("document.activeElement?.id === 'fig-position-tasks'")
    page.wait_for_function(ON_SCREEN, arg=tasks)  # the smooth scroll, however long it takes
    box = _box(page, tasks)
    assert box["top"] >= 0 and box["bottom"] <= page.viewport_size["height"]
    assert page.evaluate("location.hash").startswith("#lang=")  # still the state, not an anchor


def test_each_stage_of_a_try_it_says_its_own_words_in_the_figure(loaded_lesson) -> None:
    page, _ = loaded_lesson
    lines = page.locator(f"{FIG2} .ft-task[data-task=two-heads]")
    assert lines.count() == 2
    first, second = lines.nth(0).inner_text(), lines.nth(1).inner_text()
    assert "Switch to vector and train 1 head" in first and "Now train 2 heads" in second
    assert "step 2 of 2: not yet" in second


# --- FIG 2's trained step in a link ----------------------------------------------------------


def _trained_to(page: Any, step: int) -> None:
    page.wait_for_selector(f"{FIG2} dd[data-key=step][data-value='{step}']", timeout=60_000)
    page.wait_for_selector(f"{FIG2} button[data-role=train][aria-pressed=false]")


@pytest.mark.slow
def test_a_link_with_the_training_step_shows_the_same_trained_model(open_lesson, recorder) -> None:
    seed, steps = 7, 1500
    page = open_lesson(f"#training.seed={seed}&training.step={steps}")
    _trained_to(page, steps)
    engine = Trainer(TrainConfig(task="fetch", heads=1, seed=seed))
    engine.advance(steps)
    last = engine.history[-1]
    assert last["step"] == steps
    for key, name in (("attn", "attn_err_cm"), ("mlp", "mlp_err_cm")):
        shown = float(page.get_attribute(f"{FIG2} dd[data-key={key}]", "data-value"))
        assert shown == pytest.approx(last[name], rel=1e-9), key
    assert f"training.step={steps}" in page.evaluate("location.hash")
    # the link retrained the model; the reader did nothing, so no try-it ticked
    assert page.locator("#try-fetch-race .try-stage.met").count() == 0
    # from here the URL follows the model: one Step more is 25 steps more
    page.click(f"{FIG2} button:has-text('+25')")
    _trained_to(page, steps + 25)
    page.wait_for_function(f"location.hash.includes('training.step={steps + 25}')")
    assert recorder.page_errors == [] and recorder.console_errors == []
