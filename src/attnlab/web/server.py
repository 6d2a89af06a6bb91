"""How uvicorn runs the lesson: bounded heads, connections and socket messages.

uvicorn's default HTTP parser (httptools) reads a request head of any size, and neither of its
parsers limits how long a head may take to arrive: a 237 MiB header was read to the end and
2,000 half-sent requests stayed open. So the server speaks HTTP through h11, whose buffer limit
(`h11_max_incomplete_event_size`) refuses an oversized head with 400 as soon as the buffer passes
it, and `BoundedH11` closes a connection whose head has not arrived within `header_timeout_s`.
The socket's transport refuses a message over `max_message_bytes` (close code 1009) before the
app reads it: the same limit, in bytes, from the same WebSettings.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from attnlab.logs import log_config
from attnlab.web.config import WebSettings


class BoundedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request head (from its first byte)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.head_deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._await_head()  # a client that connects and says nothing is also waiting

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:
            self._await_head()  # these bytes begin (or continue) a request head
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._head_arrived()  # the head was parsed (or refused): h11 moved on

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_arrived()
        super().connection_lost(exc)

    def _await_head(self) -> None:
        if self.head_deadline is None:
            seconds = getattr(self.config, "header_timeout_s", WebSettings.header_timeout_s)
            self.head_deadline = self.loop.call_later(seconds, self._head_too_slow)

    def _head_arrived(self) -> None:
        if self.head_deadline is not None:
            self.head_deadline.cancel()
            self.head_deadline = None

    def _head_too_slow(self) -> None:
        self.head_deadline = None
        if not self.transport.is_closing():
            self.transport.close()


def server_config(app: Any, settings: WebSettings, **options: Any) -> uvicorn.Config:
    """uvicorn's Config for `app` (an app, or an import string) with `settings`' limits."""
    config = uvicorn.Config(
        app,
        http=BoundedH11,
        h11_max_incomplete_event_size=settings.max_header_bytes,
        timeout_keep_alive=settings.keep_alive_s,  # type: ignore[arg-type]
        limit_concurrency=settings.max_connections,
        backlog=settings.backlog,
        ws_max_size=settings.max_message_bytes,
        # one line an event (attnlab.logs); log_level None: the levels are log_config's own
        **{"log_config": log_config(), "log_level": None, "access_log": settings.access_log}
        | options,
    )
    config.header_timeout_s = settings.header_timeout_s  # read by BoundedH11 (see above)
    return config
