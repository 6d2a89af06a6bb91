"""`/ws/class`: a learner's page in a class, to the teacher's view and back.

The page opens it once the server says there is a class (presence's answer, `teaching`), says
hello with its random id, then reports what changes (`attnlab.classroom.messages`: shown,
training, queued, its try-its and first answers). The server answers with the seat's number
and passes on what the teacher sends everyone ("show everyone"). A learner can send nothing
else: a "show" from a page is refused like any unknown message.

Bounded: a page must say hello within HELLO_S; messages are read one at a time (over
`max_message_bytes` refused); a page silent for `seat_ttl_s` loses its seat; past `max_seats`
the next page is told "full" and closed (1013). A closed page leaves its seat at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from fastapi import APIRouter, FastAPI, WebSocket
from starlette.websockets import WebSocketDisconnect

from attnlab.classroom import MemoryStore, Seat, class_counts, seeds
from attnlab.classroom.lessonids import lesson_ids
from attnlab.classroom.messages import Hello, Name, Progress, Result, Status, parse_learner
from attnlab.classroom.store import CHANGES, LEARNERS, ClassStore, SeatsFull
from attnlab.params import ParamError
from attnlab.web.config import WebSettings
from attnlab.web.presence_api import class_status

HELLO_S = 10.0
_GONE = (WebSocketDisconnect, RuntimeError, OSError)


def class_store(app: FastAPI) -> ClassStore:
    """The app's class store (made on first use: a test app may never run its lifespan)."""
    found = getattr(app.state, "class_store", None)
    if found is None:
        limits: WebSettings = app.state.limits
        bounds = {"ttl_s": limits.seat_ttl_s, "max_seats": limits.max_seats}
        if limits.class_store:  # copies behind a proxy share one class (README: past one machine)
            from attnlab.classroom.redis_store import RedisStore

            found = RedisStore(limits.class_store, **bounds)
        else:
            found = MemoryStore(**bounds)
        app.state.class_store = found
    return found


async def close_class_store(app: FastAPI) -> None:
    """At the app's shutdown: the store's connections and its listener end with the server
    (Redis would otherwise hold them until the process is gone, or forever in a test's loop)."""
    found = getattr(app.state, "class_store", None)
    if found is not None:
        await found.close()


async def class_view(app: FastAPI) -> dict[str, Any]:
    """What the teacher's page draws: the seats' counts and the server's load."""
    store = class_store(app)
    seats = await store.seats()
    running, swept = await store.get(seeds.SEEDS), await store.get(seeds.SWEEP)
    experiment = seeds.class_results(running, seats, swept)
    plan = [p.describe() for p in seeds.PLAN_PARAMS]  # the teacher's form: ranges stated once
    return {**class_counts(seats, lesson_ids()), "load": await class_status(app),
            "experiment": experiment, "plan": plan}  # fmt: skip


def send_json(message: dict[str, Any]) -> str:
    return json.dumps(message, allow_nan=False, separators=(",", ":"))


def class_router() -> APIRouter:
    router = APIRouter()

    @router.websocket("/ws/class")
    async def learner_socket(ws: WebSocket) -> None:
        limits: WebSettings = ws.app.state.limits
        if limits.teacher_token is None:
            await ws.close(code=1008, reason="no class: started without --class")
            return
        await ws.accept()
        await Learner(ws, class_store(ws.app)).serve()

    return router


class Learner:
    """One learner's page: its seat, and the teacher's messages relayed to it."""

    def __init__(self, ws: WebSocket, store: ClassStore) -> None:
        self.ws, self.store = ws, store
        self.seat: Seat | None = None

    async def serve(self) -> None:
        # Subscribed before the seat is told, so nothing the teacher sends after the page has
        # its seat is missed (what comes meanwhile waits in the subscription, relayed after it)
        subscription = self.store.subscribe(LEARNERS)
        try:
            await self.store.listening()
            hello = await self._hello()
            if hello is None:
                return
            relay = asyncio.create_task(self._relay(subscription))
            try:
                await self._read()
            finally:
                relay.cancel()
                await self.store.leave(hello.seat)
                await self.store.publish(CHANGES, {"type": "changed"})
        finally:
            subscription.close()

    async def _hello(self) -> Hello | None:
        try:
            text = await asyncio.wait_for(self.ws.receive_text(), HELLO_S)
            hello = parse_learner(text)
            if not isinstance(hello, Hello):
                raise ParamError("type", "say hello first")
            self.seat = await self.store.join(hello.seat, hello.name)
        except (asyncio.TimeoutError, ParamError, SeatsFull, *_GONE) as err:
            reason = str(err) or "no hello"
            code = 1013 if isinstance(err, SeatsFull) else 1008
            with contextlib.suppress(*_GONE):
                await self.ws.close(code=code, reason=reason[:100])
            return None
        await self.store.publish(CHANGES, {"type": "changed"})
        await self._send({"type": "seat", "number": self.seat.number, "name": self.seat.name})
        return hello

    async def _read(self) -> None:
        with contextlib.suppress(*_GONE):
            while True:
                text = await self.ws.receive_text()
                try:
                    await self._apply(parse_learner(text))
                except ParamError as err:
                    await self._send({"type": "error", "code": "bad_message", "message": str(err)})

    async def _apply(self, message: Any) -> None:
        assert self.seat is not None
        if isinstance(message, Status):
            fields = {"shown": message.shown, "training": message.training,
                      "queued": message.queued}  # fmt: skip
        elif isinstance(message, Progress):
            fields = {"tries": tuple(message.tries), "first": dict(message.exercises)}
        elif isinstance(message, Name):
            fields = {"name": message.name}
        elif isinstance(message, Result):
            experiment = await self.store.get(seeds.SEEDS)
            fields = {"result": seeds.accept(experiment, self.seat.number, message)}
        else:
            raise ParamError("type", "hello is said once")
        seat = await self.store.update(self.seat.key, **fields)
        if seat is None:  # silent past the TTL: it comes back under a new number
            self.seat = await self.store.join(self.seat.key, self.seat.name)
            seat = await self.store.update(self.seat.key, **fields)
            await self._send({"type": "seat", "number": self.seat.number, "name": self.seat.name})
        await self.store.publish(CHANGES, {"type": "changed"})

    async def _relay(self, subscription: Any) -> None:
        with contextlib.suppress(*_GONE):
            while True:
                await self._send(await subscription.get())

    async def _send(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(*_GONE):
            await self.ws.send_text(send_json(message))
