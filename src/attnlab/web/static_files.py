"""The page's own files (`src/attnlab/static`), served with MIME types that do not depend on
the machine.

Python's `mimetypes` reads the system's tables (and, on Windows, the registry, which often maps
.js to text/plain): a browser refuses an ES module served as anything but JavaScript, so the
types the page needs are fixed here.

The page's bundle (`bundle/page-HASH.js`, widgets/page.mjs) is named by its content, so it is
cached for good (`immutable`); every other file is revalidated on each load. A file with a `.gz`
beside it made at build time is sent as that to a browser that accepts gzip (no compression per
request); the rest of the text is compressed by the app's GZipMiddleware.
"""

from __future__ import annotations

import mimetypes
import os
from pathlib import Path
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import FileResponse, Response
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import Scope

from attnlab.web.answer_cache import AnswerCache

MIME_TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".ttf": "font/ttf",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
}
REVALIDATE = "no-cache"  # the browser asks again on each load (ETag: a 304 when unchanged)
FOREVER = "public, max-age=31536000, immutable"  # a name that never holds other bytes
BUNDLE_DIR = "bundle"  # static/bundle: the page's content-named bundle


def media_type(path: str | os.PathLike[str]) -> str:
    suffix = Path(path).suffix.lower()
    return MIME_TYPES.get(suffix) or mimetypes.guess_type(str(path))[0] or "text/plain"


class KeptFiles:
    """The bytes of small files, read once while unchanged (path, size and time): a class
    opening the page asks for the same twenty files forty times, and FileResponse reads each in
    a worker thread, a hop for every chunk. Kept in an AnswerCache: files up to MAX_FILE bytes,
    MAX_BYTES in all, the least recently read leave first."""

    MAX_FILE = 1 << 20
    MAX_BYTES = 16 << 20
    KEPT_S = 3600.0  # a file's key changes when the file does: time only frees what is unused

    def __init__(self) -> None:
        self.cache = AnswerCache(max_entries=512, max_bytes=self.MAX_BYTES, ttl_s=self.KEPT_S)

    def read(self, path: Path, stat: os.stat_result) -> bytes | None:
        """The file's bytes, or None for a file too large to keep (sent from the disk)."""
        if stat.st_size > self.MAX_FILE:
            return None

        def whole() -> bytes:
            body = path.read_bytes()
            if len(body) != stat.st_size:  # written meanwhile: not what the key says
                raise _Changed(body)
            return body

        try:
            return self.cache.get((str(path), stat.st_size, stat.st_mtime_ns), whole)
        except _Changed as changed:  # send it, keep nothing
            return changed.body


class _Changed(Exception):
    """A kept file's read found other bytes than its stat promised."""

    def __init__(self, body: bytes) -> None:
        super().__init__("the file changed while it was read")
        self.body = body


class LessonStaticFiles(StaticFiles):
    """StaticFiles with our MIME table, revalidation on every load but for the bundle, the
    build's .gz of a file to a browser that accepts gzip, and small files sent from memory."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kept = KeptFiles()

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        request = Headers(scope=scope)
        sent, encoding = Path(full_path), None
        packed = sent.with_name(sent.name + ".gz")
        if "gzip" in request.get("accept-encoding", "") and packed.is_file():
            sent, encoding = packed, "gzip"
            stat_result = packed.stat()
        bundled = Path(full_path).parent.name == BUNDLE_DIR
        headers = {"Cache-Control": FOREVER if bundled else REVALIDATE}
        if encoding:  # (an identity answer gets its Vary from the GZipMiddleware)
            headers |= {"Content-Encoding": encoding, "Vary": "Accept-Encoding"}
        response = FileResponse(
            sent,
            status_code=status_code,
            stat_result=stat_result,
            media_type=media_type(full_path),
            headers=headers,
        )
        if self.is_not_modified(response.headers, request):
            return NotModifiedResponse(response.headers)
        body = None if "range" in request else self.kept.read(sent, stat_result)
        if body is None:
            return response
        return Response(body, status_code=status_code, headers=dict(response.headers))
