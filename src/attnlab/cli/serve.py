"""`attnlab serve`: the lesson in your browser, served from this machine only unless told.

The server binds 127.0.0.1 unless told otherwise (`--host`, `--class`), so nothing on the network
can reach it. If the port is taken, the next free one is used and named. The socket is bound
here, before uvicorn starts, so the port we print is the port we hold.

Beyond this machine every request needs the join token (see `attnlab.web.guard`):
- `--class` binds every interface, answers to this machine's own addresses and names, and prints
  the join link (with a QR code) that stores the token in the learner's browser, and the
  teacher link (/teach) with a token of its own, which no learner's token can replace.
- `--proxy` is for N copies behind a reverse proxy on this machine (README: "Past one machine").
  Every request then comes from 127.0.0.1, which alone would pass as loopback, and the
  X-Forwarded-For the proxy adds is text any client can also write: so every request needs the
  token, this machine's too (`WebSettings.behind_proxy`). The proxy's X-Forwarded-For / -Proto
  are still read (from 127.0.0.1 only) for the log's addresses and the cookie's Secure flag.
  The copies share one token through ATTNLAB_TOKEN.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import secrets
import socket
import sys
import webbrowser
from dataclasses import replace
from typing import Any

from attnlab.params import Param, ParamError, coerce

PORT = Param("port", "int", 8000, "port to serve on (0: any free port)", lo=0, hi=65535)
WORKERS = Param("workers", "int", 1, "server processes for the figure routes", lo=1, hi=64)
PORT_TRIES = 20  # how many ports after a busy one we try
WILDCARD_HOSTS = ("0.0.0.0", "::", "")
TOKEN_ENV = "ATTNLAB_TOKEN"  # replicas behind one proxy share the token through this
TEACHER_TOKEN_ENV = "ATTNLAB_TEACHER_TOKEN"  # and the teacher's token through this


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="open the interactive lesson in your browser",
        description="Serve the lesson on this machine and open it in your browser.",
    )
    parser.add_argument("--host", default=None, help="address to bind (default: 127.0.0.1)")
    parser.add_argument("--port", default=str(PORT.default), help=f"{PORT.help} (default: 8000)")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument(
        "--class",
        dest="classroom",
        action="store_true",
        help="serve a class: bind every interface, print the join link, its QR code and token",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the lesson is reached under (e.g. a reverse proxy's); repeatable",
    )
    parser.add_argument(
        "--proxy",
        action="store_true",
        help="behind a reverse proxy on this machine: every request needs the token",
    )
    parser.add_argument("--workers", default="1", help=f"{WORKERS.help} (default: 1)")
    parser.add_argument(
        "--store",
        default=None,
        metavar="redis://HOST:PORT",
        help="keep the class (seats, the teacher's view) in this Redis, shared by every copy "
        "behind a proxy (default: in this process's memory)",
    )
    parser.add_argument(
        "--access-log",
        action="store_true",
        help="log one line per request (off: only events, e.g. start, capacity, errors)",
    )
    parser.set_defaults(run=run)


def bind(host: str, port: int, *, tries: int = PORT_TRIES, backlog: int = 128) -> socket.socket:
    """A listening socket on `host`, at `port` or the first free port after it."""
    last = port if port == 0 else min(port + tries - 1, 65535)
    for candidate in range(port, last + 1):
        try:
            return _listen(host, candidate, backlog)
        except OSError as err:
            if not _in_use(err):
                raise ParamError(
                    "host", f"cannot serve on {host}:{candidate}: {err.strerror}"
                ) from None
    raise ParamError("port", f"ports {port}–{last} are all in use; choose another with --port")


def _listen(host: str, port: int, backlog: int) -> socket.socket:
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as err:
        raise ParamError("host", f"unknown address {host!r} ({err.strerror})") from None
    sock = socket.socket(family, kind, proto)
    try:
        if os.name == "posix":  # elsewhere SO_REUSEADDR would let two servers share a port
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    return sock


def _in_use(err: OSError) -> bool:
    return err.errno == errno.EADDRINUSE or getattr(err, "winerror", 0) == 10048  # WSAEADDRINUSE


def url_for(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in WILDCARD_HOSTS else host
    return f"http://[{shown}]:{port}/" if ":" in shown else f"http://{shown}:{port}/"


def machine_addresses() -> list[str]:
    """This machine's own IPv4 addresses and names (what a learner may type), LAN route first."""
    found: list[str] = []
    # No route out (no network) leaves the names below. connect() on a UDP socket sends
    # nothing: it only asks which local address would route toward a (reserved) outside one.
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))
        found.append(probe.getsockname()[0])
    name = socket.gethostname()
    with contextlib.suppress(OSError):
        found += [info[4][0] for info in socket.getaddrinfo(name, None, socket.AF_INET)]
    found += [name, f"{name}.local"]
    return [a for i, a in enumerate(found) if a not in found[:i] and not a.startswith("127.")]


