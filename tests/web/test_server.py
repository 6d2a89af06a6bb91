"""The transport limits, through a real uvicorn on a free 127.0.0.1 port (as `attnlab serve`)."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from attnlab.cli.serve import forwarded_options
from attnlab.web import WebSettings, create_app
from attnlab.web.server import server_config

HEAD_TIMEOUT_S = 0.5
TOKEN = "proxy-token-0123456789"
# What a client behind the proxy may write as its address (absent: None), to pass as this machine.
FORGED = ["127.0.0.1", "::1", "[::1]:80", "127.0.0.2", "127.1.2.3:9", "", ",", None]


@contextlib.contextmanager
def _serving(settings: WebSettings, **options: Any) -> Iterator[int]:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(settings.backlog)
    server = uvicorn.Server(server_config(create_app(settings), settings, **options))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started, "the server did not start"
    try:
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with _serving(WebSettings(header_timeout_s=HEAD_TIMEOUT_S)) as bound:
        yield bound


def _connect(port: int) -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", port), timeout=5)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn


def _answer(conn: socket.socket) -> bytes:
    """Everything the server says until it closes (or 5 s of silence)."""
    return _answer_and_close(conn)[0]


def _answer_and_close(conn: socket.socket) -> tuple[bytes, bool]:
    """What the server says, and whether it closed the connection (False: 5 s of silence)."""
    got = b""
    try:
        while chunk := conn.recv(65536):
            got += chunk
    except TimeoutError:
        return got, False
    except ConnectionResetError:
        pass
    return got, True


def test_an_oversized_header_is_refused_before_it_is_read(port) -> None:
    limit = WebSettings().max_header_bytes
    conn = _connect(port)
    sent = 0
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        conn.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
        while sent < 64 * 1024 * 1024:  # the server must stop us long before 64 MiB
            conn.sendall(b"a" * 65536)
            sent += 65536
    assert _answer(conn).startswith(b"HTTP/1.1 400")
    assert sent < 64 * 1024 * 1024 and limit < 64 * 1024
    conn.close()


def test_a_head_within_the_limit_is_answered(port) -> None:
    limit = WebSettings().max_header_bytes
    head = b"GET /api/figures HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: "
    for extra, status in ((0, b"HTTP/1.1 200 OK"), (1, b"HTTP/1.1 400 Bad Request")):
        conn = _connect(port)
        pad = b"a" * (limit - len(head) - 4 + extra)
        conn.sendall(head + pad + b"\r\n\r\n")  # exactly the limit, and one byte more
        assert _first_line(conn) == status
        conn.close()


def test_a_body_arriving_with_its_head_does_not_count_as_head(port) -> None:
    """A small head and a body near the body limit in one write: the head is what is limited."""
    body = b'{"p": 21' + b" " * (WebSettings().max_body_bytes - 100) + b"}"
    head = (
        b"POST /api/figures/position HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
    )
    assert len(head + body) > WebSettings().max_header_bytes
    conn = _connect(port)
    conn.sendall(head + body)
    assert _first_line(conn) == b"HTTP/1.1 200 OK"
    conn.close()


def _first_line(conn: socket.socket) -> bytes:
    got = b""
    while b"\r\n" not in got:
        chunk = conn.recv(65536)
        if not chunk:
            break
        got += chunk
    return got.split(b"\r\n", 1)[0]


def test_half_sent_requests_are_closed_at_the_head_deadline(port) -> None:
    conns = [_connect(port) for _ in range(20)]
    start = time.monotonic()
    for i, conn in enumerate(conns):  # silent, half a request line, half the headers
        conn.sendall([b"", b"GET / HT", b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"][i % 3])
    answers = [_answer_and_close(conn) for conn in conns]
    waited = time.monotonic() - start
    assert answers == [(b"", True)] * 20  # closed by the server without an answer, not silent
    assert waited >= HEAD_TIMEOUT_S  # not before the deadline (typical: 0.5–0.6 s in all)
    for conn in conns:
        conn.close()


def test_a_dripped_head_gets_no_more_time_than_a_whole_one(port) -> None:
    # A drip of ≥ 20 s (400 bytes, 50 ms apart), each byte well within the deadline of the last:
    # the server closes it at the head deadline (typical: after 11 bytes, 0.55 s), far before its
    # end, had each byte restarted the clock the drip would end and be answered
    head = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 360
    conn, sent = _connect(port), 0
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        for byte in head:
            conn.sendall(bytes([byte]))
            sent += 1
            time.sleep(0.05)
    assert sent < len(head)  # each byte did not restart the clock
    conn.close()


def test_a_whole_request_is_answered_and_kept_alive(port) -> None:
    conn = _connect(port)
    for _ in range(2):
        conn.sendall(b"GET /api/figures HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        time.sleep(HEAD_TIMEOUT_S * 1.5)  # longer than the head deadline: it was met, and ended
        assert conn.recv(65536).startswith(b"HTTP/1.1 200")
    conn.close()


def test_a_socket_with_a_foreign_host_is_refused_at_the_handshake(port) -> None:
    conn = _connect(port)
    conn.sendall(
        b"GET /ws/train HTTP/1.1\r\nHost: evil.example\r\nUpgrade: websocket\r\n"
        b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        b"Sec-WebSocket-Version: 13\r\n\r\n"
    )
    assert conn.recv(65536).startswith(b"HTTP/1.1 400")  # as a request with that Host gets
    conn.close()


def test_behind_a_proxy_no_forwarded_address_passes_as_this_machine() -> None:
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    settings = WebSettings(join_token=TOKEN, behind_proxy=True, allowed_hosts=("lab.example",))
    with _serving(settings, **forwarded_options(True)) as port:
        for forged in FORGED:
            said = {"host": "lab.example"} | ({} if forged is None else {"x-forwarded-for": forged})
            answer = httpx.get(f"http://127.0.0.1:{port}/api/figures", headers=said)
            assert answer.status_code == 401, forged
            forwarded = {k: v for k, v in said.items() if k != "host"}  # the client sends its own
            with pytest.raises(InvalidStatus) as refused:
                connect(f"ws://127.0.0.1:{port}/ws/train", additional_headers=forwarded)
            assert refused.value.response.status_code == 401, forged
        joined = {"host": "lab.example", "authorization": f"Bearer {TOKEN}"}
        assert httpx.get(f"http://127.0.0.1:{port}/api/figures", headers=joined).status_code == 200
        bearer = {"authorization": joined["authorization"]}
        with connect(f"ws://127.0.0.1:{port}/ws/train", additional_headers=bearer) as ws:
            assert json.loads(ws.recv(timeout=30))["type"] == "state"


def test_the_socket_transport_refuses_a_message_over_the_apps_limit(port) -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    limit = WebSettings().max_message_bytes
    # "é" is 2 bytes: a message of limit/2 + 1 characters is over the limit in bytes.
    over = json.dumps({"type": "step", "n": 1, "pad": "é" * (limit // 2)}, ensure_ascii=False)
    assert len(over) < limit < len(over.encode())
    with connect(f"ws://127.0.0.1:{port}/ws/train") as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
        ws.send(json.dumps({"type": "step", "n": 1, "pad": " " * (limit - 100)}))  # fits
        assert "type" in json.loads(ws.recv(timeout=10))
        ws.send(over)
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009  # message too big
