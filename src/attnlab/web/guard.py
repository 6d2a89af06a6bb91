"""The door: every request and every socket passes here before a route sees it.

A page on any other site can make the reader's browser send requests to this server; the rules
below leave it nothing to gain (see `origin.py` for what "ours" means):

1. Host. Only our own names (loopback, `--allowed-host`, the class address) are answered; any
   other is a DNS-rebinding page reading us under its own name → 400.
2. Join token (`serve --class`, `--proxy`). A client beyond loopback must show the token: the
   join link `/?token=…` (the page's address only) stores it in an HttpOnly, SameSite=Strict
   cookie and moves on to `/`; scripts may send `Authorization: Bearer …`. Loopback needs none
   (as in Jupyter), except behind `--proxy`: there every request arrives from the proxy's
   loopback address and the client's own is only what a header says, which anyone can write,
   so every request needs the token → else 401.
3. Anything but GET/HEAD/OPTIONS (our POSTs). Browsers send Origin with every POST, so a page's
   Origin must be ours, and `Sec-Fetch-Site` must not say another site → else 403. No Origin and
   no Sec-Fetch-Site is not a browser page (curl, a test). The body must be declared
   `application/json`: a cross-site HTML form can only send form or text types (and always says
   which), so even a browser that sent no Origin (old ones did not on a form POST) is refused →
   else 415. A POST with no body and no type at all (every setting at its default) passes.
4. The training socket: a page's Origin must be ours. A refused socket gets the same answer as
   a request (400, 401, 403 with a JSON reason) in place of the handshake, where the server can
   send one (uvicorn can); else it is closed before accept (403).
"""

from __future__ import annotations

import hmac
import ipaddress
from typing import Any
from urllib.parse import parse_qsl, urlencode

from fastapi import FastAPI
from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from attnlab.web.config import WebSettings
from attnlab.web.cookie_page import cookie_page
from attnlab.web.origin import host_allowed, own_page
from attnlab.web.schemas import ERROR_SCHEMA, json_response
from attnlab.web.teacher_gate import teacher_shown

TOKEN_COOKIE = "attnlab_token"
JOIN_PATH = "/"  # the join link is the page's address with ?token=…; nowhere else is it read
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
Refusal = tuple[int, str]
# What the guard may answer instead of a route, for the OpenAPI description (every route / POSTs).
REFUSALS = {400: "a host name this server does not answer to", 401: "no join token shown"}
POST_REFUSALS = {403: "sent by another site's page", 415: "a body not sent as application/json"}