def bind_address(args: argparse.Namespace) -> str:
    """Where to listen: `--host`, else every interface for a class, else loopback."""
    return args.host or ("0.0.0.0" if args.classroom else "127.0.0.1")


def serve_settings(args: argparse.Namespace, workers: int) -> Any:
    """The WebSettings these options ask for: host names, token, processes."""
    from attnlab.web import WebSettings

    hosts = list(args.allowed_host)
    if bind_address(args) not in WILDCARD_HOSTS:
        hosts.append(bind_address(args))  # a bound address the reader chose is a name we answer to
    if args.classroom:
        hosts += machine_addresses()
    token = teacher = None
    if args.classroom or args.proxy:
        token = os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(24)
        teacher = os.environ.get(TEACHER_TOKEN_ENV) or secrets.token_urlsafe(24)
        if teacher == token:
            raise ParamError("teacher", f"{TEACHER_TOKEN_ENV} must differ from {TOKEN_ENV}")
    hosts = [h for i, h in enumerate(hosts) if h not in hosts[:i]]
    if args.store and not args.store.startswith(("redis://", "rediss://")):
        raise ParamError("store", "expected redis://HOST:PORT (Debian's redis-server)")
    chosen = {"join_token": token, "teacher_token": teacher, "server_processes": workers,
              "access_log": args.access_log, "class_store": args.store,
              "behind_proxy": args.proxy}  # fmt: skip
    return replace(WebSettings(), allowed_hosts=tuple(hosts), **chosen)


def print_join(settings: Any, port: int, *, classroom: bool) -> None:
    """The join link for learners beyond this machine; in class mode with its QR code when
    stdout is a terminal (drawn in a log, the code is dozens of lines of block characters)."""
    import segno

    token, teacher = settings.join_token, settings.teacher_token
    if not classroom:  # behind a proxy: only the proxy knows the address learners use
        print(f"attnlab: learners join at <the proxy's address>/?token={token}", flush=True)
        print(f"attnlab: the teacher's view at <the proxy's address>/teach?teacher={teacher}")
        return
    lan = [h for h in settings.allowed_hosts if h[0].isdigit()] or list(settings.allowed_hosts)
    base = url_for(lan[0] if lan else "127.0.0.1", port)
    # first, and never as a code: a learner could scan it off the projector
    print(f"attnlab: the teacher's view (keep it to yourself) at {base}teach?teacher={teacher}")
    link = f"{base}?token={token}"
    print(f"attnlab: learners join at {link}", flush=True)
    if sys.stdout.isatty():  # a service's log (journald) gets the link, not a picture of it
        segno.make(link, error="m").terminal(out=sys.stdout, compact=True)
    print(f"attnlab: join token {token} (this machine itself needs none)", flush=True)


def forwarded_options(proxy: bool) -> dict[str, Any]:
    """uvicorn's options for X-Forwarded-For / -Proto: read behind `--proxy`, from this machine
    only. They name the client in the log and the scheme; the guard asks every request behind
    a proxy for the token whatever they say."""
    return {"proxy_headers": proxy, "forwarded_allow_ips": "127.0.0.1,::1"}


def run(args: argparse.Namespace) -> int:
    from attnlab.logs import log_thread_exceptions
    from attnlab.web.serving import serve_lesson, serve_processes

    log_thread_exceptions()  # a thread's traceback is one log line, not many
    wanted = coerce(PORT, args.port)
    workers = coerce(WORKERS, args.workers)
    settings = serve_settings(args, workers)
    sock = bind(bind_address(args), wanted, backlog=settings.backlog)
    port = sock.getsockname()[1]
    if wanted not in (0, port):
        print(f"attnlab serve: port {wanted} is in use; serving on {port} instead")
    url = url_for(bind_address(args), port)
    print(f"attnlab: the lesson is at {url}  (Ctrl+C to stop)", flush=True)
    if settings.join_token:
        print_join(settings, port, classroom=args.classroom)
    _allow_open_files(settings.max_connections + 256)
    forwarded = forwarded_options(args.proxy)
    if not args.no_browser:
        webbrowser.open(url)  # the socket already listens: the browser's request waits for us
    if workers == 1:  # this process serves: nothing between the shell and the server
        return serve_lesson(settings, sock, **forwarded)
    return serve_processes(settings, sock, workers, **forwarded)


def _allow_open_files(wanted: int) -> None:
    """Raise this process's open-file limit toward `wanted` (each connection holds one)."""
    try:
        import resource
    except ImportError:  # not on this system (Windows)
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
