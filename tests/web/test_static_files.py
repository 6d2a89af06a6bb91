"""The page's file types do not depend on the machine's MIME tables."""

from __future__ import annotations

import mimetypes

import pytest

from attnlab.web.static_files import media_type


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("main.js", "text/javascript"),
        ("lib/state.MJS", "text/javascript"),
        ("style.css", "text/css"),
        ("KaTeX_Main-Regular.woff2", "font/woff2"),
        ("en.json", "application/json"),
        ("index.html", "text/html"),
    ],
)
def test_types_the_page_needs(name, expected) -> None:
    assert media_type(name).split(";")[0] == expected


def test_a_machine_that_maps_js_to_text_plain_does_not_matter(monkeypatch) -> None:
    monkeypatch.setattr(mimetypes, "guess_type", lambda *a, **k: ("text/plain", None))
    assert media_type("main.js").startswith("text/javascript")
    assert media_type("photo.unknown") == "text/plain"
