"""How uvicorn runs the lesson: bounded heads, connections and socket messages.

uvicorn's HTTP parsers leave two doors open: httptools reads a request head of any size (a 237
MiB header was read to the end), and neither limits how long a head may take to arrive (2,000
half-sent requests stayed open). `BoundedHttpTools` is uvicorn's httptools protocol (the C
parser; h11, in pure Python, cost the server 0.04 and 0.29 ms more CPU per warm figure request
in two alternating runs on a busy machine) with both doors shut: it feeds the parser at most
`max_header_bytes` bytes of a head and answers 400 if the head goes on past them, and it
closes a connection whose head has not arrived within `header_timeout_s` of its first byte.
(uvicorn's `h11_max_incomplete_event_size` has no httptools counterpart; the limit is counted
here, in bytes fed to the parser.) The socket's transport refuses a message over
`max_message_bytes` (close code 1009) before the app reads it: the same limit, in bytes, from
the same WebSettings.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import threading
from collections.abc import Generator
from types import FrameType
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from attnlab.logs import log_config
from attnlab.web.config import WebSettings


class BoundedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol with a size limit and a deadline on each request head.

    A head is read from its first byte until the parser calls `on_headers_complete`; the bytes
    fed meanwhile are counted, and the parser is fed in pieces so that it never holds more
    than the limit of a head: one more byte of it is refused with 400. The count starts again
    after each request.
    """

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.head_deadline: asyncio.TimerHandle | None = None
        self.reading_head, self.head_bytes = True, 0
        self.max_head = getattr(self.config, "max_header_bytes", WebSettings.max_header_bytes)
        super().connection_made(transport)
        self._await_head()  # a client that connects and says nothing is also waiting

    def data_received(self, data: bytes) -> None:
        while data and self.reading_head:
            self._await_head()  # these bytes begin (or continue) a request head
            room = self.max_head - self.head_bytes
            if room <= 0:  # the limit was fed and the head goes on
                self._head_arrived()
                self.send_400_response("Request head too large.")
                return
            piece, data = data[:room], data[room:]
            self.head_bytes += len(piece)
            super().data_received(piece)
            if self._gone():
                return
        if data:
            super().data_received(data)

    def _gone(self) -> bool:
        """The connection closed (a 400), or became a WebSocket: nothing more to feed here."""
        return (
            self.parser is None
            or self.transport.is_closing()
            or (self.transport.get_protocol() is not self)
        )

    def on_headers_complete(self) -> None:
        self.reading_head = False
        self._head_arrived()  # the head was parsed: the request is the app's now
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self.reading_head, self.head_bytes = True, 0  # the next bytes begin the next head

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
        http=BoundedHttpTools,
        timeout_keep_alive=settings.keep_alive_s,  # type: ignore[arg-type]
        limit_concurrency=settings.max_connections,
        backlog=settings.backlog,
        ws_max_size=settings.max_message_bytes,
        # a stop waits this long for open requests, then cancels them (then the workers stop)
        timeout_graceful_shutdown=settings.shutdown_grace_s,
        # one line an event (attnlab.logs); log_level None: the levels are log_config's own
        **{"log_config": log_config(), "log_level": None, "access_log": settings.access_log}
        | options,
    )
    config.header_timeout_s = settings.header_timeout_s  # read by BoundedHttpTools (see above)
    config.max_header_bytes = settings.max_header_bytes
    return config


# SIGHUP too: a terminal that closes, or `kill -HUP`, must stop the tree, not orphan it.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class LessonServer(uvicorn.Server):
    """uvicorn's Server that stops its whole tree on SIGINT, SIGTERM and SIGHUP.

    uvicorn alone handles two of the three, then re-raises the signal once it has stopped — so
    the process dies by it before `serve` can stop the training workers, and SIGHUP kills it at
    once. Here a signal asks for a clean stop and is not raised again; a second Ctrl+C forces it
    (a supervisor's SIGTERM after the terminal's SIGINT does not).
    Before uvicorn closes the connections (its sockets get 1012 "restart"), `going_away` closes
    the training sockets with 1001: the server is going away, not coming back in a moment.
    """

    def __init__(self, config: uvicorn.Config, going_away: Any = None) -> None:
        super().__init__(config)
        self.going_away = going_away  # async () -> None, or None
        self.stopped_by: int | None = None

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        if threading.current_thread() is not threading.main_thread():
            yield  # signals reach the main thread only (a test may serve from another)
            return
        old = {sig: signal.signal(sig, self.handle_exit) for sig in STOP_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.should_exit and sig == signal.SIGINT:
            self.force_exit = True  # Ctrl+C twice: stop without waiting for connections
        self.should_exit, self.stopped_by = True, self.stopped_by or sig

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.going_away is not None:
            with contextlib.suppress(Exception):  # a failing hook must not keep the port
                await asyncio.wait_for(self.going_away(), self.config.timeout_graceful_shutdown)
        await super().shutdown(sockets)
