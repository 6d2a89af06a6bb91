"""The teacher's door: /teach, /api/teach/… and /ws/teach open to the teacher's token only.

The guard (`guard.py`) has already checked the host name, the join token beyond loopback and,
for a POST or a socket, the page's Origin. A learner passes all of that, so the teacher's
routes need more, from every address, this machine's too (the learners of a test, or of a
lesson served from the teacher's laptop, sit on loopback):
- the teacher's token (`WebSettings.teacher_token`, never the learners'): the HttpOnly,
  SameSite=Strict cookie the teacher link leaves, or `Authorization: Bearer <token>`;
- no page of another site, for any method: an Origin that is not ours, or a fetch that says it
  comes from another site, is refused even for a GET (the teacher's view is private). A link
  followed from another site (a chat app) may open the teacher link itself: its answer only
  stores the cookie and moves on, as the join link does.
Without a teacher token (not `--class`), the teacher's routes do not exist (404).
"""

from __future__ import annotations

import hmac
from urllib.parse import parse_qsl

from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.responses import HTMLResponse, JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from attnlab.web.config import WebSettings
from attnlab.web.cookie_page import cookie_page
from attnlab.web.origin import own_page

TEACHER_COOKIE = "attnlab_teacher"
TEACHER_QUERY = "teacher"  # the teacher link: /teach?teacher=<token>
TEACHER_PAGE = "/teach"
_PREFIXES = (TEACHER_PAGE, "/api/teach", "/ws/teach")


def teacher_path(path: str) -> bool:
    """True for the teacher's page, its API and its socket."""
    return any(path == p or path.startswith(f"{p}/") for p in _PREFIXES)


def teacher_shown(scope: Scope, headers: Headers, token: str | None) -> bool:
    """True if this request shows the teacher's token (cookie, bearer, or the teacher link)."""
    if not token:
        return False
    cookie = cookie_parser(headers.get("cookie", "")).get(TEACHER_COOKIE, "")
    bearer = headers.get("authorization", "").removeprefix("Bearer ").strip()
    offered = [cookie, bearer, _link_token(scope) or ""]
    return any(_same(given, token) for given in offered if given)


def _same(given: str, token: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


def _link_token(scope: Scope) -> str | None:
    """The token of a teacher link (GET /teach?teacher=…), else None."""
    if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
        return None
    if scope["path"] != TEACHER_PAGE or b"teacher=" not in scope.get("query_string", b""):
        return None
    query = dict(parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True))
    return query.get(TEACHER_QUERY)


class TeacherGate:
    """ASGI middleware (inside the guard): the teacher's routes need the teacher's token."""

    def __init__(self, app: ASGIApp, settings: WebSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not teacher_path(scope["path"]):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self.refusal(scope, headers)
        if refusal is not None and scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": refusal[1][:100]})
        elif refusal is not None:
            await JSONResponse({"detail": refusal[1]}, refusal[0])(scope, receive, send)
        elif _link_token(scope) is not None:
            await self._store_cookie(scope)(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def refusal(self, scope: Scope, headers: Headers) -> tuple[int, str] | None:
        token = self.settings.teacher_token
        if token is None:
            return 404, "no teacher's view: the lesson was not started with --class"
        if not self._own_page(scope, headers):
            return 403, "the teacher's view is not open to another site's page"
        if not teacher_shown(scope, headers, token):
            return 401, "the teacher's view needs the teacher's token: open the teacher link"
        return None

    def _own_page(self, scope: Scope, headers: Headers) -> bool:
        followed_link = scope["type"] == "http" and headers.get("sec-fetch-mode") == "navigate"
        teacher_link = followed_link and bool(_link_token(scope))  # opened from anywhere
        return own_page(scope, headers, self.settings.allowed_hosts, followed_link=teacher_link)

    def _store_cookie(self, scope: Scope) -> HTMLResponse:
        """The teacher link's answer: the cookie, and a page that moves on to /teach."""
        return cookie_page(
            scope,
            cookie=TEACHER_COOKIE,
            token=self.settings.teacher_token or "",
            target=TEACHER_PAGE,
            text="Open the teacher's view",
        )
