"""`/api/tokens`: FIG 7's two answers that are not a pure function of its settings.

- `POST /api/tokens/frame`: the reader's own camera frame, `{"image": "<base64>"}` (a data URL's
  `data:image/…;base64,` prefix is allowed). The body is JSON, like every POST here, so the guard's
  rules (own Origin, `application/json`) hold for it unchanged. The image is decoded, checked and
  cut into patches by `attnlab.figures.tokens.frame_patches`; a bad one gets 413 or 422 with a
  sentence saying why. Answers are kept by content hash (a bounded cache). Memory is bounded
  by the work in flight (`UploadGate`): at most `DECODERS` uploads are read and decoded at once,
  taken in turn from before their body is read; `QUEUED` more wait (at most `WAIT_S`), any other
  gets 503 with Retry-After at once. Decoded buffers go back to the system when freed
  (`attnlab.memory`).
- `GET /api/tokens/timing?n=…&model=…`: one attention layer timed on this machine
  (`attnlab.nn.timing`, itself bounded: a fixed grid of token counts, each measured once).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from starlette.requests import ClientDisconnect

from attnlab.figures.tokens import PATCHES, frame_patches
from attnlab.frames import (
    MAX_BYTES,
    MAX_PIXELS,
    MEDIA_TYPES,
    UNTYPED,
    FrameError,
    check_media_type,
)
from attnlab.memory import map_large_buffers
from attnlab.nn.cost import MODEL_PRESETS
from attnlab.nn.timing import time_attention
from attnlab.params import Param, validate
from attnlab.plain import plain
from attnlab.web.inputs import InputError, body_settings, checked, error_response, query_settings
from attnlab.web.schemas import error_responses, json_object_body, json_response

# What `image` may hold, stated once for the server's check and the OpenAPI schema: base64 (4
# characters for 3 bytes, padded to a multiple of 4, not empty) of at most MAX_BYTES bytes, maybe
# after a data URL's head `data:<an image type we read>[;<a parameter>];base64,`.
MAX_BASE64 = -(-MAX_BYTES // 3) * 4
DATA_TYPES = (*MEDIA_TYPES, UNTYPED)  # what a data URL may declare (the bytes decide the format)
DATA_URL_PARAMS = 64  # one parameter a browser may add after the type (";name=frame.png")


def _any_case(text: str) -> str:
    """A pattern for `text` in any letter case (a JSON Schema pattern takes no flags)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in text)


DATA_URL = re.compile(  # media types are case-insensitive (RFC 2045)
    f"data:(?:{'|'.join(map(_any_case, DATA_TYPES))})(?:;[^,;]{{1,{DATA_URL_PARAMS}}})?;base64,"
)
BASE64 = "(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2}==)"
LONGEST_HEAD = f"data:{max(DATA_TYPES, key=len)};{'x' * DATA_URL_PARAMS};base64,"
MAX_IMAGE_CHARS = MAX_BASE64 + len(LONGEST_HEAD)
# the rest of the body is the JSON around the string
MAX_BODY_BYTES = MAX_IMAGE_CHARS + 1024
FRAME_CACHE = 16  # answers kept (each ~0.1 MB: the 224 × 224 PNG and five patch grids)
DECODERS = 2  # uploads read and decoded at once (a 4096² frame: ~100 MB while it is decoded)
QUEUED = 8  # uploads that may wait for their turn; past that, 503 at once
WAIT_S = 5.0  # how long an upload waits for its turn before it is told to come back
READ_S = 10.0  # an upload's body must arrive within this (a slow one would hold a turn)
RETRY_AFTER_S = 2  # what a 503 tells the client to wait
PEAK_MB_PER_TURN = 125  # the memory ceiling: what one turn may add (a 4096² PNG: ~70 MB measured)
_DECODING = ThreadPoolExecutor(DECODERS, thread_name_prefix="attnlab-decode")  # 2 heaps, not 40

TIMING_PARAMS: tuple[Param, ...] = (
    Param("n", "int", 256, "tokens n (timed at the nearest grid point below)", lo=1, hi=10**7),
    Param("model", "choice", "small", "model preset", choices=tuple(MODEL_PRESETS)),
)


