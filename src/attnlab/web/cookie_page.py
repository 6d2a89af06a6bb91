"""The answer to a join or teacher link: a token stored in an HttpOnly cookie, and a page that
moves on to one of this server's own paths (never a path taken from the request)."""

from __future__ import annotations

import html

from starlette.responses import HTMLResponse
from starlette.types import Scope


def cookie_page(scope: Scope, *, cookie: str, token: str, target: str, text: str) -> HTMLResponse:
    """`token` kept as `cookie` (HttpOnly, SameSite=Strict, Secure over https), then `target`."""
    where = html.escape(target)
    body = (
        f'<!doctype html><meta http-equiv="refresh" content="0; url={where}">'
        '<link rel="icon" href="data:,">'  # no request for /favicon.ico (a 404)
        f'<title>attnlab</title><p><a href="{where}">{html.escape(text)}</a>.</p>'
    )
    page = HTMLResponse(body, headers={"cache-control": "no-store"})
    page.set_cookie(
        cookie, token, httponly=True, samesite="strict", secure=scope.get("scheme") == "https"
    )
    return page
