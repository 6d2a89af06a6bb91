"""Debian's redis-server for a test: started on a free loopback port with nothing saved to disk,
stopped (and waited for) after. Never the system service. `make redis` installs it; on CI a
missing server fails the test instead of skipping it."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ports import free_port, port_open

START_S = 10.0


def need_redis_server() -> str:
    """The path of redis-server; skips the test (fails it on CI) when it is not installed."""
    found = shutil.which("redis-server") or shutil.which("redis-server", path="/usr/bin:/usr/sbin")
    if found is None:
        if os.environ.get("CI"):  # make test installs it: never skip there
            pytest.fail("redis-server is not installed (make redis)")
        pytest.skip("redis-server is not installed (make redis)")
    return found


@contextlib.contextmanager
def redis_server(where: Path) -> Iterator[str]:
    """A redis-server of its own (its working directory `where`); yields redis://127.0.0.1:PORT/0."""
    found = need_redis_server()
    port = free_port()
    cmd = [found, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
           "--dir", str(where)]  # fmt: skip
    with subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as proc:
        try:
            end = time.monotonic() + START_S
            while not port_open(port):
                assert time.monotonic() < end and proc.poll() is None, "redis-server did not start"
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def client_count(url: str) -> int:
    """How many connections the server at `url` holds, not counting the one that asks."""
    import redis

    with redis.Redis.from_url(url) as asking:
        return len(asking.client_list()) - 1
