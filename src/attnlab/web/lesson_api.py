"""`/api/lesson/{lang}`: the lesson's text for the page; `/api/claims/measured` and
`/api/claims/rerun`: the numbers behind it, measured in the background (claims/runner.py).

The text never waits for the engine. It comes with every number as a slot (`attnlab.lesson`,
slots=True), pre-filled with the values measured so far; the page fills the others from
`/api/claims/measured` as they arrive. The text for a language and the values measured so far
is built once and kept a few seconds (web/answer_cache.py): a class opening the page at once
costs one build, not forty. The router's lifespan starts measuring when the server
starts, so the numbers are usually there before a reader has scrolled to them; the few that need
a seed sweep are measured once a page has asked for the text.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import lru_cache
from typing import Annotated, Any, Literal, get_args

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response

from attnlab.lesson import load_lesson, placeholders
from attnlab.plain import plain
from attnlab.web.answer_cache import AnswerCache
from attnlab.web.claims_api import runner
from attnlab.web.figure_answers import encode
from attnlab.web.revalidate import accepts_gzip, pack, packed_json
from attnlab.web.schemas import SNAPSHOT, error_responses, json_response, schema_of

Lang = Literal["en", "zh"]
TEXTS_KEPT = 8  # (language, values) answers: each about 0.12 MB
TEXT_KEPT_S = 15.0


@lru_cache(maxsize=1)
def lesson_schema() -> dict[str, Any]:
    """JSON Schema of the lesson's answer, derived from both languages' text (no values yet)."""
    return schema_of([_lesson_answer(lang, {}) for lang in get_args(Lang)])


def _lesson_answer(lang: str, values: dict[str, dict[str, Any]]) -> dict[str, Any]:
    data = load_lesson(lang, values, slots=True)
    data["needs"] = sorted(placeholders(lang))
    return plain(data)


@asynccontextmanager
async def _measure_from_startup(app: FastAPI) -> AsyncIterator[None]:
    measured = runner(app)
    measured.start()
    try:
        yield
    finally:
        measured.close()


def lesson_router() -> APIRouter:
    router = APIRouter(prefix="/api", tags=["lesson"], lifespan=_measure_from_startup)

    text = json_response("the lesson: sections, glossary, try-its", lesson_schema())
    built = AnswerCache(  # each text beside its gzip
        max_entries=2 * TEXTS_KEPT, max_bytes=TEXTS_KEPT * 2**20, ttl_s=TEXT_KEPT_S
    )

    @router.get(
        "/lesson/{lang}",
        summary="The lesson's text, numbers as slots (en or zh)",
        responses={200: text} | error_responses(422),
    )
    async def lesson(lang: Lang, request: Request) -> Response:
        measured = runner(request.app)
        measured.want_sweeps()  # a reader is here: the text's seed-sweep numbers are wanted now
        values = measured.values()
        key = (lang, json.dumps(values, sort_keys=True, default=str))
        body = await run_in_threadpool(built.get, key, lambda: encode(_lesson_answer(lang, values)))
        if not accepts_gzip(request):
            return packed_json(body, gzipped=False)
        # packed once for the class (9 ms a page at level 6 when the middleware did it)
        gzipped = await run_in_threadpool(built.get, (*key, "gzip"), lambda: pack(body))
        return packed_json(gzipped, gzipped=True)

    @router.get(
        "/claims/measured",
        summary="The claims measured so far, without waiting",
        responses={200: SNAPSHOT} | error_responses(422),
    )
    def measured(
        request: Request,
        since: Annotated[int, Query(ge=0, description="only results after this seq")] = 0,
    ) -> JSONResponse:
        return JSONResponse(plain(runner(request.app).snapshot(since)))

    @router.post(
        "/claims/rerun",
        status_code=202,
        summary="Measure the fast claims again from scratch (409 while a run is going on)",
        responses={202: SNAPSHOT} | error_responses(409),
    )
    def rerun(request: Request) -> JSONResponse:
        measured = runner(request.app)
        if not measured.start(fresh=True):
            state = measured.snapshot()["state"] or {}
            where = f" ({state.get('current')}, {state.get('done')} of {state.get('total')})"
            message = "the claims are being measured now" + (where if state.get("current") else "")
            return JSONResponse({"detail": message + "; try again when that run ends"}, 409)
        return JSONResponse(plain(measured.snapshot()), 202)

    return router
