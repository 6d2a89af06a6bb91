"""HTTP methods told truthfully on every route: HEAD where GET is, OPTIONS, and `Allow` on 405.

FastAPI registers GET and POST of one path as two routes, so Starlette's 405 names only the
first one's methods, and neither answers HEAD. This middleware asks the app's routes which
methods a path takes: a HEAD is served as the GET without its body, an OPTIONS answers 204 with
`Allow`, and every 405 gets an `Allow` listing them all (RFC 9110).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

Message = MutableMapping[str, Any]
_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def allowed_methods(scope: Scope) -> list[str]:
    """The methods some route of the app answers at this path (HEAD with GET, and OPTIONS)."""
    routes = getattr(scope.get("app"), "routes", [])
    found = {
        method
        for method in _METHODS
        for route in routes
        if route.matches({**scope, "method": method})[0] == Match.FULL
    }
    if "GET" in found:
        found.add("HEAD")
    return [m for m in _METHODS if m in found] + (["OPTIONS"] if found else [])


class MethodsMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        # Scanning the routes costs a match per route and method: only OPTIONS, HEAD and a 405
        # need it, so an ordinary GET or POST never pays for it.
        allow = allowed_methods(scope) if method in ("OPTIONS", "HEAD") else None
        if method == "OPTIONS" and allow:
            await _no_content(send, allow)
        elif method == "HEAD" and allow and "GET" in allow:
            await self.app({**scope, "method": "GET"}, receive, _without_body(send))
        else:
            await self.app(scope, receive, _allow_on_405(send, scope))


async def _no_content(send: Send, allow: list[str]) -> None:
    headers = [(b"allow", ", ".join(allow).encode()), (b"content-length", b"0")]
    await send({"type": "http.response.start", "status": 204, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


def _without_body(send: Send) -> Callable[[Message], Awaitable[None]]:
    async def head_send(message: Message) -> None:
        if message["type"] == "http.response.body":
            message = {**message, "body": b""}
        await send(message)

    return head_send


def _allow_on_405(send: Send, scope: Scope) -> Callable[[Message], Awaitable[None]]:
    async def allow_send(message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] == 405:
            allow = allowed_methods(scope)
            headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"allow"]
            headers.append((b"allow", ", ".join(allow).encode()))
            message = {**message, "headers": headers}
        await send(message)

    return allow_send
