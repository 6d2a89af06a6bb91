"""How the page reaches a class: the bundle in place of the sources, cached for good, gzipped;
the strings of one language; every figure at its defaults in one answer."""

from __future__ import annotations

import json
import re

import pytest

from attnlab.figures import MODULES
from attnlab.web.config import PACKAGE_STATIC
from attnlab.web.page_html import BLOCK
from tests.web.packed import assert_packed_once

GZIP = {"accept-encoding": "gzip"}
MANIFEST = json.loads((PACKAGE_STATIC / "bundle" / "page.json").read_text("utf-8"))


def test_the_page_loads_the_bundle_instead_of_its_sources(client) -> None:
    page = client.get("/")
    assert page.headers["cache-control"] == "no-cache"
    assert f'href="/static/bundle/{MANIFEST["css"]}"' in page.text
    assert f'src="/static/bundle/{MANIFEST["js"]}"' in page.text
    assert "/static/js/main.js" not in page.text and "katex.min.js" not in page.text
    assert client.get("/", headers={"if-none-match": page.headers["etag"]}).status_code == 304


def test_page_sources_serves_the_block_as_it_is(make_client) -> None:
    page = make_client(page_sources=True).get("/")
    assert "/static/bundle/" not in page.text
    source = (PACKAGE_STATIC / "index.html").read_text("utf-8")
    assert page.text == source and BLOCK.search(source)


def test_the_environment_asks_for_the_sources(monkeypatch) -> None:
    from attnlab.web.config import WebSettings

    monkeypatch.setenv("ATTNLAB_PAGE_SOURCES", "1")
    assert WebSettings().page_sources
    monkeypatch.setenv("ATTNLAB_PAGE_SOURCES", "0")
    assert not WebSettings().page_sources


def test_the_bundle_is_cached_for_good_and_sent_gzipped(client) -> None:
    for name in MANIFEST.values():
        plain = client.get(f"/static/bundle/{name}", headers={"accept-encoding": "identity"})
        assert plain.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert "content-encoding" not in plain.headers
        packed = client.get(f"/static/bundle/{name}", headers=GZIP)
        assert packed.headers["content-encoding"] == "gzip"
        assert packed.headers["vary"] == "Accept-Encoding"
        assert packed.content == plain.content  # httpx decodes the gzip
        assert int(packed.headers["content-length"]) < len(plain.content) / 2
        again = client.get(
            f"/static/bundle/{name}", headers=GZIP | {"if-none-match": packed.headers["etag"]}
        )
        assert again.status_code == 304


def test_the_sources_stay_served_and_revalidated(client) -> None:
    answer = client.get("/static/js/lib/api.js")
    assert answer.status_code == 200 and answer.headers["cache-control"] == "no-cache"


def test_text_answers_are_gzipped_and_the_fonts_are_not(client) -> None:
    lesson = client.get("/api/lesson/en", headers=GZIP)
    assert (
        lesson.headers["content-encoding"] == "gzip" and "Accept-Encoding" in lesson.headers["vary"]
    )
    font = client.get("/static/vendor/katex/fonts/KaTeX_Main-Regular.woff2", headers=GZIP)
    assert "content-encoding" not in font.headers
    assert (
        "content-encoding"
        not in client.get("/api/lesson/en", headers={"accept-encoding": "identity"}).headers
    )


def test_the_strings_of_one_language(client) -> None:
    for lang in ("en", "zh"):
        answer = client.get(f"/api/strings/{lang}")
        strings = answer.json()
        page = json.loads((PACKAGE_STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
        assert strings["page"].items() >= page.items()
        for group in MODULES:
            path = PACKAGE_STATIC / "i18n" / f"{group}.{lang}.json"
            if path.is_file():
                assert strings[group].items() >= json.loads(path.read_text("utf-8")).items()
        assert (
            client.get(
                f"/api/strings/{lang}", headers={"if-none-match": answer.headers["etag"]}
            ).status_code
            == 304
        )
    assert client.get("/api/strings/fr").status_code == 422


def test_every_figure_at_its_defaults_in_one_answer(client) -> None:
    answer = client.get("/api/figures-at-defaults", headers=GZIP)
    assert answer.headers["content-encoding"] == "gzip"
    every = answer.json()
    assert list(every) == list(MODULES)
    for name in MODULES:
        assert every[name] == client.get(f"/api/figures/{name}").json()
    etag = answer.headers["etag"]
    assert re.fullmatch(r'"[0-9a-f]{20}"', etag)
    assert (
        client.get("/api/figures-at-defaults", headers={"if-none-match": etag}).status_code == 304
    )
    plain = client.get("/api/figures-at-defaults", headers={"accept-encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.json() == every


@pytest.mark.parametrize("path", ["/api/strings/zh", "/api/figures/position"])
def test_the_text_answers_are_packed_once_for_the_class(client, monkeypatch, path) -> None:
    """The strings and a figure's answer are gzipped once and sent as that to every page (the
    lesson's text: tests/web/test_lesson_api.py, with its measurements held still)."""
    assert_packed_once(client, path, monkeypatch)


def test_small_static_files_are_read_once_while_unchanged(tmp_path) -> None:
    import os

    from starlette.testclient import TestClient

    from attnlab.web.static_files import KeptFiles, LessonStaticFiles

    (tmp_path / "a.js").write_text("one")
    files = LessonStaticFiles(directory=tmp_path)
    client = TestClient(files)  # (no lifespan: a bare StaticFiles answers only HTTP)
    assert [client.get("/a.js").text for _ in range(3)] == ["one"] * 3
    kept = files.kept.cache.stats()
    assert (kept.entries, kept.computes, kept.hits) == (1, 1, 2)  # read from the disk once
    (tmp_path / "a.js").write_text("two!")
    os.utime(tmp_path / "a.js", ns=(1, 1))  # another time, another size: read again
    assert client.get("/a.js").text == "two!"
    assert files.kept.cache.stats().computes == 2
    assert client.get("/a.js", headers={"range": "bytes=1-2"}).text == "wo"  # from the disk
    # a file written while it is read is sent as read, and kept under no key
    (tmp_path / "b.js").write_text("one")
    stale = (tmp_path / "b.js").stat()
    (tmp_path / "b.js").write_text("three")
    before = files.kept.cache.stats().entries
    assert files.kept.read(tmp_path / "b.js", stale) == b"three"
    assert files.kept.cache.stats().entries == before
    big = tmp_path / "big.bin"
    big.write_bytes(b"x" * (KeptFiles.MAX_FILE + 1))
    assert files.kept.read(big, big.stat()) is None  # sent from the disk, never kept
