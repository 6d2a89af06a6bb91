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
from attnlab.trainpool import pool as pool_module

pytestmark = pytest.mark.server  # starts a server process: not in `make check`


@pytest.fixture(autouse=True)
def _own_shared_pools(monkeypatch) -> None:
    """`serve` run in this process stops the shared training pools as it ends: this test's own,
    not those of servers other tests run in this process (pytest-xdist mixes their files)."""
    monkeypatch.setattr(pool_module, "_POOLS", {})


def _taken_port() -> socket.socket:
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    return holder


def test_defaults_bind_loopback_and_open_a_browser() -> None:
    args = build_parser().parse_args(["serve"])
    assert (serve_cli.bind_address(args), args.port, args.no_browser) == ("127.0.0.1", "8000", 0)
    args = build_parser().parse_args(["serve", "--host", "::1", "--port", "9000", "--no-browser"])
    assert (serve_cli.bind_address(args), args.port, args.no_browser) == ("::1", "9000", 1)
    settings = serve_cli.serve_settings(build_parser().parse_args(["serve"]), 1)
    assert settings.join_token is None and settings.allowed_hosts == ("127.0.0.1",)


def test_a_wildcard_bind_answers_only_the_hosts_named() -> None:
    argv = ["serve", "--host", "0.0.0.0", "--allowed-host", "lab.example"]
    args = build_parser().parse_args(argv)
    settings = serve_cli.serve_settings(args, 1)
    assert settings.allowed_hosts == ("lab.example",)  # no "*": loopback and lab.example only
    assert settings.join_token is None


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
        (["serve", "--workers", "0", "--no-browser"], "workers: 0 is out of range"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(capsys, argv, words) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_run_says_where_it_serves_and_opens_the_browser(capsys, monkeypatch) -> None:
    import uvicorn

    served, opened = [], []

    def run(self, sockets):
        served.extend(sockets)
        self.started = True

    monkeypatch.setattr(uvicorn.Server, "run", run)
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


@pytest.fixture
def captured(monkeypatch) -> dict:
    """`serve` runs up to uvicorn (or the supervisor), replaced by a recorder of what it got."""
    import uvicorn

    from attnlab.web.serving import Supervisor

    seen: dict = {}

    def server_run(self, sockets):
        seen.update(config=self.config, sockets=sockets, server=self)
        self.started = True

    def supervise(self):
        seen.update(settings=self.settings, sockets=[self.sock], processes=self.n)
        return 0

    monkeypatch.setattr(uvicorn.Server, "run", server_run)
    monkeypatch.setattr(Supervisor, "run", supervise)
    yield seen
    for sock in seen.get("sockets", []):
        sock.close()


def test_the_server_runs_with_the_apps_own_limits(captured) -> None:
    from attnlab.web import WebSettings
    from attnlab.web.server import BoundedHttpTools

    assert main(["serve", "--port", "0", "--no-browser"]) == 0
    config, limits = captured["config"], WebSettings()
    assert config.ws_max_size == limits.max_message_bytes == 16 * 1024  # one limit, in bytes
    assert config.http is BoundedHttpTools  # httptools, with the head's size limit counted
    assert config.max_header_bytes == limits.max_header_bytes
    assert (config.limit_concurrency, config.backlog) == (limits.max_connections, limits.backlog)
    assert config.timeout_keep_alive == limits.keep_alive_s
    assert config.header_timeout_s == limits.header_timeout_s
    assert config.proxy_headers is False  # without --proxy no X-Forwarded-For is believed


def test_class_mode_prints_the_join_link_with_a_qr_code_and_token(
    captured, capsys, monkeypatch
) -> None:
    import segno

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # a teacher's terminal
    assert main(["serve", "--class", "--port", "0", "--no-browser"]) == 0
    (sock,) = captured["sockets"]
    assert sock.getsockname()[0] == "0.0.0.0"  # every interface
    limits = captured["config"].app.state.limits
    token = limits.join_token
    assert token and len(token) >= 32  # secrets.token_urlsafe(24)
    out = capsys.readouterr().out
    (link,) = [w for w in out.split() if "?token=" in w]
    assert link.endswith(f"/?token={token}") and f"join token {token}" in out
    host = link.split("//")[1].split(":")[0]
    assert host in limits.allowed_hosts  # the join address is a name the guard answers to
    qr = segno.make(link, error="m")
    drawn = [line for line in out.splitlines() if "▀" in line or "▄" in line or "█" in line]
    assert len(drawn) >= (qr.symbol_size()[1] + 1) // 2 - 4  # the code, two rows per line


def test_without_a_terminal_the_join_link_comes_without_its_qr_code(captured, capsys) -> None:
    assert not sys.stdout.isatty()  # captured, as a service's output is by journald
    assert main(["serve", "--class", "--port", "0", "--no-browser"]) == 0
    token = captured["config"].app.state.limits.join_token
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if token in line] == lines[-2:]  # the link, then the token
    assert not any(block in line for line in lines for block in "▀▄█")


