"""The lesson's page (`GET /`): index.html, with the bundle in place of its source tags.

index.html loads the page as its sources: KaTeX's scripts and sheet, the page's sheets and
js/main.js, between `<!-- page:begin -->` and `<!-- page:end -->`. widgets/page.mjs bundles
exactly that block into static/bundle (page.json names the files), and the page is served with
the block replaced by the two bundled files: 2 requests instead of some 70, each cached for good.
`ATTNLAB_PAGE_SOURCES=1` (WebSettings.page_sources) serves the block as it is, for working on
the page without a build; the source files are served in both modes (/static/js/…).
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from attnlab.web.revalidate import revalidated
from attnlab.web.static_files import BUNDLE_DIR

log = logging.getLogger("attnlab.web")
BLOCK = re.compile(r"<!-- page:begin.*?<!-- page:end -->", re.S)
MANIFEST = "page.json"


def bundle_tags(static: Path) -> str | None:
    """The bundle's <link> and <script>, or None when static/bundle holds no build."""
    try:
        names = json.loads((static / BUNDLE_DIR / MANIFEST).read_text("utf-8"))
        css, js = names["css"], names["js"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not all((static / BUNDLE_DIR / name).is_file() for name in (css, js)):
        return None
    # data-bundle: the figures' own sheets are in it (js/lib/figureshells.js links none then)
    return (
        f'<link rel="stylesheet" href="/static/{BUNDLE_DIR}/{css}" data-bundle>\n'
        f'  <script type="module" src="/static/{BUNDLE_DIR}/{js}"></script>'
    )


class LessonPage:
    """index.html as served: read once with the bundle, or on every request from the sources."""

    def __init__(self, static: Path, *, sources: bool) -> None:
        self.path = static / "index.html"
        self.tags = None if sources else bundle_tags(static)
        if not sources and self.tags is None:
            log.warning("no page bundle in %s: serving the page's sources (make page)", static)
        self._built: bytes | None = None

    def html(self) -> bytes:
        if self._built is not None:
            return self._built
        text = self.path.read_text("utf-8")
        if self.tags is None:
            return text.encode("utf-8")  # the sources, read again so that an edit shows at once
        if not BLOCK.search(text):
            raise RuntimeError("static/index.html has no <!-- page:begin --> … <!-- page:end -->")
        self._built = BLOCK.sub(lambda _: self.tags or "", text, count=1).encode("utf-8")
        return self._built

    def response(self, request: Request) -> Response:
        return revalidated(request, self.html(), media_type="text/html; charset=utf-8")
