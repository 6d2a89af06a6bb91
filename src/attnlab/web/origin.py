"""Who may open the training socket: the lesson's own page, nobody else.

Browsers let any web page open a WebSocket to 127.0.0.1; they only tell the server where the page
came from (the Origin header). So the socket accepts a connection with no Origin (a script, a
test) or with our own: http://127.0.0.1:PORT, http://localhost:PORT, or the Host header's host —
the last only when that host is one we serve under, because a foreign site can point its own
name at 127.0.0.1 (DNS rebinding) and would then send a matching Origin and Host.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import SplitResult, urlsplit

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
_DEFAULT_PORT = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def origin_allowed(
    origin: str | None,
    *,
    host_header: str | None,
    server_port: int | None,
    allowed_hosts: Iterable[str] = (),
) -> bool:
    """True if a page from `origin` may use this server's socket."""
    if origin is None:
        return True
    page = _endpoint(origin)
    if page is None or page[0] not in ("http", "https"):
        return False  # includes the literal "null" of sandboxed frames and file:// pages
    _, page_host, page_port = page
    if page_host in LOOPBACK and page_port == server_port:
        return True
    host = _endpoint(f"{page[0]}://{host_header}") if host_header else None
    trusted = {h.lower() for h in allowed_hosts} | LOOPBACK
    return (
        host is not None
        and (host[1], host[2]) == (page_host, page_port)
        and (page_host in trusted or "*" in trusted)
    )


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
