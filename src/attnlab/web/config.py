"""The lesson server's limits, in one place so tests can shrink them.

Every limit here protects the reader's own machine: the server runs locally, but a page from
another site could try to talk to it, and a forgotten browser tab must not train forever.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The page's files ship inside the package (see [tool.setuptools.package-data]).
PACKAGE_STATIC = Path(__file__).resolve().parent.parent / "static"
MAX_FIGURE_DELAY_S = 2.0  # a test's slow server, never a hang
PAGE_SOURCES_ENV = "ATTNLAB_PAGE_SOURCES"  # "1": serve the page's modules unbundled (development)


def _page_sources_asked() -> bool:
    return os.environ.get(PAGE_SOURCES_ENV, "") == "1"


@dataclass(frozen=True)
class WebSettings:
    """Limits and wiring for `create_app`.

    max_steps: steps one trainer may take (then "done": step_limit); config/reset start over.
    idle_timeout_s: a paused session with no client message for this long is closed.
    train_workers / train_capacity: worker processes for live training and sessions that may
        train at once; None = derived from the machine (`attnlab.trainpool.capacity`).
    server_processes: server processes sharing the machine (`serve --workers N`);
        each takes 1/N of the cores for its workers and its capacity.
    train_grace_s: a paused run keeps its slot this long (then the next in line gets it).
    max_open_sockets: training sockets open at once (each holds a model in a worker); the
        next is told "full" and closed.
    inbox_messages / outbox_messages: socket messages waiting to be handled (then the socket is
        not read) / waiting to be sent (then the page, which reads nothing, is closed).
    frame_s: one progress message per frame while training (0.04 s → 25 messages a second).
    max_step_n: the largest n in {"type": "step", "n": n}.
    max_body_bytes / max_message_bytes: the largest HTTP body / socket message we read.
    static_dir: where the page's files are (the package's static/ by default).
    allowed_hosts: host names, besides loopback, that the page may be served under
        (`--allowed-host NAME`, the class address); any other Host header is refused.
    join_token: None, or the token every client beyond loopback must show (`serve --class`).
    behind_proxy: `serve --proxy`: every request comes through a reverse proxy, so none counts
        as loopback and every one must show `join_token` (X-Forwarded-For is anyone's to write).
    teacher_token: None (no teacher's view), or the token that opens /teach, its API and its
        socket, from every address, loopback too (`attnlab.web.teacher_gate`); never join_token.
    class_store: None (the class in this process's memory) or redis://HOST:PORT, a Redis that
        every copy behind a proxy shares (`serve --store`, `attnlab.classroom.redis_store`).
    seat_ttl_s / max_seats: a learner's seat is forgotten this long after its page was last
        heard from; at most this many seats at once (`attnlab.classroom`).
    max_header_bytes / header_timeout_s / keep_alive_s: a request's head must fit in this many
        bytes and arrive within this time; an idle kept-alive connection is closed after this.
    max_connections / backlog: requests past this many at once get 503; queued handshakes.
    shutdown_grace_s: on a stop, open requests get this long to finish (then are cancelled), so
        that the whole process tree ends within the 5 s a service manager is promised.
    reader_expiry_s / max_readers: a page that said it is here (POST /api/presence) counts as a
        reader for this long; at most this many are remembered (`attnlab.web.presence`).
    figure_delay_s: tests only (no CLI flag, no environment variable): every figure request
        waits this long first, a slow server for the page's drags (at most MAX_FIGURE_DELAY_S).
    trainer_factory: TrainConfig → a trainer with the `attnlab.tabletop.Trainer` interface,
        run in the worker processes (so importable by name); None means the real one.
    access_log: uvicorn logs one line per request (`serve --access-log`); off, only events.
    answer_cache_entries / answer_cache_bytes / answer_cache_s: figure answers asked for by
        anyone are kept this long, at most this many and this many bytes (web/answer_cache.py).
    page_sources: serve index.html's source tags instead of the page's bundle (static/bundle,
        `make page`); from ATTNLAB_PAGE_SOURCES=1 unless given, so `serve --workers N` passes
        it to every server process.
    """

    max_steps: int = 20_000
    idle_timeout_s: float = 600.0
    frame_s: float = 0.04
    max_step_n: int = 500
    max_body_bytes: int = 64 * 1024
    max_message_bytes: int = 16 * 1024
    static_dir: Path = PACKAGE_STATIC
    allowed_hosts: tuple[str, ...] = ()
    join_token: str | None = None
    behind_proxy: bool = False
    teacher_token: str | None = None
    class_store: str | None = None
    seat_ttl_s: float = 45.0
    max_seats: int = 400
    max_header_bytes: int = 32 * 1024
    header_timeout_s: float = 10.0
    keep_alive_s: float = 5.0
    max_connections: int = 1000
    backlog: int = 2048
    shutdown_grace_s: float = 2.0
    trainer_factory: Callable[[Any], Any] | None = None
    train_workers: int | None = None
    train_capacity: int | None = None
    server_processes: int = 1
    train_grace_s: float = 25.0
    max_open_sockets: int = 400
    inbox_messages: int = 8
    outbox_messages: int = 256
    access_log: bool = False
    reader_expiry_s: float = 60.0
    max_readers: int = 2000
    figure_delay_s: float = 0.0
    answer_cache_entries: int = 512
    answer_cache_bytes: int = 32 * 1024 * 1024
    answer_cache_s: float = 15.0
    page_sources: bool = field(default_factory=_page_sources_asked)

    def __post_init__(self) -> None:
        if not 0.0 <= self.figure_delay_s <= MAX_FIGURE_DELAY_S:
            raise ValueError(f"figure_delay_s must be within [0, {MAX_FIGURE_DELAY_S}] seconds")
        if self.teacher_token is not None and self.teacher_token in ("", self.join_token):
            raise ValueError("the teacher's token must be set and differ from the join token")
