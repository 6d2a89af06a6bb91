"""The page draws its Chinese with the font it ships (static/fonts, css/cjk.css), and an English
reader never downloads the big file.

This machine has system CJK fonts, so "no boxes" cannot be seen here; instead Chromium is asked
(DevTools' CSS.getPlatformFontsForNode) which font drew a node's glyphs: the shipped web font
(isCustomFont) for the 中文 button and the Chinese text, whatever the system has.
"""

from __future__ import annotations

from typing import Any

import pytest

from attnlab import webfont

pytestmark = pytest.mark.e2e

FACES = """() => document.fonts.ready.then(() => [...document.fonts]
  .filter((f) => f.family.replace(/"/g, '') === 'attnlab CJK').map((f) => f.status))"""


def fonts_of(page: Any, selector: str) -> list[dict[str, Any]]:
    """The fonts Chromium used for the glyphs of the first node matching `selector`."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    return cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]


def drawn_by_shipped_font(fonts: list[dict[str, Any]]) -> bool:
    return any(f["isCustomFont"] and f["familyName"].startswith("Noto Sans CJK") for f in fonts)


def test_an_english_reader_gets_the_small_files_only(open_lesson: Any, recorder: Any) -> None:
    """On opening: the language button's file alone; the glossary's names (cjk-common) once
    the reader scrolls to them; the lesson's file never."""
    page = open_lesson()
    page.evaluate(FACES)
    assert drawn_by_shipped_font(fonts_of(page, "button[data-set-lang='zh']"))
    fetched = [u.rsplit("/", 1)[1] for u in recorder.requests if "/static/fonts/" in u]
    assert fetched == ["cjk-switch.woff"], fetched
    # every poll brings the glossary's entries to the screen again: the text may still grow
    # above them (the lesson renders as it arrives), and an entry far off is not laid out
    page.wait_for_function(
        """() => {
          const entries = document.querySelectorAll('#s-glossary .gloss-entry');
          entries[Math.floor(entries.length / 2)]?.scrollIntoView({block: 'center'});
          return [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'attnlab CJK'
            && f.status === 'loaded' && f.unicodeRange.toUpperCase().includes('6CE8'));
        }""",  # 注 (U+6CE8), in cjk-common.woff
        polling=200,
    )
    fetched = [u.rsplit("/", 1)[1] for u in recorder.requests if "/static/fonts/" in u]
    assert "cjk-common.woff" in fetched and "cjk-lesson.woff" not in fetched, fetched


def test_the_chinese_page_draws_with_the_shipped_font(open_lesson: Any, recorder: Any) -> None:
    page = open_lesson("#lang=zh")
    page.wait_for_function("document.querySelector('[data-part=why] p')")
    assert page.evaluate(FACES) == ["loaded"] * len(webfont.CHUNKS)
    for selector in ("h1", "[data-part=why] p", "nav.contents a[href='#s-why']"):
        assert drawn_by_shipped_font(fonts_of(page, selector)), selector
    assert any(u.endswith("cjk-lesson.woff") for u in recorder.requests)
    assert not recorder.page_errors and not recorder.console_errors


def test_switching_to_chinese_loads_the_lesson_file(open_lesson: Any, recorder: Any) -> None:
    page = open_lesson()
    page.click("button[data-set-lang='zh']")
    page.wait_for_function("document.documentElement.lang === 'zh-Hans'")
    page.wait_for_function(f"({FACES})().then((s) => s.every((x) => x === 'loaded'))")
    assert drawn_by_shipped_font(fonts_of(page, "h1"))
