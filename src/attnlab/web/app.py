"""The local lesson server: the page, the figures' data, the claims and live training.

Every number the page shows is computed here by the Python engine; the browser only draws.
Data flows one way: reader's action → page state (URL) → this API → engine → plain data → view.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.middleware.gzip import GZipMiddleware

from attnlab import __version__
from attnlab.figures import figure_modules
from attnlab.trainpool.service import TrainingService
from attnlab.web.claims_api import claims_router
from attnlab.web.class_socket import class_router, close_class_store
from attnlab.web.config import WebSettings
from attnlab.web.figure_delay import FigureDelay
from attnlab.web.figures_api import figures_router
from attnlab.web.guard import Guard, document_refusals
from attnlab.web.health_api import health_router
from attnlab.web.inputs import InputError, error_response, printable
from attnlab.web.lesson_api import lesson_router
from attnlab.web.methods import MethodsMiddleware
from attnlab.web.page_html import LessonPage
from attnlab.web.presence_api import presence_router
from attnlab.web.readercost import figure_request_cpu_s
from attnlab.web.revalidate import GZIP_MIN_BYTES
from attnlab.web.static_files import LessonStaticFiles
from attnlab.web.strings_api import strings_router
from attnlab.web.teach_api import teach_router
from attnlab.web.teach_seeds import seeds_router, stop_sweeps
from attnlab.web.teacher_gate import TeacherGate
from attnlab.web.tokens_api import tokens_router
from attnlab.web.training_socket import training_router

log = logging.getLogger("attnlab.web")
GZIP_LEVEL = 6  # level 9 costs about twice the CPU for 1 % fewer bytes on the lesson's JSON


def create_app(settings: WebSettings | None = None) -> FastAPI:
    """The lesson's web app; `settings` holds the limits (tests pass small ones)."""
    limits = settings or WebSettings()
    training = TrainingService(
        frame_s=limits.frame_s,
        workers=limits.train_workers,
        capacity=limits.train_capacity,
        server_processes=limits.server_processes,
        factory=limits.trainer_factory,
        request_cost=lambda: figure_request_cpu_s(figure_modules(), app),  # readers count too
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        training.start()  # the worker processes start and the capacity is logged, meanwhile
        try:
            yield
        finally:
            await stop_sweeps(app)  # "one seed each"'s processes: they must not hold the exit
            training.stop()
            await close_class_store(app)  # Redis's connections and pub/sub listener, if any

    app = FastAPI(
        lifespan=lifespan,
        title="attnlab",
        version=__version__,
        summary="An interactive lesson on attention and Transformers: the engine behind the page.",
        # The interactive docs pages load their scripts from a CDN; the lesson makes no request
        # beyond 127.0.0.1, so only the description itself is served (/openapi.json).
        docs_url=None,
        redoc_url=None,
    )
    app.state.limits = limits
    app.state.training = training
    app.include_router(figures_router(figure_modules(), limits))
    app.include_router(claims_router())
    app.include_router(lesson_router())
    app.include_router(
        strings_router(limits.static_dir / "i18n")
    )  # the page's strings, one language
    app.include_router(tokens_router())  # FIG 7: the reader's frame, the timed layer
    app.include_router(training_router())
    app.include_router(health_router())  # GET /healthz, for a service manager or a monitor
    app.include_router(presence_router())  # pages say they are open: readers in the capacity
    app.include_router(class_router())  # a learner's page in a class (/ws/class)
    app.include_router(teach_router())  # the teacher's view: its page, API and socket
    app.include_router(seeds_router())  # and its "one seed each"
    _add_error_handlers(app)
    app.add_middleware(MethodsMiddleware)  # HEAD, OPTIONS and a true Allow on every route
    _add_page(app, limits)
    if limits.figure_delay_s:  # tests only: a slow server for the page's drags
        app.add_middleware(FigureDelay, delay_s=limits.figure_delay_s)
    # Text answers (the lesson, strings, figures' data) gzipped for a browser that accepts it;
    # the training socket, fonts and the bundle's own .gz files pass through as they are.
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES, compresslevel=GZIP_LEVEL)
    app.add_middleware(TeacherGate, settings=limits)  # the teacher's routes: their token only
    app.add_middleware(Guard, settings=limits)  # outside every route and the socket
    document_refusals(app)
    return app


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(InputError)
    async def input_error(_: Request, err: InputError) -> JSONResponse:
        return error_response(err)

    @app.exception_handler(RequestValidationError)
    async def request_error(_: Request, err: RequestValidationError) -> JSONResponse:
        # FastAPI's own shape, minus the echoed input (it may be large or not JSON-safe).
        detail = [
            {k: printable(e[k]) for k in ("loc", "msg", "type") if k in e} for e in err.errors()
        ]
        return JSONResponse({"detail": detail}, status_code=422)

    @app.exception_handler(UnicodeError)
    async def unencodable(_: Request, err: UnicodeError) -> JSONResponse:
        # Text that is not Unicode (a lone surrogate such as "\ud800" in a JSON string) reached
        # an answer: it came from the client, so the client is told, not a 500.
        log.info("refused text that cannot be encoded: %s", printable(str(err)))
        msg = "the input holds text that is not valid Unicode (e.g. a lone surrogate)"
        return error_response(InputError(("body",), msg, status=400))

    @app.exception_handler(Exception)
    async def server_error(_: Request, err: Exception) -> JSONResponse:
        # A bug, not an input: still a JSON answer the page can show (Starlette logs the error).
        return JSONResponse({"detail": "internal error (logged on the server)"}, 500)


def _add_page(app: FastAPI, limits: WebSettings) -> None:
    static = limits.static_dir
    if not static.is_dir():
        log.warning("no page files at %s: only the API is served", static)
        return
    app.mount("/static", LessonStaticFiles(directory=static), name="static")
    page = LessonPage(static, sources=limits.page_sources)

    @app.get("/", include_in_schema=False)
    def index(request: Request) -> Response:
        if not page.path.is_file():
            return JSONResponse({"detail": "the page (static/index.html) is missing"}, 404)
        return page.response(request)
