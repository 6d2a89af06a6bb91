"""The teacher's page itself (issue 20), with one or two learners: the seat box folds from the
keyboard and stays folded while the class changes; what the page has said (the "sent" line, the
live line) and a learner's notice follow a language switch made after they appeared; at 390 px,
in English and in Chinese, nothing scrolls sideways and no bar's count breaks over two lines."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import VIEWPORT, run_server, show_everyone

pytestmark = pytest.mark.e2e

TEACHER = "the-teacher-s-own-token-9876543210"
SUMMARY = "#teach-seats-summary"


@pytest.fixture(scope="module")
def lesson() -> Iterator[str]:
    with run_server(teacher_token=TEACHER) as base:
        yield base


def _open(browser: Any, url: str, ready: str, viewport: dict[str, int] = VIEWPORT) -> Any:
    context = browser.new_context(viewport=viewport, locale="en-US")
    context.set_default_timeout(90_000)  # pages load the lesson at once on a shared machine
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda err: page.errors.append(str(err)))
    page.goto(url)
    page.wait_for_selector(ready)
    return page


def _teacher(browser: Any, lesson: str, **kw: Any) -> Any:
    return _open(browser, f"{lesson}/teach?teacher={TEACHER}", "#teach-live[data-state=open]", **kw)


def _learner(browser: Any, lesson: str) -> Any:
    return _open(browser, f"{lesson}/", "[data-role=class-seat]")


def _text_has(page: Any, selector: str, piece: str) -> None:
    page.wait_for_function(
        "([s, piece]) => document.querySelector(s)?.textContent.includes(piece)",
        arg=[selector, piece], timeout=30_000,  # a switch may load the lesson first
    )  # fmt: skip


def test_the_seat_box_folds_from_the_keyboard_and_stays_folded(browser, lesson: str) -> None:
    teacher, first = _teacher(browser, lesson), _learner(browser, lesson)
    second = None
    try:
        teacher.wait_for_selector(f"{SUMMARY}:text-is('Seats (1)')")
        assert teacher.is_visible("#teach-seats .teach-seat")
        teacher.focus("[data-set-lang=zh]")  # the header's last control: the seats come next
        teacher.keyboard.press("Tab")
        assert teacher.evaluate("document.activeElement.id") == SUMMARY[1:]
        teacher.keyboard.press("Enter")
        assert teacher.evaluate("document.getElementById('teach-seats-box').open") is False
        assert not teacher.is_visible("#teach-seats .teach-seat")
        second = _learner(browser, lesson)  # the class changes: the box is redrawn, still folded
        teacher.wait_for_selector(f"{SUMMARY}:text-is('Seats (2)')")
        assert teacher.evaluate("document.getElementById('teach-seats-box').open") is False
        teacher.keyboard.press("Space")
        assert teacher.locator("#teach-seats .teach-seat").count() == 2
        assert teacher.is_visible("#teach-seats .teach-seat")
        assert teacher.errors == []
    finally:
        for page in (teacher, first, second):
            if page is not None:
                page.context.close()


def test_what_was_said_follows_a_language_switch_made_after_it(browser, lesson: str) -> None:
    teacher, learner = _teacher(browser, lesson), _learner(browser, lesson)
    try:
        show_everyone(teacher, "scaling", {"d_k": "256"})
        _text_has(teacher, "#teach-sent", "Sent to everyone: FIG 3 (d_k = 256")
        learner.wait_for_selector(".class-show[data-offer]")
        assert "Your teacher shows everyone FIG 3 (d_k = 256" in learner.inner_text(
            ".class-show-news"
        )
        teacher.click("[data-set-lang=zh]")
        _text_has(teacher, "#teach-sent", "已发送给全班：FIG 3 (d_k = 256")
        assert teacher.inner_text("#teach-live") == "实时"
        learner.click("[data-set-lang=zh]")
        _text_has(learner, ".class-show-news", "老师向全班展示 FIG 3 (d_k = 256")

        # a try-it's name comes from the lesson's text: it is said again in the other language
        teacher.select_option("#teach-show-try select[name=try]", "rope-shift")
        teacher.click("#teach-show-try [data-role=show-try]")
        zh = teacher.inner_text("#teach-show-try option[value=rope-shift]")
        _text_has(teacher, "#teach-sent", f"已发送给全班：{zh}")
        teacher.click("[data-set-lang=en]")
        en = teacher.inner_text("#teach-show-try option[value=rope-shift]")
        assert en != zh
        _text_has(teacher, "#teach-sent", f"Sent to everyone: {en}.")
        assert teacher.inner_text("#teach-live") == "Live"
        assert teacher.errors == [] and learner.errors == []
    finally:
        teacher.context.close()
        learner.context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_at_390_px_nothing_scrolls_sideways_and_counts_keep_one_line(
    browser, lesson: str, lang: str
) -> None:
    learner = _learner(browser, lesson)
    teacher = _teacher(browser, lesson, viewport={"width": 390, "height": 844})
    try:
        teacher.click(f"[data-set-lang={lang}]")
        teacher.wait_for_selector("#teach-tries .teach-bar")
        # the bars are drawn again in the new language: measure them once their counts are in
        teacher.wait_for_function(
            "() => { const ns = [...document.querySelectorAll('.teach-bar-n')];"
            " return ns.length > 0 && ns.every((n) => n.textContent.trim() !== ''); }"
        )
        assert teacher.evaluate("document.documentElement.scrollWidth <= innerWidth")
        lines = teacher.eval_on_selector_all(
            ".teach-bar-n",  # "0 of 2", "2 人中 0 人": the lines its text takes
            "ns => ns.map(n => { const r = document.createRange(); r.selectNodeContents(n);"
            " return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; })",
        )
        assert lines and max(lines) == 1, lines
        assert teacher.errors == []
    finally:
        teacher.context.close()
        learner.context.close()


def test_axe_finds_no_violation_on_the_teacher_s_page(browser, lesson: str) -> None:
    from tests.e2e.test_axe import AXE, RUN_AXE

    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `make test` (npm ci in tests/e2e)")
    learner = _learner(browser, lesson)
    teacher = _teacher(browser, lesson)
    try:
        teacher.wait_for_selector("#teach-seats .teach-seat")
        show_everyone(teacher, "lookup", {})  # a status line said
        teacher.wait_for_selector("#teach-sent:not(:empty)")
        teacher.add_script_tag(content=AXE.read_text())
        assert teacher.evaluate(RUN_AXE) == []
        teacher.click(SUMMARY)  # the seats folded, in Chinese
        teacher.click("[data-set-lang=zh]")
        teacher.wait_for_function("document.documentElement.lang.startsWith('zh')")
        assert teacher.evaluate(RUN_AXE) == []
    finally:
        teacher.context.close()
        learner.context.close()


LOAD_BEHIND = {
    "active": 32, "queued": 8, "capacity": 32, "readers": 40, "capacity_while_dragging": 17,
    "over_capacity": True, "watch_pace": 200, "paced_trainers": 32, "behind_pace": 32,
    "delivered_steps_per_s": 3560.4, "capacity_delivered": 17,
}  # fmt: skip


@pytest.mark.parametrize(
    ("lang", "pieces"),
    [
        ("en", ["3560 steps a second", "32 of 32 learners", "enough for 17 at 200"]),
        ("zh", ["每秒共给出 3560 步", "32 人中有 32 人", "够 17 人"]),
    ],
)
def test_the_load_says_what_the_workers_measure_once_learners_fall_behind(
    browser, lesson: str, lang: str, pieces: list[str]
) -> None:
    """drawLoad with the server's answer (capacity.class_load): the measured line appears when
    some learner is behind the watch pace, in the teacher's language, and not otherwise."""
    page = browser.new_context().new_page()
    try:
        page.goto(f"{lesson}/static/i18n/teach.en.json")  # any page of the origin will do
        texts = page.evaluate(
            """async ([load, lang]) => {
                const G = await import("/static/js/teach/glance.js");
                const I = await import("/static/js/lib/i18n.js");
                const cat = await (await fetch(`/static/i18n/teach.${lang}.json`)).json();
                const t = I.translator({ [lang]: cat }, () => lang);
                const out = [];
                for (const behind of [load.behind_pace, 0]) {
                  const box = document.createElement("div");
                  G.drawLoad(box, { ...load, behind_pace: behind }, t);
                  out.push([...box.querySelectorAll("p")].map((p) => p.textContent));
                }
                return out;
            }""",
            [LOAD_BEHIND, lang],
        )
    finally:
        page.context.close()
    behind, at_pace = texts
    assert len(behind) == 2 and len(at_pace) == 1 and at_pace[0] == behind[0]
    assert all(piece in behind[1] for piece in pieces), behind[1]


