"""The lesson server's limits, in one place so tests can shrink them.

Every limit here protects the reader's own machine: the server runs locally, but a page from
another site could try to talk to it, and a forgotten browser tab must not train forever.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The page's files ship inside the package (see [tool.setuptools.package-data]).
PACKAGE_STATIC = Path(__file__).resolve().parent.parent / "static"


@dataclass(frozen=True)
class WebSettings:
    """Limits and wiring for `create_app`.

    max_sessions: concurrent live-training sockets (FIG 2); the next one is refused as "busy".
    max_steps: steps one trainer may take (then "done": step_limit); config/reset start over.
    idle_timeout_s: a paused session with no client message for this long is closed.
    frame_s: one progress message per frame while training (0.04 s → 25 messages a second).
    max_step_n: the largest n in {"type": "step", "n": n}.
    max_body_bytes / max_message_bytes: the largest HTTP body / socket message we read.
    static_dir: where the page's files are (the package's static/ by default).
    allowed_hosts: host names, besides loopback, that the page may be served under
        (`--allowed-host NAME`, the class address); any other Host header is refused.
    join_token: None, or the token every client beyond loopback must show (`serve --class`).
    server_processes: how many server processes share the machine (`serve --workers N`).
    max_header_bytes / header_timeout_s / keep_alive_s: a request's head must fit in this many
        bytes and arrive within this time; an idle kept-alive connection is closed after this.
    max_connections / backlog: requests past this many at once get 503; queued handshakes.
    trainer_factory: (task, heads, seed) → a trainer with the `attnlab.tabletop.Trainer`
        interface; None means the real one (tests may wrap it to watch it).
    """

    max_sessions: int = 4
    max_steps: int = 20_000
    idle_timeout_s: float = 600.0
    frame_s: float = 0.04
    max_step_n: int = 500
    max_body_bytes: int = 64 * 1024
    max_message_bytes: int = 16 * 1024
    static_dir: Path = PACKAGE_STATIC
    allowed_hosts: tuple[str, ...] = ()
    join_token: str | None = None
    server_processes: int = 1
    max_header_bytes: int = 32 * 1024
    header_timeout_s: float = 10.0
    keep_alive_s: float = 5.0
    max_connections: int = 1000
    backlog: int = 2048
    trainer_factory: Callable[[str, int, int], Any] | None = None


# `serve --workers N` starts N processes that each build the app from these (uvicorn imports it
# by name), so the choices `serve` made travel as environment variables.
_ENV = {"allowed_hosts": "ATTNLAB_ALLOWED_HOSTS", "join_token": "ATTNLAB_TOKEN",
        "server_processes": "ATTNLAB_SERVER_PROCESSES"}  # fmt: skip


def settings_env(settings: WebSettings) -> dict[str, str]:
    """The environment that makes `settings_from_env` rebuild `settings`' serve choices."""
    return {
        _ENV["allowed_hosts"]: ",".join(settings.allowed_hosts),
        _ENV["join_token"]: settings.join_token or "",
        _ENV["server_processes"]: str(settings.server_processes),
    }


def settings_from_env(env: Mapping[str, str] | None = None) -> WebSettings:
    """WebSettings with the serve choices found in `env` (os.environ by default)."""
    env = os.environ if env is None else env
    hosts = tuple(h for h in env.get(_ENV["allowed_hosts"], "").split(",") if h)
    processes = env.get(_ENV["server_processes"], "1")
    return WebSettings(
        allowed_hosts=hosts,
        join_token=env.get(_ENV["join_token"]) or None,
        server_processes=int(processes) if processes.isdigit() and int(processes) > 0 else 1,
    )