_GRID = {"type": "object", "required": ["size", "rows", "cols", "count", "mean_rgb"]}
FRAME_ANSWER = {
    "type": "object",
    "required": ["image", "source", "grids"],
    "properties": {
        "image": {"type": "object", "required": ["size", "png"]},
        "source": {"type": "object", "required": ["width", "height", "format"]},
        "grids": {"type": "array", "items": _GRID, "minItems": len(PATCHES)},
    },
}
FRAME_BODY = json_object_body(
    {
        "image": {
            "type": "string",
            "description": "the image file (PNG, JPEG or WebP) in base64, or as a "
            f"data URL; at most {MAX_BYTES} bytes and {MAX_PIXELS} pixels",
            "minLength": 4,
            "maxLength": MAX_IMAGE_CHARS,
            "pattern": f"^(?:{DATA_URL.pattern})?{BASE64}$",
        }
    }
)
_RATE = {"type": "object", "required": ["seconds", "gflops", "of_matmul"]}
TIMING_ANSWER = {
    "type": "object",
    "required": ["n", "n_timed", "flops", "plain", "tiled", "matmul", "machine"],
    "properties": {
        "plain": _RATE,
        "tiled": {"anyOf": [_RATE, {"type": "null"}]},
        "matmul": {"type": "object", "required": ["n", "gflops"]},
        "machine": {"type": "object", "required": ["cpu", "cores", "numpy", "blas"]},
    },
}


class Busy(Exception):
    """Every turn is taken and the line is full (or the wait ran out): come back later."""


class UploadGate:
    """Turns for uploads: `decoders` at once, `queued` more waiting (each at most `wait_s`).

    A turn is taken before the body is read, so a waiting upload's bytes stay in the network
    buffers (the server stops reading a body it is not asked for), not in this process.
    """

    def __init__(self, decoders: int = DECODERS, queued: int = QUEUED, wait_s: float = WAIT_S):
        self.turns = asyncio.Semaphore(decoders)
        self.queued, self.wait_s = queued, wait_s
        self.waiting = 0

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Hold a turn for the `async with` body; Busy if none comes in time."""
        if self.turns.locked() and self.waiting >= self.queued:
            raise Busy
        self.waiting += 1
        try:
            await asyncio.wait_for(self.turns.acquire(), self.wait_s)
        except asyncio.TimeoutError:
            raise Busy from None
        finally:
            self.waiting -= 1
        try:
            yield
        finally:
            self.turns.release()


class FrameCache:
    """The last FRAME_CACHE answers by the image's SHA-256: sending the same image again costs
    no decoding."""

    def __init__(self, size: int = FRAME_CACHE) -> None:
        self.size = size
        self.answers: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, data: bytes) -> dict[str, Any]:
        key = hashlib.sha256(data).hexdigest()
        with self.lock:
            if key in self.answers:
                self.answers.move_to_end(key)
                return self.answers[key]
        answer = plain(frame_patches(data))
        with self.lock:
            self.answers[key] = answer
            while len(self.answers) > self.size:
                self.answers.popitem(last=False)
        return answer


def image_bytes(raw: dict[str, Any]) -> bytes:
    """The file in a `{"image": "<base64>"}` body, or an InputError saying what is wrong."""
    where = ("body", "image")
    if set(raw) != {"image"}:
        raise InputError(("body",), 'expected {"image": "<the image file in base64>"}')
    text = raw["image"]
    if not isinstance(text, str):
        raise InputError(where, "image: expected a base64 string")
    if len(text) > MAX_IMAGE_CHARS:
        raise InputError(where, f"image: larger than {MAX_BYTES} bytes", status=413)
    if text.startswith("data:"):
        head = DATA_URL.match(text)
        if head is None:
            raise InputError(where, f"image: {_data_url_fault(text)}")
        text = text[head.end() :]
    if len(text) > MAX_BASE64:
        raise InputError(where, f"image: larger than {MAX_BYTES} bytes", status=413)
    return _base64_bytes(text, where)


def _data_url_fault(text: str) -> str:
    """What is wrong with a data URL's head that DATA_URL refused: its type, or its form."""
    declared = text.removeprefix("data:").split(",", 1)[0].split(";")[0]
    try:
        check_media_type(declared)  # a type it declares is an image type we read, or none
    except FrameError as err:
        return str(err)
    return "a data URL must be base64 (data:image/png;base64,…)"


