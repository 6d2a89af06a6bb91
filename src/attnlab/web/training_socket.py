"""`/ws/train`: FIG 2's live training, streamed to the page (protocol in briefs/web_contract.md).

The socket is a conversation: the page sends config / start / pause / step / reset / scene
(`training_messages`), the server answers with state, progress, done, queued and error
messages. The model trains in a worker process (`attnlab.trainpool`), never on the event loop
or under this process's interpreter lock; this module only admits, forwards and relays.

Slots (`Admission`): a socket holds one only while its model trains, or for `train_grace_s`
after its run stopped (a pause between two runs keeps it); a socket that never trains holds
none. Past the capacity a reader waits in line and is told its place ({"type": "queued"}),
again whenever the line moves. A closed socket gives its slot back before its handler returns.

Limits (`WebSettings`): a foreign page is refused (close code 1008); past `max_open_sockets`
the next socket is told "full" (close code 1013: each holds a model in memory); a message
over `max_message_bytes` (UTF-8 bytes) is refused; at most `inbox_messages` wait to be handled
(then the socket is not read: backpressure); a page that reads nothing for `outbox_messages`
frames is closed; a paused socket silent for `idle_timeout_s` is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

from fastapi import APIRouter, Request, WebSocket
from starlette.websockets import WebSocketDisconnect

from attnlab.tabletop import TrainConfig
from attnlab.trainpool.pool import LOST
from attnlab.trainpool.service import TrainingService
from attnlab.web.config import WebSettings
from attnlab.web.inputs import InputError
from attnlab.web.origin import origin_allowed
from attnlab.web.presence_api import class_status
from attnlab.web.training_messages import (
    ConfigMessage,
    PauseMessage,
    ResetMessage,
    SceneMessage,
    StartMessage,
    parse_message,
    scene_of,
    to_config,
)

_GONE = None  # what the reader leaves in the inbox when the page has gone
_WAKE = b"\x00wake"  # what a run's end leaves there (the idle clock starts); never the page's


def training_router() -> APIRouter:
    router = APIRouter()

    @router.get("/api/training/capacity", tags=["training"])
    async def training_capacity(request: Request) -> dict[str, Any]:
        """Worker processes, sessions that may train at once (capacity), active and queued,
        and the capacity while the readers present drag (capacity_while_dragging)."""
        return await class_status(request.app)

    @router.websocket("/ws/train")
    async def train_socket(ws: WebSocket) -> None:
        limits: WebSettings = ws.app.state.limits
        if not _same_origin(ws, limits):
            await ws.close(code=1008, reason="foreign origin")
            return
        await ws.accept()
        service: TrainingService = ws.app.state.training
        if service.open_sockets >= limits.max_open_sockets:
            full = {"type": "error", "code": "full", "message": "too many open training sockets"}
            await ws.send_text(json.dumps(full))
            await ws.close(code=1013, reason="full")
            return
        await Conversation(ws, limits, service).serve()

    return router


def _same_origin(ws: WebSocket, limits: WebSettings) -> bool:
    server = ws.scope.get("server") or (None, None)
    return origin_allowed(
        ws.headers.get("origin"),
        host_header=ws.headers.get("host"),
        server_port=server[1],
        allowed_hosts=limits.allowed_hosts,
    )


def utf8_size(text: str, limit: int) -> int:
    """Bytes of `text` in UTF-8 (a character is at least one byte: past `limit` chars, no need)."""
    if len(text) > limit:
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


async def read_into(ws: Any, inbox: asyncio.Queue[str | bytes | None]) -> None:
    """Page → bounded inbox. When the inbox is full the socket is not read (backpressure)."""
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            await inbox.put(text if text is not None else (message.get("bytes") or b""))
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass


class Conversation:
    """One socket: its session in a worker, its place among the slots, its two queues."""

    def __init__(self, ws: WebSocket, limits: WebSettings, service: TrainingService) -> None:
        self.ws, self.limits, self.service = ws, limits, service
        self.pool, self.admission = service.pool, service.admission
        self.inbox: asyncio.Queue[str | bytes | None] = asyncio.Queue(limits.inbox_messages)
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue()  # bounded by `_deliver`
        self.config = TrainConfig()
        self.sid = 0
        self.running = False
        self.pending: tuple[int | None, int] | None = None  # (steps, pace) asked while queued
        self.asked: tuple[int | None, int] = (None, 0)  # (steps, pace) of the latest run
        self.grace: asyncio.TimerHandle | None = None
        self.closed = False
        self.writer: asyncio.Task[None] | None = None
        self.quiet_since = time.monotonic()

    async def serve(self) -> None:
        reader = asyncio.create_task(self._read())
        self.writer = writer = asyncio.create_task(self._write())
        self.service.conversations.add(self)
        try:
            await self.service.ready()
            loop = asyncio.get_running_loop()
            self.sid = self.pool.open(
                self.config, (self.limits.max_steps, self.limits.max_step_n), loop, self._deliver
            )
            self.quiet_since = time.monotonic()  # the idle clock starts once the session is open
            while (text := await self._next_message()) is not _GONE:
                await self._handle(text)
        finally:
            self._leave()
            reader.cancel()
            self.outbox.put_nowait(None)
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer

    def _leave(self) -> None:
        """Give back the slot (or the place in line) and the worker's session: synchronously."""
        self.closed = True
        if self.grace is not None:
            self.grace.cancel()
        self.admission.release(self)
        if self.sid:
            self.pool.close(self.sid)
        self.service.conversations.discard(self)

    async def _read(self) -> None:
        await read_into(self.ws, self.inbox)
        self.closed = True  # nothing more can be sent
        with contextlib.suppress(asyncio.QueueFull):
            self.inbox.put_nowait(_GONE)

    async def _write(self) -> None:
        while (text := await self.outbox.get()) is not None:
            try:
                await self.ws.send_text(text)
            except (WebSocketDisconnect, RuntimeError, OSError):
                self.closed = True
                with contextlib.suppress(asyncio.QueueFull):
                    self.inbox.put_nowait(_GONE)
                return

    async def _next_message(self) -> str | bytes | None:
        while not self.closed:
            timeout = None  # while training or waiting in line, the page may stay silent
            if not self.running and self.pending is None:
                timeout = self.quiet_since + self.limits.idle_timeout_s - time.monotonic()
                if timeout <= 0:
                    self.send({"type": "done", "reason": "idle"})
                    await self._close(1000, "idle")
                    return _GONE
            try:
                item = await asyncio.wait_for(self.inbox.get(), timeout)
            except asyncio.TimeoutError:
                continue
            if item is _WAKE:
                continue
            self.quiet_since = time.monotonic()
            return item
        return _GONE

    async def _handle(self, text: str | bytes) -> None:
        limit = self.limits.max_message_bytes
        if isinstance(text, bytes) or utf8_size(text, limit) > limit:
            self._error("bad_message", f"expected a JSON text message of at most {limit} bytes")
            return
        try:
            self._dispatch(parse_message(text, max_step_n=self.limits.max_step_n))
        except InputError as err:
            self._error("bad_message", err.msg)

    def _dispatch(self, message: Any) -> None:
        """Every message the page may send, handled here and nowhere else."""
        if isinstance(message, ConfigMessage | ResetMessage):
            if isinstance(message, ConfigMessage):
                self.config = to_config(message)
                self.pool.command(self.sid, "config", self.config)
            else:
                self.pool.command(self.sid, "reset")
            self._run_stopped()
        elif isinstance(message, StartMessage):
            self._ask_to_run(None, message.pace)  # type: ignore[attr-defined]
        elif isinstance(message, PauseMessage):
            self.pending = None
            if not self.admission.holds(self):
                self.admission.release(self)  # leaves the line
            self.pool.command(self.sid, "pause")
        elif isinstance(message, SceneMessage):
            self.pool.command(self.sid, "scene", scene_of(message, self.config.task))
        else:  # step
            self._ask_to_run(message.n, 0)

    # ---- slots -----------------------------------------------------------------------------
    def _ask_to_run(self, steps: int | None, pace: int) -> None:
        place = self.admission.request(self)
        if place == 0:
            self._run(steps, pace)
        else:
            self.pending = (steps, pace)
            self.moved(place)

    def _run(self, steps: int | None, pace: int) -> None:
        if self.grace is not None:
            self.grace.cancel()
            self.grace = None
        self.running, self.pending, self.asked = True, None, (steps, pace)
        self.pool.command(self.sid, "run", steps, pace)

    def _run_stopped(self) -> None:
        """The run ended (or was replaced): the slot is kept for the grace period only."""
        self.running = False
        self.quiet_since = time.monotonic()
        with contextlib.suppress(asyncio.QueueFull):  # full: the conversation is awake anyway
            self.inbox.put_nowait(_WAKE)
        if self.admission.holds(self) and self.grace is None:
            loop = asyncio.get_running_loop()
            self.grace = loop.call_later(self.limits.train_grace_s, self._grace_over)

    def _grace_over(self) -> None:
        self.grace = None
        if not self.running and self.admission.holds(self):
            self.admission.release(self)

    def admitted(self) -> None:
        """First in line and a slot freed: the run asked for starts now."""
        if self.pending is not None and not self.closed:
            self._run(*self.pending)

    def moved(self, place: int) -> None:
        capacity = self.admission.capacity
        self.send({"type": "queued", "place": place, "capacity": capacity})

    # ---- messages out ----------------------------------------------------------------------
    def _deliver(self, text: str, ended: bool) -> None:
        """A message from the worker (on the loop): relay it; a run's end starts the grace.
        If the worker died (LOST) while this model trained, its run starts again from step 0."""
        if ended:
            trained = self.running
            self._run_stopped()
            if text == LOST and trained and not self.closed:
                self._run(*self.asked)
        if self.outbox.qsize() >= self.limits.outbox_messages:  # the page reads nothing
            self.closed = True
            with contextlib.suppress(asyncio.QueueFull):
                self.inbox.put_nowait(_GONE)
            return
        self.outbox.put_nowait(text)

    def send(self, message: dict[str, Any]) -> None:
        if not self.closed:
            self.outbox.put_nowait(json.dumps(message, allow_nan=False, separators=(",", ":")))

    def _error(self, code: str, message: str) -> None:
        self.send({"type": "error", "code": code, "message": message})

    async def going_away(self) -> None:
        """The server is stopping: what was said is sent, then the socket closes with 1001."""
        await self._close(1001, "the server is stopping")

    async def _close(self, code: int, reason: str) -> None:
        self.outbox.put_nowait(None)  # what was said goes first
        self.closed = True
        if self.writer is not None:
            with contextlib.suppress(Exception):
                await self.writer
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await self.ws.close(code=code, reason=reason)
