"""`/ws/train`: FIG 2's live training, streamed to the page (protocol in briefs/web_contract.md).

The socket is a conversation: the page sends config / start / pause / step / reset / scene, the
server answers with state, progress, done and error messages. Training runs in a worker thread
(`asyncio.to_thread`) one frame at a time, so the event loop keeps reading the page's messages
and other requests while the model trains; between frames the progress is sent.

Limits (see `WebSettings`): a foreign page is refused (close code 1008); at most `max_sessions`
sockets train at once (the next gets an error "busy"); a trainer stops at `max_steps`; a paused
socket that stays silent for `idle_timeout_s` is closed; a closed socket stops its training at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from attnlab.params import ParamError, validate
from attnlab.web.config import WebSettings
from attnlab.web.inputs import InputError
from attnlab.web.origin import origin_allowed
from attnlab.web.training_messages import config_params, parse_message
from attnlab.web.training_session import TrainingSession, real_trainer

log = logging.getLogger("attnlab.web")

_GONE = None  # what the reader puts in the inbox when the page has gone
_WAKE = object()  # what a run puts in the inbox when it ends: the idle clock starts


class SessionCount:
    """How many training sockets are open (changed only on the event loop, so no lock)."""

    def __init__(self) -> None:
        self.active = 0


def training_router() -> APIRouter:
    router = APIRouter()

    @router.websocket("/ws/train")
    async def train_socket(ws: WebSocket) -> None:
        limits: WebSettings = ws.app.state.limits
        count: SessionCount = ws.app.state.training_sessions
        if not _same_origin(ws, limits):
            await ws.close(code=1008, reason="foreign origin")
            return
        await ws.accept()
        if count.active >= limits.max_sessions:
            await _refuse(
                ws, "busy", f"{limits.max_sessions} training sessions are running; try again later"
            )
            return
        count.active += 1
        try:
            await Conversation(ws, limits).serve()
        finally:
            count.active -= 1

    return router


def _same_origin(ws: WebSocket, limits: WebSettings) -> bool:
    server = ws.scope.get("server") or (None, None)
    return origin_allowed(
        ws.headers.get("origin"),
        host_header=ws.headers.get("host"),
        server_port=server[1],
        allowed_hosts=limits.allowed_hosts,
    )


async def _refuse(ws: WebSocket, code: str, message: str) -> None:
    await ws.send_text(json.dumps({"type": "error", "code": code, "message": message}))
    await ws.close(code=1013 if code == "busy" else 1011, reason=code)


class Conversation:
    """One socket: reads messages, runs the trainer, sends progress; cleans up on any exit."""

    def __init__(self, ws: WebSocket, limits: WebSettings) -> None:
        self.ws = ws
        self.limits = limits
        self.session: TrainingSession | None = None
        self.inbox: asyncio.Queue[object] = asyncio.Queue()  # text, bytes, _GONE or _WAKE
        self.cancel = threading.Event()  # read by the worker thread between chunks of steps
        self.goal: int | None = None  # the step the runner trains towards; None = paused
        self.pace = 0  # steps per second asked by the page; 0 = as fast as possible
        self.runner: asyncio.Task[None] | None = None
        self.send_lock = asyncio.Lock()
        self.closed = False
        self.quiet_since = time.monotonic()

    async def serve(self) -> None:
        reader = asyncio.create_task(self._read())
        try:
            if await self._open():
                while (text := await self._next_message()) is not _GONE:
                    await self._handle(text)
        finally:
            reader.cancel()
            await self._stop_runner()  # the worker thread is done when this returns

    async def _open(self) -> bool:
        factory = self.limits.trainer_factory or real_trainer
        try:
            config = validate(config_params(), {})
            self.session = await asyncio.to_thread(
                TrainingSession, factory=factory, config=config, max_steps=self.limits.max_steps
            )
        except ImportError as err:  # the tabletop package is not installed / not written yet
            await _refuse(self.ws, "unavailable", f"live training is not available: {err}")
            return False
        await self.send(self.session.state(running=False))
        await self.send(await asyncio.to_thread(self.session.progress, full_history=True))
        return True

    async def _read(self) -> None:
        """Page → inbox, until the page goes (then `_GONE`)."""
        try:
            while True:
                message = await self.ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                self.inbox.put_nowait(message.get("text") or message.get("bytes") or "")
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.closed = True  # nothing more can be sent
            self.cancel.set()  # stop the worker now, before the conversation notices
            self.inbox.put_nowait(_GONE)

    async def _next_message(self) -> str | bytes | None:
        while not self.closed:
            timeout = None  # while training, the page may stay silent
            if self.goal is None:
                timeout = self.quiet_since + self.limits.idle_timeout_s - time.monotonic()
            if timeout is not None and timeout <= 0:
                await self.send({"type": "done", "reason": "idle"})
                await self._close(1000, "idle")
                return _GONE
            try:
                item = await asyncio.wait_for(self.inbox.get(), timeout)
            except asyncio.TimeoutError:
                continue
            if item is _WAKE:
                continue
            self.quiet_since = time.monotonic()
            assert item is None or isinstance(item, (str, bytes))
            return item
        return _GONE

    async def _handle(self, text: str | bytes) -> None:
        assert self.session is not None
        if isinstance(text, bytes) or len(text) > self.limits.max_message_bytes:
            await self._error(
                "bad_message",
                f"expected a JSON text message under {self.limits.max_message_bytes} bytes",
            )
            return
        try:
            kind, args = parse_message(
                text, task=self.session.config["task"], max_step_n=self.limits.max_step_n
            )
        except InputError as err:
            await self._error("bad_message", err.msg)
            return
        try:
            await getattr(self, f"_on_{kind}")(args)
        except ParamError as err:  # the trainer's own checks (a second line of defence)
            await self._error("bad_message", str(err))

    async def _on_config(self, config: dict[str, Any]) -> None:
        await self._stop_runner()
        await asyncio.to_thread(self._session().configure, config)
        await self._announce_new_run()

    async def _on_reset(self, _: dict[str, Any]) -> None:
        await self._stop_runner()
        await asyncio.to_thread(self._session().reset)
        await self._announce_new_run()

    async def _on_start(self, args: dict[str, Any]) -> None:
        self.pace = args["pace"]
        await self._run_until(self.limits.max_steps)

    async def _on_step(self, args: dict[str, Any]) -> None:
        await self._stop_runner()
        self.pace = 0  # a single step button trains its steps at once
        await self._run_until(self._session().step + args["n"])

    async def _on_pause(self, _: dict[str, Any]) -> None:
        await self._stop_runner()
        await self.send(self._session().state(running=False))

    async def _on_scene(self, scene: Any) -> None:
        session = self._session()
        await asyncio.to_thread(session.set_scene, scene)
        if self.goal is None:  # while running, the next frame carries the new prediction
            await self.send(await asyncio.to_thread(session.progress))

    async def _announce_new_run(self) -> None:
        session = self._session()
        await self.send(session.state(running=False))
        await self.send(await asyncio.to_thread(session.progress, full_history=True))

    async def _run_until(self, goal: int) -> None:
        session = self._session()
        if session.step >= session.max_steps:
            await self.send({"type": "done", "reason": "step_limit"})
            await self.send(session.state(running=False))
            return
        self.goal = min(goal, session.max_steps)
        if self.runner is None or self.runner.done():
            self.runner = asyncio.create_task(self._run())
        await self.send(session.state(running=True))

    async def _run(self) -> None:
        """Frames of training until the goal, a pause or the page going away."""
        session = self._session()
        try:
            while self.goal is not None and session.step < self.goal and not self.cancel.is_set():
                before, t0 = session.step, time.monotonic()
                message = await asyncio.to_thread(
                    session.frame, self._frame_goal(before), self.limits.frame_s, self.cancel
                )
                if message["step"] > before:  # a frame cut short by a pause trained nothing
                    await self.send(message)
                if self.pace:  # paced: wait out the rest of the frame
                    await asyncio.sleep(max(0.0, self.limits.frame_s - (time.monotonic() - t0)))
        except Exception:  # a bug in the trainer: tell the page, keep the server up
            log.exception("training failed")
            await self._error("internal", "training failed; see the server log")
        if self.cancel.is_set():
            return  # stopped on request: `_stop_runner` reports
        self.goal, self.quiet_since = None, time.monotonic()
        self.inbox.put_nowait(_WAKE)
        if session.step >= session.max_steps:
            await self.send({"type": "done", "reason": "step_limit"})
        await self.send(session.state(running=False))

    def _frame_goal(self, step: int) -> int:
        """Where this frame may train to: the goal, or at a pace, one frame's worth of steps."""
        assert self.goal is not None
        if not self.pace:
            return self.goal
        return min(self.goal, step + max(1, round(self.pace * self.limits.frame_s)))

    async def _stop_runner(self) -> None:
        """Stop training and wait for the worker thread's current chunk to end."""
        runner, self.runner = self.runner, None
        if runner is not None and not runner.done():
            self.cancel.set()
            await asyncio.gather(runner, return_exceptions=True)
        if not self.closed:
            self.cancel.clear()
        self.goal, self.quiet_since = None, time.monotonic()

    def _session(self) -> TrainingSession:
        assert self.session is not None
        return self.session

    async def _error(self, code: str, message: str) -> None:
        await self.send({"type": "error", "code": code, "message": message})

    async def send(self, message: dict[str, Any]) -> None:
        """Send unless the page has gone (then remember it, and stop)."""
        if self.closed:
            return
        text = json.dumps(message, allow_nan=False, separators=(",", ":"))
        async with self.send_lock:
            try:
                await self.ws.send_text(text)
            except (WebSocketDisconnect, RuntimeError, OSError):
                self.closed = True
                self.cancel.set()

    async def _close(self, code: int, reason: str) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await self.ws.close(code=code, reason=reason)
