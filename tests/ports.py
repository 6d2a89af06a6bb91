"""Loopback ports for tests that start a server of their own: a free one, and whether one
accepts connections."""

from __future__ import annotations

import socket


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int, timeout_s: float = 0.5) -> bool:
    with socket.socket() as s:
        s.settimeout(timeout_s)
        return s.connect_ex(("127.0.0.1", port)) == 0