def _base64_bytes(text: str, where: tuple[str, ...]) -> bytes:
    """The bytes of non-empty, padded base64 `text` (the schema's BASE64, checked in C: a regular
    expression takes ~0.5 s of CPU over 8 MB)."""
    if not text:
        raise InputError(where, "image: empty; expected the image file in base64")
    try:
        if len(text) % 4:
            raise ValueError("not padded to a multiple of 4 characters")
        return base64.b64decode(text, validate=True)  # the alphabet, "=" only at the end
    except (binascii.Error, ValueError):
        raise InputError(where, "image: not valid base64") from None


def tokens_router(limit_bytes: int = MAX_BODY_BYTES) -> APIRouter:
    router = APIRouter(prefix="/api/tokens", tags=["figures"])
    cache, gate = FrameCache(), UploadGate()
    map_large_buffers()  # a decoded frame's memory goes back to the system when freed

    @router.post(
        "/frame",
        summary="The reader's camera frame, cut to 224 × 224 and into patches (FIG 7)",
        openapi_extra={"requestBody": FRAME_BODY},
        responses={200: json_response("the frame and its patch grids", FRAME_ANSWER)}
        | error_responses(
            why={
                413: f"the image is over {MAX_BYTES} bytes or {MAX_PIXELS} pixels",
                422: "not JSON of that shape, not base64, or not a PNG, JPEG or WebP image",
                408: f"the body did not arrive within {READ_S:g} s",
                503: "the server is decoding other images: try again after Retry-After seconds",
            }
        ),
    )
    async def post_frame(request: Request) -> Response:
        try:
            async with gate.turn():
                return JSONResponse(await _frame_answer(request, cache, limit_bytes))
        except Busy:
            busy = InputError(("body", "image"), "the server is decoding other images", status=503)
            return error_response(busy, headers={"retry-after": str(RETRY_AFTER_S)})
        except ClientDisconnect:
            return Response(status_code=400)  # nobody reads it: the client has gone

    @router.get(
        "/timing",
        summary="One attention layer timed on this machine, beside its FLOPs (FIG 7)",
        openapi_extra={"parameters": _timing_parameters()},
        responses={200: json_response("the timing and the machine", TIMING_ANSWER)}
        | error_responses(why={422: "n out of range, or an unknown model or setting"}),
    )
    async def get_timing(request: Request) -> JSONResponse:
        settings = checked("query", validate, TIMING_PARAMS, query_settings(request))
        answer = await run_in_threadpool(time_attention, settings["n"], settings["model"])
        return JSONResponse(plain(answer))

    return router


async def _frame_answer(request: Request, cache: FrameCache, limit_bytes: int) -> dict[str, Any]:
    """The frame's answer, its body read within READ_S and decoded on a decoding thread."""
    try:
        raw = await asyncio.wait_for(body_settings(request, limit_bytes), READ_S)
    except asyncio.TimeoutError:
        raise InputError(("body",), f"the body took longer than {READ_S:g} s", status=408) from None
    data = image_bytes(raw)
    del raw  # its base64 text is 4/3 of the file: not kept while the image is decoded
    try:
        return await asyncio.get_running_loop().run_in_executor(_DECODING, cache.get, data)
    except FrameError as err:
        raise InputError(("body", "image"), f"image: {err}", status=err.status) from None


def _timing_parameters() -> list[dict[str, Any]]:
    n, model = TIMING_PARAMS
    return [
        {"name": "n", "in": "query", "required": False, "description": n.help,
         "schema": {"type": "integer", "minimum": n.lo, "maximum": n.hi, "default": n.default}},
        {"name": "model", "in": "query", "required": False, "description": model.help,
         "schema": {"enum": list(model.choices), "default": model.default}},
    ]  # fmt: skip