def test_class_mode_prints_a_teacher_link_with_a_token_of_its_own(captured, capsys) -> None:
    assert main(["serve", "--class", "--port", "0", "--no-browser"]) == 0
    limits = captured["config"].app.state.limits
    teacher = limits.teacher_token
    assert teacher and len(teacher) >= 32 and teacher != limits.join_token
    out = capsys.readouterr().out
    (link,) = [w for w in out.split() if "?teacher=" in w]
    assert link.endswith(f"/teach?teacher={teacher}")
    assert limits.join_token not in link and teacher not in out.replace(link, "")


def test_the_teacher_s_token_may_not_be_the_join_token(captured, monkeypatch, capsys) -> None:
    monkeypatch.setenv("ATTNLAB_TOKEN", "the-same")
    monkeypatch.setenv("ATTNLAB_TEACHER_TOKEN", "the-same")
    assert main(["serve", "--class", "--port", "0", "--no-browser"]) != 0
    assert "ATTNLAB_TEACHER_TOKEN must differ" in capsys.readouterr().err


def test_store_takes_a_redis_url_only(captured, capsys) -> None:
    argv = ["serve", "--class", "--port", "0", "--no-browser", "--store"]
    assert main([*argv, "redis://10.0.0.2:6379"]) == 0
    assert captured["config"].app.state.limits.class_store == "redis://10.0.0.2:6379"
    for sock in captured.pop("sockets"):
        sock.close()
    assert main([*argv, "http://10.0.0.2:6379"]) != 0
    assert "expected redis://HOST:PORT" in capsys.readouterr().err


def test_the_access_log_is_off_unless_asked_for(captured) -> None:
    assert main(["serve", "--port", "0", "--no-browser"]) == 0
    assert captured["config"].access_log is False
    for sock in captured.pop("sockets"):
        sock.close()
    assert main(["serve", "--port", "0", "--no-browser", "--access-log"]) == 0
    assert captured["config"].access_log is True


def test_proxy_mode_trusts_the_local_proxy_and_shares_the_token(captured, capsys) -> None:
    serve_cli.os.environ["ATTNLAB_TOKEN"] = "shared-by-every-replica"
    argv = ["serve", "--proxy", "--allowed-host", "lab.example", "--port", "0", "--no-browser"]
    assert main(argv) == 0
    config = captured["config"]
    assert config.proxy_headers is True and config.forwarded_allow_ips == "127.0.0.1,::1"
    limits = config.app.state.limits
    assert limits.join_token == "shared-by-every-replica"
    assert limits.behind_proxy is True  # no request passes as this machine's: all need the token
    assert limits.allowed_hosts == ("lab.example", "127.0.0.1")
    assert "?token=shared-by-every-replica" in capsys.readouterr().out


def test_workers_run_n_supervised_processes_with_the_same_settings(captured) -> None:
    import pickle

    argv = ["serve", "--workers", "3", "--allowed-host", "lab.example", "--port", "0"]
    assert main([*argv, "--no-browser"]) == 0
    assert captured["processes"] == 3
    limits = pickle.loads(pickle.dumps(captured["settings"]))  # as each process receives them
    assert limits == captured["settings"] and limits.server_processes == 3
    assert limits.allowed_hosts == ("lab.example", "127.0.0.1")
    assert limits.join_token is None


def test_one_process_serves_with_a_server_that_stops_its_tree(captured) -> None:
    from attnlab.web.server import LessonServer

    assert main(["serve", "--port", "0", "--no-browser"]) == 0
    server = captured["server"]
    assert isinstance(server, LessonServer) and server.going_away is not None
    assert (
        server.config.timeout_graceful_shutdown
        == captured["config"].app.state.limits.shutdown_grace_s
    )


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
