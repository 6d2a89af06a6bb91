"""The committed Chinese font (static/fonts/cjk-*.woff) draws every Chinese character the page can
show, its CSS states exactly what each file holds, and an English reader's file stays small.

The font files themselves are read (fontTools reads WOFF with zlib alone): a text that gained a
character since the last `make font` fails here, with the characters to add.
"""

from __future__ import annotations

import pytest
from fontTools.ttLib import TTFont

from attnlab import webfont

COMMON_BUDGET = 24 * 1024  # bytes: the file an English page fetches for the glossary's names
SWITCH_BUDGET = 4 * 1024  # bytes: the file every page fetches (the language button)


def cmap(chunk: str) -> set[str]:
    font = TTFont(webfont.FONTS / f"cjk-{chunk}.woff")
    return {chr(p) for p in font.getBestCmap()}


@pytest.mark.parametrize("chunk", webfont.CHUNKS)
def test_each_file_draws_every_character_of_its_part(chunk: str) -> None:
    missing = webfont.characters()[chunk] - cmap(chunk)
    assert not missing, f"cjk-{chunk}.woff lacks {''.join(sorted(missing))}: run `make font`"


def test_every_chinese_character_of_the_page_is_in_a_file() -> None:
    shown = set().union(*webfont.characters().values())
    drawn = set().union(*(cmap(c) for c in webfont.CHUNKS))
    assert "中" in shown and "文" in shown  # the language button, from index.html
    assert not shown - drawn, "".join(sorted(shown - drawn))


def test_the_css_states_what_each_file_holds() -> None:
    chars = {chunk: cmap(chunk) for chunk in webfont.CHUNKS}
    assert webfont.CSS_FILE.read_text("utf-8") == webfont.css(chars), "run `make font`"
    for i, a in enumerate(webfont.CHUNKS):  # a character is fetched from one file only
        for b in webfont.CHUNKS[i + 1 :]:
            assert not chars[a] & chars[b], (a, b)


def test_the_english_page_needs_only_the_small_files() -> None:
    texts = [p.read_text("utf-8") for p in webfont._texts("en")]
    english = set().union(*(webfont.CJK.findall(text) for text in texts))
    assert english <= cmap("common") | cmap("switch")
    assert (webfont.FONTS / "cjk-common.woff").stat().st_size <= COMMON_BUDGET


def test_every_page_draws_its_language_button_from_the_smallest_file() -> None:
    """中文 is on every page: an English reader fetches a few KiB for it, not the glossary's
    names with it (issue 19: the bytes a learner's first load costs)."""
    page = set(webfont.CJK.findall((webfont.STATIC / "index.html").read_text("utf-8")))
    assert page and page <= cmap("switch")
    assert (webfont.FONTS / "cjk-switch.woff").stat().st_size <= SWITCH_BUDGET


def test_the_licence_ships_beside_the_font() -> None:
    text = (webfont.FONTS / "OFL.txt").read_text("utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in text and "Reserved Font Name 'Source'" in text
    font = TTFont(webfont.FONTS / "cjk-lesson.woff")
    assert "Open Font License" in font["name"].getDebugName(13)  # kept in the file too (OFL §2)


def test_unicode_range_joins_consecutive_code_points() -> None:
    assert webfont.unicode_range("文中斈斉") == "U+4E2D, U+6587-6589"