class Guard:
    """ASGI middleware applying the four rules above to `app` under `settings`."""

    def __init__(self, app: ASGIApp, settings: WebSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self.refusal(scope, headers)
        if refusal is None and _join_link(scope):
            await self._join(scope, receive, send)
        elif refusal is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket" and not _can_deny(scope):
            # Closing before accept makes the server answer the handshake with 403.
            await send({"type": "websocket.close", "code": 1008, "reason": refusal[1][:100]})
        else:  # a socket's handshake gets this answer in place of its 101 (ASGI's denial)
            await JSONResponse({"detail": refusal[1]}, refusal[0])(scope, receive, send)

    def refusal(self, scope: Scope, headers: Headers) -> Refusal | None:
        """(status, reason) if this request or socket must be refused, else None."""
        host = headers.get("host")
        if not host_allowed(host, self.settings.allowed_hosts):
            return 400, (
                f"this server does not answer to the host name {host!r}; open it under its own "
                "address (loopback, or one given with --allowed-host)"
            )
        if self._needs_token(scope) and not self._token_shown(scope, headers):
            return 401, "this lesson needs its join token: open the join link the teacher shows"
        unsafe = scope["type"] == "http" and scope["method"] not in SAFE_METHODS
        page_needed = unsafe or scope["type"] == "websocket"
        if page_needed and not self._own_page(scope, headers):
            return 403, "requests from another site's page are refused"
        if unsafe and _declares_body(headers) and _media_type(headers) != "application/json":
            return 415, "send the body as Content-Type: application/json"
        return None

    def _own_page(self, scope: Scope, headers: Headers) -> bool:
        return own_page(scope, headers, self.settings.allowed_hosts)

    def _needs_token(self, scope: Scope) -> bool:
        if self.settings.join_token is None:
            return False
        if self.settings.behind_proxy:  # the peer is the proxy: nothing says who is behind it
            return True
        client = scope.get("client")
        return not (client and _loopback(client[0]))

    def _token_shown(self, scope: Scope, headers: Headers) -> bool:
        cookie = cookie_parser(headers.get("cookie", "")).get(TOKEN_COOKIE, "")
        offered = [cookie, _bearer(headers)]
        if _join_link(scope):
            offered.append(_query(scope).get("token", ""))
        if any(self._matches(given) for given in offered if given):
            return True
        # the teacher's token opens every door a learner's does (and the teacher's, teacher_gate)
        return teacher_shown(scope, headers, self.settings.teacher_token)

    def _matches(self, given: str) -> bool:
        token = self.settings.join_token or ""
        return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))

    async def _join(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The join link: store the token in a cookie, then go on to the page without it.

        A page (not a 303) moves on, so that the next load starts on our own site: browsers hold
        back a SameSite=Strict cookie after a redirect from a link on another site (a chat app).
        """
        query = _query(scope)
        given = query.pop("token", "")
        if not self._matches(given):
            await JSONResponse({"detail": "this join token is not the lesson's"}, 401)(
                scope, receive, send
            )
            return
        # Only ever our own page: the path is JOIN_PATH itself, never one taken from the request
        # (`//evil.example/` would be another site's address).
        target = JOIN_PATH + (f"?{urlencode(query)}" if query else "")
        page = cookie_page(
            scope,
            cookie=TOKEN_COOKIE,
            token=self.settings.join_token or "",
            target=target,
            text="Joined: open the lesson",
        )
        await page(scope, receive, send)


def document_refusals(app: FastAPI) -> None:
    """Add the guard's answers to every operation in the app's OpenAPI description."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            for operations in build()["paths"].values():
                for method, operation in operations.items():
                    _add_refusals(operation, method.upper() not in SAFE_METHODS)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _add_refusals(operation: dict[str, Any], unsafe: bool) -> None:
    for status, why in {**REFUSALS, **(POST_REFUSALS if unsafe else {})}.items():
        refused = json_response(f"Refused: {why}", ERROR_SCHEMA)
        operation.setdefault("responses", {}).setdefault(str(status), refused)


def _join_link(scope: Scope) -> bool:
    """A join link: GET / with ?token=… (an API route's ?token= is its own query, answered
    as JSON)."""
    return (
        scope["type"] == "http"
        and scope["method"] in ("GET", "HEAD")
        and scope.get("path") == JOIN_PATH
        and b"token=" in scope.get("query_string", b"")
        and "token" in _query(scope)
    )


def _query(scope: Scope) -> dict[str, str]:
    pairs = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
    return dict(pairs)


def _bearer(headers: Headers) -> str:
    """The token in `Authorization: Bearer <token>` (scheme case-insensitive, RFC 9110), or ""
    for any other scheme or a bare token."""
    scheme, _, credentials = headers.get("authorization", "").strip().partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" else ""


def _can_deny(scope: Scope) -> bool:
    """Whether the server can answer a socket's handshake with an HTTP response."""
    return "websocket.http.response" in (scope.get("extensions") or {})


def _declares_body(headers: Headers) -> bool:
    """A body, or a declared type: an HTML form always sends its Content-Type, so only a POST
    with neither (`curl -X POST`, a bodiless fetch from our own page) is taken without one."""
    length = headers.get("content-length", "0").strip()
    return "content-type" in headers or "transfer-encoding" in headers or length not in ("", "0")


def _media_type(headers: Headers) -> str:
    return headers.get("content-type", "").split(";")[0].strip().lower()


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False  # not an address (a test client's name, a Unix socket): not loopback
