"""`/api/claims`: the lesson's numbers as measured by our engine (ids from shared/CLAIMS.md).

The handler never measures: it asks the server's claims runner (`attnlab.claims.runner`), which
answers what it has measured at once (200) and queues the rest for its one worker thread (202:
ask again after `Retry-After` seconds). So a slow `full=true` sweep holds no request thread.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse

from attnlab.claims import all_checks
from attnlab.claims.runner import Measurements
from attnlab.params import Param, validate
from attnlab.plain import plain
from attnlab.web.inputs import InputError, checked, query_settings
from attnlab.web.schemas import CLAIM_LIST, MEASURING_LATER, error_responses

FULL = Param("full", "bool", False, "also run the slow multi-seed sweeps")


def _query(ids: list[str]) -> list[dict[str, Any]]:
    """`full` and `only` (comma-separated claim ids, OpenAPI's form style without explode)."""
    return [
        {"name": "full", "in": "query", "required": False, "schema": {"type": "boolean"}},
        {
            "name": "only",
            "in": "query",
            "required": False,
            "description": "comma-separated claim ids (all when absent), e.g. F1.1,F2.2",
            "style": "form",
            "explode": False,
            "schema": {"type": "array", "items": {"enum": ids}, "minItems": 1},
        },
    ]


RETRY_AFTER_S = 1


def runner(app: FastAPI) -> Measurements:
    """The app's claims runner (made on first use if the lifespan has not run, e.g. in a test)."""
    found = getattr(app.state, "measurements", None)
    if found is None:
        found = app.state.measurements = Measurements()
    return found


def claims_router() -> APIRouter:
    router = APIRouter(prefix="/api", tags=["claims"])

    summary = "The lesson's claims, measured (fast checks unless full=true); 202: ask again"
    responses = error_responses(422) | {200: CLAIM_LIST, 202: MEASURING_LATER}
    extra = {"parameters": _query(list(all_checks()))}

    @router.get("/claims", summary=summary, openapi_extra=extra, responses=responses)
    async def claims(request: Request) -> JSONResponse:
        raw = query_settings(request)
        only = raw.pop("only", None)
        full = checked("query", validate, (FULL,), raw)["full"]
        ids = None if only is None else only.split(",")
        if ids is not None and not all(i.strip() for i in ids):
            raise InputError(("query", "only"), "only: expected claim ids separated by commas")
        results, pending = checked("query", runner(request.app).answer, ids, full)
        if pending:
            body = {"pending": pending, "detail": "being measured; ask again shortly"}
            return JSONResponse(body, 202, headers={"Retry-After": str(RETRY_AFTER_S)})
        return JSONResponse(plain(results))

    return router
