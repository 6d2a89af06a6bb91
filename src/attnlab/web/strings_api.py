"""`GET /api/strings/{lang}`: the page's interface strings in one language, in one answer.

{group: {key: text}}: "page" is the page's catalogue, every other group a figure view's
(attnlab.catalogues). A page loads its own language only, and the other when the reader
switches. The files are read again when one changed (their times), so an edited catalogue shows
on the next load; the answer carries an ETag (304 when the page has it already).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import Response

from attnlab.catalogues import one_language, read_catalogues
from attnlab.web.revalidate import etag_of, pack, revalidated
from attnlab.web.schemas import error_responses, json_response

Lang = Literal["en", "zh"]


def strings_router(folder: Path) -> APIRouter:
    router = APIRouter(prefix="/api", tags=["lesson"])
    answer = json_response("{group: {key: text}}: the page's and each view's", {"type": "object"})

    @router.get(
        "/strings/{lang}",
        summary="The page's interface strings in one language (en or zh)",
        responses={200: answer} | error_responses(422),
    )
    def strings(lang: Lang, request: Request) -> Response:
        stamp = tuple(sorted((p.name, p.stat().st_mtime_ns) for p in folder.glob("*.json")))
        body, gzipped, etag = _encoded(folder, lang, stamp)
        return revalidated(request, body, media_type="application/json", etag=etag, gzipped=gzipped)

    return router


@lru_cache(maxsize=8)
def _encoded(
    folder: Path, lang: str, stamp: tuple[tuple[str, int], ...]
) -> tuple[bytes, bytes, str]:
    """The answer's bytes, their gzip (made once, not per page: 3 ms each at level 6) and ETag
    for the files as `stamp` names them."""
    text = one_language(read_catalogues([folder]), lang)
    body = json.dumps(text, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return body, pack(body), etag_of(body)
