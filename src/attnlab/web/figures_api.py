"""`/api/figures`: every figure's description, and its data for given settings.

Handlers are thin: read the raw settings, let `attnlab.figures.compute_figure` validate and
compute, return its plain data. Each figure gets its own GET and POST route so that
`/openapi.json` shows its typed, bounded settings; a catch-all answers unknown names with 404.
Answers come through `FigureAnswers` (figure_answers.py): asked for by anyone in the last
seconds, they are sent again without a compute. `GET /api/figures-at-defaults` is every figure
at its defaults in one answer, what a page opening the lesson needs first.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response

from attnlab.figures import describe_figure
from attnlab.params import Source
from attnlab.web.answer_cache import AnswerCache
from attnlab.web.config import WebSettings
from attnlab.web.figure_answers import FigureAnswers
from attnlab.web.inputs import body_settings, query_settings
from attnlab.web.revalidate import accepts_gzip, packed_json, revalidated
from attnlab.web.schemas import (
    error_responses,
    figure_answer_schema,
    json_response,
    query_parameters,
    request_body,
    settings_model,
)
from attnlab.web.warm import WarmFigures


def figures_router(figures: dict[str, ModuleType], limits: WebSettings) -> APIRouter:
    router = APIRouter(prefix="/api", tags=["figures"])
    listing = [describe_figure(name) for name in figures]
    listing_schema = {"type": "array", "items": {"type": "object", "required": list(listing[0])}}
    cache = AnswerCache(
        max_entries=limits.answer_cache_entries,
        max_bytes=limits.answer_cache_bytes,
        ttl_s=limits.answer_cache_s,
    )
    answers = FigureAnswers(figures, cache)

    @router.get(
        "/figures",
        summary="Every figure: its number, section, settings (defaults, ranges) and constants",
        responses={200: json_response("every figure's settings", listing_schema)}
        | error_responses(),
    )
    def list_figures() -> JSONResponse:
        return JSONResponse(listing)

    @router.get(
        "/figures-at-defaults",
        summary="Every figure's data at its default settings, in one answer (a page's first)",
        responses={200: json_response("{figure: its answer at the defaults}", {"type": "object"})}
        | error_responses(),
    )
    def at_defaults(request: Request) -> Response:
        packed = answers.at_defaults()
        return revalidated(
            request,
            packed.body,
            media_type="application/json",
            etag=packed.etag,
            gzipped=packed.gzipped,
        )

    warm = WarmFigures()  # which answers are cheap enough for the event loop (web/warm.py)
    for name, module in figures.items():
        _add_figure_routes(router, name, module, limits, answers, warm)

    @router.api_route("/figures/{name}", methods=["GET", "POST"], include_in_schema=False)
    async def unknown_figure(name: str) -> None:  # async: no thread for a 404
        raise HTTPException(404, f"unknown figure {name!r}; one of {', '.join(figures)}")

    return router


def _add_figure_routes(
    router: APIRouter,
    name: str,
    module: ModuleType,
    limits: WebSettings,
    answers: FigureAnswers,
    warm: WarmFigures,
) -> None:
    model = settings_model(name, module.PARAMS)
    summary = (module.__doc__ or name).strip().splitlines()[0]

    async def respond(
        request: Request, raw: dict[str, Any], source: Source, where: str
    ) -> Response:
        """Warm answers on the loop (a few tenths of a ms, or the cache's: less than the hop to
        the thread pool); the others in the pool."""
        gzip_ok = accepts_gzip(request)
        if warm.warm(name, raw):
            body, gzipped = answers.answer(name, raw, source, where, gzip_ok=gzip_ok)
        else:
            body, gzipped = await run_in_threadpool(
                lambda: answers.answer(name, raw, source, where, gzip_ok=gzip_ok)
            )
            warm.answered(name, raw)
        return packed_json(body, gzipped=gzipped)

    async def get_figure(request: Request) -> Response:
        return await respond(request, query_settings(request), "text", "query")

    async def post_figure(request: Request) -> Response:
        raw: dict[str, Any] = await body_settings(request, limits.max_body_bytes)
        return await respond(request, raw, "json", "body")

    path = f"/figures/{name}"
    answer = {200: json_response(f"the {name} figure's data", figure_answer_schema(name))}
    extra_get = {"parameters": query_parameters(model, module.PARAMS)}
    extra_post = {"requestBody": request_body(model)}
    router.add_api_route(
        path,
        get_figure,
        methods=["GET"],
        summary=summary,
        openapi_extra=extra_get,
        responses=answer | error_responses(422),
    )
    router.add_api_route(
        path,
        post_figure,
        methods=["POST"],
        summary=summary,
        openapi_extra=extra_post,
        responses=answer | error_responses(413, 422),
    )
