"""`POST /api/presence`: a page says it is open; the answer is the class against the capacity.

A tab sends `{"reader": "<its random id>"}` every ~20 s while it is shown (lib/presence.js), and
reads back what GET /api/training/capacity states: the capacity while the readers drag, the
class size and whether the class is over it (then the page says so), and whether there is a
teacher's view to join (`teaching`: the page opens /ws/class, `class_socket.py`). A POST, so
the guard's rules for POSTs hold (our own page's Origin, a JSON body).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse

from attnlab.trainpool.service import TrainingService
from attnlab.web.config import WebSettings
from attnlab.web.inputs import InputError, body_settings
from attnlab.web.presence import Presence
from attnlab.web.schemas import error_responses, json_object_body, json_response

PRESENCE_BODY = json_object_body(
    {
        "reader": {
            "type": "string",
            "pattern": "^[0-9a-f]{16,64}$",
            "description": "the tab's random id (16 to 64 hexadecimal digits)",
        }
    }
)
CLASS_LOAD = {
    "type": "object",
    "properties": {
        "readers": {"type": "integer", "minimum": 0},
        "trainers": {"type": "integer", "minimum": 0},
        "capacity": {"type": "integer", "minimum": 1},
        "capacity_while_dragging": {"type": "integer", "minimum": 0},
        "class_size": {"type": "integer", "minimum": 0},
        "over_capacity": {"type": "boolean"},
        "paced_trainers": {"type": "integer", "minimum": 0},
        "behind_pace": {"type": "integer", "minimum": 0},
        "delivered_steps_per_s": {"type": "number", "minimum": 0},
        "capacity_delivered": {
            "type": ["integer", "null"],
            "minimum": 1,
            "description": "sessions the measured steps would train at the watch pace, when "
            "some paced session falls behind (else null)",
        },
        "teaching": {"type": "boolean", "description": "a class with a teacher's view (/ws/class)"},
    },
    "required": ["readers", "capacity_while_dragging", "class_size", "over_capacity"],
}


def presence(app: FastAPI) -> Presence:
    """The app's reader table (made on first use: a test app may never run its lifespan)."""
    found = getattr(app.state, "presence", None)
    if found is None:
        limits: WebSettings = app.state.limits
        found = Presence(expiry_s=limits.reader_expiry_s, max_readers=limits.max_readers)
        app.state.presence = found
    return found


async def class_status(app: FastAPI) -> dict[str, Any]:
    """The training service's stats with the readers counted (both routes answer this)."""
    service: TrainingService = app.state.training
    return await service.stats(readers=presence(app).count())


def reader_id(raw: dict[str, Any]) -> str:
    if set(raw) != {"reader"} or not isinstance(raw["reader"], str):
        raise InputError(("body",), 'expected {"reader": "<the tab\'s id in hexadecimal>"}')
    return raw["reader"]


def presence_router() -> APIRouter:
    router = APIRouter(prefix="/api", tags=["training"])

    @router.post(
        "/presence",
        summary="A page is open: counted as a reader for a minute; answers the class load",
        openapi_extra={"requestBody": PRESENCE_BODY},
        responses={200: json_response("the class against the capacity", CLASS_LOAD)}
        | error_responses(413, why={422: "not {reader: id}, or an id that is not hexadecimal"}),
    )
    async def post_presence(request: Request) -> JSONResponse:
        limits: WebSettings = request.app.state.limits
        reader = reader_id(await body_settings(request, limits.max_body_bytes))
        try:
            presence(request.app).ping(reader)
        except ValueError as err:
            raise InputError(("body", "reader"), str(err)) from None
        teaching = limits.teacher_token is not None  # then the page joins the class (/ws/class)
        return JSONResponse({**await class_status(request.app), "teaching": teaching})

    return router
