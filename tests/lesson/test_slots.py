"""The server's number slots in text (attnlab.lesson.blocks, attnlab.lesson.values.slot_html)
against the shared cases the page's copy is held to (tests/cases/slots.json; the page's side is
tests/e2e/test_shared_cases.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attnlab.lesson.blocks import Context, render_inline

SLOTS = json.loads((Path(__file__).parents[1] / "cases" / "slots.json").read_text("utf-8"))


@pytest.mark.parametrize(("text", "html"), SLOTS["cases"])
def test_the_server_writes_the_shared_slots(text: str, html: str) -> None:
    ctx = Context(where="slots.json", values=SLOTS["values"], gloss={}, slots=True)
    assert render_inline(text, ctx) == html


def test_the_cases_cover_filled_pending_and_plain_text() -> None:
    shown = [html for _, html in SLOTS["cases"]]
    assert any('class="val"' in h for h in shown) and any("val pending" in h for h in shown)
    assert any("span" not in h for h in shown)
