"""`GET /healthz`: is this server process serving, and can it take learners who train?

For a service manager, a monitor or a load balancer (README: "Run it as a service"). It answers
200 when the app serves and its training workers run with their capacity known, and 503 while
they are still starting (spawning and timing themselves, a few seconds) or when one is not
running or they failed to start: a probe reads the status code, a person the body. It does no
engine work and asks no worker anything, so it stays cheap and answers while every worker
trains. It passes the guard like every route: from this machine it needs no token.
"""

from __future__ import annotations

import os
import time

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from attnlab import __version__
from attnlab.trainpool.health import State, TrainingHealth
from attnlab.trainpool.service import TrainingService

NOT_READY = 503  # "starting" and "degraded": a load balancer sends no learner here
NO_STORE = {"cache-control": "no-store"}  # a probe must never read a cached answer


class ClaimsHealth(BaseModel):
    measuring: bool = Field(description="the claims runner is measuring now")


class Health(BaseModel):
    """What one server process says of itself (with `--workers N`, whichever one answered)."""

    status: State = Field(description="training's state: ok (200), starting or degraded (503)")
    version: str
    uptime_s: float = Field(ge=0, description="seconds since this server process built the app")
    pid: int = Field(description="the server process that answered")
    server_processes: int = Field(ge=1, description="server processes sharing the port")
    training: TrainingHealth
    claims: ClaimsHealth | None = Field(description="null before the start-up has run")


_RESPONSES: dict[int | str, dict[str, object]] = {
    200: {"model": Health, "description": "serving, training workers up, capacity known"},
    NOT_READY: {"model": Health, "description": "training is starting, or degraded (see problem)"},
}


def health_router() -> APIRouter:
    router = APIRouter(tags=["service"])
    built = time.monotonic()

    @router.get("/healthz", summary="Liveness and readiness", responses=_RESPONSES)
    async def healthz(request: Request) -> JSONResponse:  # on the loop: admission lives there
        service: TrainingService = request.app.state.training
        answer = _health(request, service.health(), time.monotonic() - built)
        code = 200 if answer.status == "ok" else NOT_READY
        return JSONResponse(answer.model_dump(mode="json"), code, headers=NO_STORE)

    return router


def _health(request: Request, training: TrainingHealth, uptime_s: float) -> Health:
    runner = getattr(request.app.state, "measurements", None)  # made at start-up
    return Health(
        status=training.state,
        version=__version__,
        uptime_s=round(uptime_s, 3),
        pid=os.getpid(),
        server_processes=request.app.state.limits.server_processes,
        training=training,
        claims=None if runner is None else ClaimsHealth(measuring=runner.running),
    )
