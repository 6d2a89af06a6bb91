"""Slow and greedy clients against `attnlab serve`, with plain uvicorn measured in the same run.

1. Half-sent requests: N connections (2,000 by default) each send part of a request head and
   then nothing. Printed: how many the server still holds open after 1, 5, … seconds.
2. A huge header: one request whose header value streams up to 237 MiB. Printed: how many bytes
   the server took before it answered (or closed), and how long that took.

Both run against `attnlab serve` (h11 with a head-size limit and a head deadline) and against
the reference, uvicorn's defaults (`uvicorn --factory attnlab.web:create_app`: httptools, no
limit on a head's size or arrival time). Every connection goes to 127.0.0.1; the run is bounded
in count and time (each phase stops by itself).

    .venv/bin/python benchmarks/slow_clients.py [--connections 2000] [--watch 15]
"""

from __future__ import annotations

import argparse
import contextlib
import select
import selectors
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

HUGE = 237 * 1024 * 1024
CHUNK = 256 * 1024
OURS = [sys.executable, "-m", "attnlab", "serve", "--no-browser", "--port"]
REFERENCE = [sys.executable, "-m", "uvicorn", "--factory", "attnlab.web:create_app", "--port"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def server(cmd: list[str]) -> Iterator[int]:
    port = free_port()
    proc = subprocess.Popen([*cmd, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        end = time.monotonic() + 30
        while time.monotonic() < end and proc.poll() is None:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            time.sleep(0.1)
        else:
            raise SystemExit(f"server did not start: {proc.stderr.read().decode()[-2000:]}")
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def half_sent(port: int, n: int, watch_s: float) -> list[tuple[float, int]]:
    """(seconds, connections still open) while n half-sent requests wait."""
    watching = selectors.DefaultSelector()  # epoll: select() stops at descriptor 1024
    conns = []
    for i in range(n):
        conn = socket.create_connection(("127.0.0.1", port), timeout=5)
        conn.sendall([b"", b"GET / HT", b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"][i % 3])
        watching.register(conn, selectors.EVENT_READ)
        conns.append(conn)
    start, marks, still_open = time.monotonic(), [], n
    for mark in sorted({1, 5, 9, 11, 13, watch_s}):
        while (left := start + mark - time.monotonic()) > 0 and still_open:
            for key, _ in watching.select(timeout=min(left, 0.2)):
                with contextlib.suppress(OSError):
                    key.fileobj.recv(1024)  # b"" (closed) or an answer: either way, let go
                watching.unregister(key.fileobj)
                still_open -= 1
        marks.append((mark, still_open))
    for conn in conns:
        conn.close()
    return marks


def huge_header(port: int, limit_s: float = 20.0) -> tuple[int, float, bytes]:
    """(bytes sent, seconds, first bytes of the answer) for a header of up to 237 MiB.

    Bytes "sent" include what the kernel's socket buffers took before the server said no.
    """
    conn = socket.create_connection(("127.0.0.1", port), timeout=5)
    conn.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Huge: ")
    sent, start, chunk = 0, time.monotonic(), b"a" * CHUNK
    with contextlib.suppress(OSError):
        while sent < HUGE and time.monotonic() - start < limit_s:
            conn.sendall(chunk)
            sent += CHUNK
            if select.select([conn], [], [], 0)[0]:
                break  # the server answered (or closed) before the end
        conn.sendall(b"\r\n\r\n")
    answer = b""
    with contextlib.suppress(OSError):
        answer = conn.recv(64)
    conn.close()
    return sent, time.monotonic() - start, answer


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--connections", type=int, default=2000)
    ap.add_argument("--watch", type=float, default=15.0)
    args = ap.parse_args()
    for name, cmd in (("attnlab serve", OURS), ("uvicorn defaults (reference)", REFERENCE)):
        with server(cmd) as port:
            marks = half_sent(port, min(args.connections, 5000), min(args.watch, 60.0))
            shown = ", ".join(f"{t:g} s: {k}" for t, k in marks)
            print(f"{name}: {args.connections} half-sent requests still open — {shown}")
            sent, took, answer = huge_header(port)
            first = answer.split(b"\r\n")[0].decode("latin-1") or "(closed, no answer)"
            if sent >= HUGE or took >= 20.0:
                verdict = f"still reading after {sent / 2**20:.1f} MiB, {took:.1f} s (we stopped)"
            else:
                verdict = f"refused after {sent / 2**20:.2f} MiB sent, {took:.2f} s: {first}"
            print(f"{name}: 237 MiB header — {verdict}")


if __name__ == "__main__":
    main()
