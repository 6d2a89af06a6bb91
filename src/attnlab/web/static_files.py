"""The page's own files (`src/attnlab/static`), served with MIME types that do not depend on
the machine.

Python's `mimetypes` reads the system's tables (and, on Windows, the registry, which often maps
.js to text/plain): a browser refuses an ES module served as anything but JavaScript, so the
types the page needs are fixed here.
"""

from __future__ import annotations

import mimetypes
import os
from pathlib import Path

from starlette.datastructures import Headers
from starlette.responses import FileResponse, Response
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import Scope

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


def media_type(path: str | os.PathLike[str]) -> str:
    suffix = Path(path).suffix.lower()
    return MIME_TYPES.get(suffix) or mimetypes.guess_type(str(path))[0] or "text/plain"


def file_response(path: str | os.PathLike[str], *, status_code: int = 200) -> FileResponse:
    # no-cache: the browser revalidates (ETag) on each load, so an edited file shows at once.
    return FileResponse(
        path,
        status_code=status_code,
        media_type=media_type(path),
        headers={"Cache-Control": "no-cache"},
    )


class LessonStaticFiles(StaticFiles):
    """StaticFiles with our MIME table and revalidation on every load."""

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = FileResponse(
            full_path,
            status_code=status_code,
            stat_result=stat_result,
            media_type=media_type(full_path),
            headers={"Cache-Control": "no-cache"},
        )
        if self.is_not_modified(response.headers, Headers(scope=scope)):
            return NotModifiedResponse(response.headers)
        return response
