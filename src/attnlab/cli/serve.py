"""`attnlab serve`: the lesson in your browser, served from this machine only.

The server binds 127.0.0.1 unless told otherwise (`--host`), so nothing on the network can reach
it. If the port is taken, the next free one is used and named. The socket is bound here, before
uvicorn starts, so the port we print is the port we hold (no gap for another program to take it).
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import webbrowser
from typing import Any

from attnlab.params import Param, ParamError, coerce

PORT = Param("port", "int", 8000, "port to serve on (0: any free port)", lo=0, hi=65535)
PORT_TRIES = 20  # how many ports after a busy one we try
WILDCARD_HOSTS = ("0.0.0.0", "::", "")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="open the interactive lesson in your browser",
        description="Serve the lesson on this machine and open it in your browser.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    parser.add_argument("--port", default=str(PORT.default), help=f"{PORT.help} (default: 8000)")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.set_defaults(run=run)


def bind(host: str, port: int, *, tries: int = PORT_TRIES) -> socket.socket:
    """A listening socket on `host`, at `port` or the first free port after it."""
    last = port if port == 0 else min(port + tries - 1, 65535)
    for candidate in range(port, last + 1):
        try:
            return _listen(host, candidate)
        except OSError as err:
            if not _in_use(err):
                raise ParamError(
                    "host", f"cannot serve on {host}:{candidate}: {err.strerror}"
                ) from None
    raise ParamError("port", f"ports {port}–{last} are all in use; choose another with --port")


def _listen(host: str, port: int) -> socket.socket:
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as err:
        raise ParamError("host", f"unknown address {host!r} ({err.strerror})") from None
    sock = socket.socket(family, kind, proto)
    try:
        if os.name == "posix":  # elsewhere SO_REUSEADDR would let two servers share a port
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def _in_use(err: OSError) -> bool:
    return err.errno == errno.EADDRINUSE or getattr(err, "winerror", 0) == 10048  # WSAEADDRINUSE


def url_for(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in WILDCARD_HOSTS else host
    return f"http://[{shown}]:{port}/" if ":" in shown else f"http://{shown}:{port}/"


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from attnlab.web import WebSettings, create_app

    wanted = coerce(PORT, args.port)
    sock = bind(args.host, wanted)
    port = sock.getsockname()[1]
    if wanted not in (0, port):
        print(f"attnlab serve: port {wanted} is in use; serving on {port} instead")
    url = url_for(args.host, port)
    print(f"attnlab: the lesson is at {url}  (Ctrl+C to stop)", flush=True)
    # A host the reader chose is one the page may be loaded from (the socket's Origin check).
    exposed = ("*",) if args.host in WILDCARD_HOSTS else (args.host,)
    app = create_app(WebSettings(allowed_hosts=exposed))
    # A socket message larger than this closes the socket (the page's are < 1 kB).
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws_max_size=1 << 20))
    if not args.no_browser:
        webbrowser.open(url)  # the socket already listens: the browser's request waits for us
    server.run(sockets=[sock])
    return 0