@pytest.mark.parametrize("width", [390, 1400])
def test_a_link_notice_in_a_class_stands_above_the_seat_box_and_closes(
    browser, lesson: str, width: int
) -> None:
    """Both are docked at the bottom; at 390 px the seat box covered the notice's Dismiss button
    (a tap landed on the box). The notice now rises above the box, and a tap or Escape closes it."""
    phone = width == 390
    context = browser.new_context(
        viewport={"width": width, "height": 800}, has_touch=phone, is_mobile=phone
    )
    context.set_default_timeout(90_000)
    try:
        page = context.new_page()
        page.goto(f"{lesson}/#nowhere")
        page.wait_for_selector("[data-role=class-seat]")
        page.wait_for_selector("#link-notice li")
        page.wait_for_function(
            "(() => { const n = document.querySelector('#link-notice').getBoundingClientRect();"
            " const s = document.querySelector('section.class-show').getBoundingClientRect();"
            " return n.bottom <= s.top; })()"
        )
        on_top = page.evaluate(
            "(() => { const b = document.querySelector('#link-notice .link-notice-close');"
            " const r = b.getBoundingClientRect(), x = r.x + r.width / 2, y = r.y + r.height / 2;"
            " return b.contains(document.elementFromPoint(x, y)); })()"
        )
        assert on_top
        if phone:
            page.tap("#link-notice .link-notice-close")
        else:
            page.focus("#link-notice .link-notice-close")
            page.keyboard.press("Escape")
        page.wait_for_selector("#link-notice li", state="detached")
    finally:
        context.close()
