"""What "our own" means: the host names we serve under and the pages that may use us.

A browser lets any web page send requests to 127.0.0.1; it only tells the server which name it
used (the Host header) and, for a POST or a WebSocket, which page sent it (the Origin header).
A foreign site can point its own name at 127.0.0.1 (DNS rebinding), so a name is ours only if it
is a loopback name or one the person serving chose (`--allowed-host`, the class address).
A page is ours if its origin is a loopback name on our port, or exactly the Host it asked for
when that host is ours. No Origin at all means no browser page sent it (a script, a test).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import SplitResult, urlsplit

from starlette.datastructures import Headers
from starlette.types import Scope

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
_DEFAULT_PORT = {"http": 80, "https": 443, "ws": 80, "wss": 443}
# A Host header is a name or an [IPv6] literal and an optional port, nothing else ("a@b" is not).
_HOST_HEADER = re.compile(r"([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?")


def host_allowed(host_header: str | None, allowed_hosts: Iterable[str] = ()) -> bool:
    """True if `Host: host_header` (any port) names this server: loopback or an allowed host."""
    if not host_header or not _HOST_HEADER.fullmatch(host_header):
        return False
    host = _endpoint(f"http://{host_header}")
    return host is not None and host[1] in _trusted(allowed_hosts)


def origin_allowed(
    origin: str | None,
    *,
    host_header: str | None,
    server_port: int | None,
    allowed_hosts: Iterable[str] = (),
) -> bool:
    """True if a page from `origin` may use this server (POST, the training socket)."""
    if origin is None:
        return True
    page = _endpoint(origin)
    if page is None or page[0] not in ("http", "https"):
        return False  # includes the literal "null" of sandboxed frames and file:// pages
    _, page_host, page_port = page
    if page_host in LOOPBACK and page_port == server_port:
        return True
    host = _endpoint(f"{page[0]}://{host_header}") if host_header else None
    return (
        host is not None
        and (host[1], host[2]) == (page_host, page_port)
        and page_host in _trusted(allowed_hosts)
    )


def _trusted(allowed_hosts: Iterable[str]) -> frozenset[str]:
    return LOOPBACK | {h.lower().strip("[]") for h in allowed_hosts}


def _endpoint(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of a URL, or None if it is not one."""
    try:
        parts: SplitResult = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if not parts.hostname or scheme not in _DEFAULT_PORT:
        return None
    return scheme, parts.hostname.lower(), port or _DEFAULT_PORT[scheme]


def own_page(
    scope: Scope, headers: Headers, allowed_hosts: tuple[str, ...], *, followed_link: bool = False
) -> bool:
    """Whether the request comes from the lesson's own page (or from no page at all): no
    cross-site fetch metadata (unless it is a link the reader followed, from wherever), and an
    Origin, if any, of a host name this server answers to."""
    cross_site = headers.get("sec-fetch-site") in ("cross-site", "same-site")
    if cross_site and not followed_link:
        return False
    server = scope.get("server") or (None, None)
    return origin_allowed(
        headers.get("origin"),
        host_header=headers.get("host"),
        server_port=server[1],
        allowed_hosts=allowed_hosts,
    )
