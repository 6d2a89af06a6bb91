"""An answer a browser may keep and ask again about: its ETag, and 304 when it has it already.

For answers the server builds once and sends to every page (index.html with the bundle, the
strings of a language, every figure at its defaults): `Cache-Control: no-cache` makes the
browser ask on each load, the ETag lets the answer be a 304 without a body. An answer packed
once with gzip is sent as that to a browser that accepts it (the GZipMiddleware passes it on).
"""

from __future__ import annotations

import gzip
import hashlib

from starlette.requests import Request
from starlette.responses import Response

from attnlab.web.static_files import REVALIDATE

GZIP_MIN_BYTES = 1024  # smaller answers fit a packet or two as they are
PACK_LEVEL = 9  # an answer packed once for every page: the smallest


def pack(body: bytes, level: int = PACK_LEVEL) -> bytes:
    """gzip of `body`, the same bytes on every machine and at every time (mtime 0)."""
    return gzip.compress(body, compresslevel=level, mtime=0)


def accepts_gzip(request: Request) -> bool:
    return "gzip" in request.headers.get("accept-encoding", "")


def packed_json(body: bytes, *, gzipped: bool) -> Response:
    """A JSON answer as it is, or already gzipped (the GZipMiddleware passes that on)."""
    headers = {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"} if gzipped else {}
    return Response(body, media_type="application/json", headers=headers)


def etag_of(body: bytes) -> str:
    return f'"{hashlib.sha256(body).hexdigest()[:20]}"'


def revalidated(
    request: Request,
    body: bytes,
    *,
    media_type: str,
    etag: str | None = None,
    gzipped: bytes | None = None,
) -> Response:
    """`body` (or `gzipped`) with its ETag, or a 304 when If-None-Match names it."""
    tag = etag or etag_of(body)
    headers = {"ETag": tag, "Cache-Control": REVALIDATE}
    if gzipped is not None:
        headers["Vary"] = "Accept-Encoding"
    asked = request.headers.get("if-none-match", "")
    if tag in (t.strip().removeprefix("W/") for t in asked.split(",")):
        return Response(status_code=304, headers=headers)
    if gzipped is not None and accepts_gzip(request):
        headers["Content-Encoding"] = "gzip"
        return Response(gzipped, media_type=media_type, headers=headers)
    return Response(body, media_type=media_type, headers=headers)
