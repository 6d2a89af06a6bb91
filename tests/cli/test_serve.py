"""`attnlab serve`: loopback by default, a free port named when ours is taken, one-line errors."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import httpx
import pytest

from attnlab.cli import build_parser, main
from attnlab.cli import serve as serve_cli
from attnlab.params import ParamError


def _taken_port() -> socket.socket:
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    return holder


def test_defaults_bind_loopback_and_open_a_browser() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.no_browser) == ("127.0.0.1", "8000", False)
    args = build_parser().parse_args(["serve", "--host", "::1", "--port", "9000", "--no-browser"])
    assert (args.host, args.port, args.no_browser) == ("::1", "9000", True)


def test_a_taken_port_moves_to_the_next_free_one() -> None:
    holder = _taken_port()
    port = holder.getsockname()[1]
    try:
        sock = serve_cli.bind("127.0.0.1", port)
        got = sock.getsockname()[1]
        sock.close()
        assert port < got < port + serve_cli.PORT_TRIES
        with pytest.raises(ParamError) as err:
            serve_cli.bind("127.0.0.1", port, tries=1)
        assert err.value.name == "port" and str(port) in err.value.message
    finally:
        holder.close()


def test_port_zero_takes_any_free_port() -> None:
    sock = serve_cli.bind("127.0.0.1", 0)
    assert sock.getsockname()[1] > 0
    sock.close()


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["serve", "--port", "70000"], "port: 70000 is out of range"),
        (["serve", "--port", "eighty"], "port:"),
        (["serve", "--host", "no-such-host.invalid", "--no-browser"], "host:"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(capsys, argv, words) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_run_says_where_it_serves_and_opens_the_browser(capsys, monkeypatch) -> None:
    import uvicorn

    served, opened = [], []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: served.extend(sockets))
    monkeypatch.setattr(serve_cli.webbrowser, "open", opened.append)
    holder = _taken_port()
    port = holder.getsockname()[1]
    try:
        assert main(["serve", "--port", str(port)]) == 0
    finally:
        holder.close()
    (sock,) = served
    new_port = sock.getsockname()[1]
    sock.close()
    out = capsys.readouterr().out
    assert f"port {port} is in use; serving on {new_port} instead" in out
    assert opened == [f"http://127.0.0.1:{new_port}/"]
    assert sock.family == socket.AF_INET


def test_urls_for_hosts() -> None:
    assert serve_cli.url_for("0.0.0.0", 80) == "http://127.0.0.1:80/"
    assert serve_cli.url_for("::1", 8000) == "http://[::1]:8000/"
    assert serve_cli.url_for("localhost", 8000) == "http://localhost:8000/"


def test_a_real_server_answers_once(tmp_path) -> None:
    """The whole path: a process, a bound loopback port, the page at /."""
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    port = holder.getsockname()[1]
    holder.close()
    cmd = [sys.executable, "-m", "attnlab", "serve", "--no-browser", "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        page = None
        end = time.monotonic() + 20
        while page is None and time.monotonic() < end and proc.poll() is None:
            try:
                page = httpx.get(f"http://127.0.0.1:{port}/", timeout=1.0)
            except httpx.TransportError:
                time.sleep(0.1)
        assert page is not None, proc.stderr.read() if proc.poll() is not None else "no answer"
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        _socket_checks(port)
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert f"http://127.0.0.1:{port}/" in out


def _socket_checks(port: int) -> None:
    """Through uvicorn: the page's own origin trains, a foreign one is refused at the handshake."""
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    url = f"ws://127.0.0.1:{port}/ws/train"
    with connect(url, origin=f"http://localhost:{port}") as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
    with pytest.raises(InvalidStatus) as refused, connect(url, origin="http://evil.example"):
        pass
    assert refused.value.response.status_code == 403
