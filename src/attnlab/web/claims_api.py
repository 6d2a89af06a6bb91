"""`/api/claims`: the lesson's numbers as measured by our engine (ids from shared/CLAIMS.md).

The page shows each claim beside the text that states it. `attnlab.claims.run_claims` caches
every result (the engine is deterministic for fixed seeds), so only the first request pays; a
lock makes concurrent first requests wait for that one run instead of repeating it.
"""

from __future__ import annotations

import threading

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse

from attnlab.params import Param, validate
from attnlab.plain import plain
from attnlab.web.inputs import checked, query_settings

FULL = Param("full", "bool", False, "also run the slow multi-seed sweeps")
_QUERY = [
    {"name": "full", "in": "query", "required": False, "schema": {"type": "boolean"}},
    {
        "name": "only",
        "in": "query",
        "required": False,
        "description": "comma-separated claim ids (all when absent), e.g. F1.1,F2.2",
        "schema": {"type": "string", "pattern": r"^[A-Z][0-9.]+(,[A-Z][0-9.]+)*$"},
    },
]

# One lock per mode: a minutes-long `full` sweep must not hold up the fast claims.
_LOCKS = {False: threading.Lock(), True: threading.Lock()}


def claims_router() -> APIRouter:
    router = APIRouter(prefix="/api", tags=["claims"])

    summary = "The lesson's claims, measured (fast checks unless full=true)"

    @router.get("/claims", summary=summary, openapi_extra={"parameters": _QUERY})
    def claims(request: Request) -> JSONResponse:
        raw = query_settings(request)
        only = raw.pop("only", "")
        full = checked("query", validate, (FULL,), raw)["full"]
        ids = [i for i in only.split(",") if i.strip()] or None
        return JSONResponse(plain([r.to_dict() for r in _run(ids, full)]))

    return router


def _run(ids: list[str] | None, full: bool) -> list:
    try:
        from attnlab.claims import run_claims  # the registry imports every figure's checks
    except ImportError as err:
        raise HTTPException(503, f"claims are not available: {err}") from None
    with _LOCKS[full]:
        try:
            return checked("query", run_claims, ids, full)
        except ImportError as err:  # a claims module not written yet
            raise HTTPException(503, f"claims are not available: {err}") from None
