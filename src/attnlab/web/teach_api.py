"""The teacher's view: /teach (the page), /api/teach/… and /ws/teach (the live class).

Every route here is behind `teacher_gate.TeacherGate` (the teacher's token, from every
address); the handlers only read the class store and publish to it.
- `GET /teach`: static/teach.html, the teacher's page (its own modules, js/teach/).
- `GET /api/teach/class`: the class at a glance now (`class_socket.class_view`).
- `POST /api/teach/show`: "show everyone" a figure at some settings, or a try-it
  (`attnlab.classroom.show`); every learner's page gets it at once.
- `/ws/teach`: the class at a glance, sent when it changes (at most every FLUSH_S: one message
  for a burst of changes) and every LOAD_EVERY_S (the server's load moves by itself).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import JSONResponse, Response
from starlette.websockets import WebSocketDisconnect

from attnlab.classroom.show import show_message
from attnlab.classroom.store import CHANGES, LEARNERS
from attnlab.params import ParamError
from attnlab.web.class_socket import class_store, class_view, send_json
from attnlab.web.config import WebSettings
from attnlab.web.inputs import InputError, body_settings
from attnlab.web.revalidate import revalidated

FLUSH_S = 0.15  # changes arriving within this are drawn together
LOAD_EVERY_S = 1.0
_GONE = (WebSocketDisconnect, RuntimeError, OSError)


def teach_router() -> APIRouter:
    router = APIRouter(tags=["teacher"])

    @router.get("/teach", include_in_schema=False)
    def teacher_page(request: Request) -> Response:
        limits: WebSettings = request.app.state.limits
        page = limits.static_dir / "teach.html"
        if not page.is_file():
            missing = "the teacher's page (static/teach.html) is missing"
            return JSONResponse({"detail": missing}, 404)
        return revalidated(request, page.read_bytes(), media_type="text/html; charset=utf-8")

    # Not in /openapi.json: the teacher's routes are not the lesson's public API (without
    # --class they do not exist, and with it only the teacher may call them).
    @router.get("/api/teach/class", include_in_schema=False)
    async def the_class(request: Request) -> JSONResponse:
        return JSONResponse(await class_view(request.app))

    @router.post("/api/teach/show", include_in_schema=False)
    async def show_everyone(request: Request) -> JSONResponse:
        limits: WebSettings = request.app.state.limits
        raw = await body_settings(request, limits.max_body_bytes)
        try:
            message = show_message(raw)
        except ParamError as err:
            raise InputError(("body", err.name), str(err)) from None
        await class_store(request.app).publish(LEARNERS, message)
        return JSONResponse(message)

    @router.websocket("/ws/teach")
    async def teacher_socket(ws: WebSocket) -> None:
        await ws.accept()
        listener = asyncio.create_task(_until_closed(ws))
        try:
            await _send_changes(ws, listener)
        finally:
            listener.cancel()

    return router


async def _until_closed(ws: WebSocket) -> None:
    """Read (and drop) what the page sends, so that a closed page is noticed."""
    with contextlib.suppress(*_GONE):
        while (await ws.receive())["type"] != "websocket.disconnect":
            pass


async def _send_changes(ws: WebSocket, listener: asyncio.Task[None]) -> None:
    subscription = class_store(ws.app).subscribe(CHANGES)
    last: dict[str, Any] | None = None
    try:
        while not listener.done():
            view = await class_view(ws.app)
            if view != last:
                await ws.send_text(send_json({"type": "class", **view}))
                last = view
            await _next_change(subscription, listener)
    except _GONE:
        pass
    finally:
        subscription.close()


async def _next_change(subscription: Any, listener: asyncio.Task[None]) -> None:
    """Until a seat changes (then FLUSH_S more, for the rest of a burst) or LOAD_EVERY_S."""
    change = asyncio.ensure_future(subscription.get())
    done, _ = await asyncio.wait({change, listener}, timeout=LOAD_EVERY_S,
                                 return_when=asyncio.FIRST_COMPLETED)  # fmt: skip
    if change not in done:
        change.cancel()
        return
    await asyncio.sleep(FLUSH_S)
    while not subscription.queue.empty():
        subscription.queue.get_nowait()
