"""Client input → raw settings, and every refusal → a JSON answer (never a 500).

Handlers read raw settings with `query_settings` / `body_settings` and leave checking to
`attnlab.params.validate`; whatever is wrong becomes an `InputError`, which the app answers as
`{"detail": [{"loc": [...], "msg": "...", "type": "value_error"}]}` — the shape FastAPI uses for
its own validation errors, so the page reads one format.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import Request
from fastapi.responses import JSONResponse

from attnlab.params import ParamError

T = TypeVar("T")

# JSON integers longer than this are read as floats: `float(10**400)` raises OverflowError
# (which `params.validate` does not expect), while `float("1" * 400)` is inf, which it refuses.
_MAX_INT_DIGITS = 18


class InputError(Exception):
    """Bad client input: where it was (`loc`, e.g. ("query", "d_k")) and what was wrong."""

    def __init__(self, loc: tuple[str, ...], msg: str, *, status: int = 422) -> None:
        super().__init__(msg)
        self.loc = loc
        self.msg = msg
        self.status = status


def error_response(err: InputError, headers: dict[str, str] | None = None) -> JSONResponse:
    detail = [{"loc": printable(list(err.loc)), "msg": printable(err.msg), "type": "value_error"}]
    return JSONResponse({"detail": detail}, status_code=err.status, headers=headers)


def printable(value: Any) -> Any:
    """`value` with every string made encodable: what UTF-8 cannot hold is written as an escape.

    A JSON body may carry a lone surrogate ("\\ud800"); echoed into a message unchanged, it
    would make encoding the answer fail (a 500) instead of telling the client what was wrong.
    """
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, list | tuple):
        return [printable(v) for v in value]
    return value


def checked(where: str, fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)`, with a ParamError turned into an InputError at `where` ("query"/"body")."""
    try:
        return fn(*args)
    except ParamError as err:
        raise InputError((where, err.name), str(err)) from err


def query_settings(request: Request) -> dict[str, str]:
    """`?d_k=64&scaled=false` → {"d_k": "64", "scaled": "false"}; a repeated key is refused."""
    out: dict[str, str] = {}
    for name, value in request.query_params.multi_items():
        if name in out:
            raise InputError(("query", name), f"{name}: given more than once")
        out[name] = value
    return out


def parse_json(text: bytes | str, where: tuple[str, ...] = ("body",)) -> Any:
    """JSON → Python, with every way of being malformed turned into an InputError."""
    try:
        return json.loads(text, parse_int=_json_int)
    except (ValueError, RecursionError) as err:  # UnicodeDecodeError is a ValueError
        raise InputError(where, f"invalid JSON: {err}") from None


def _json_int(digits: str) -> int | float:
    return int(digits) if len(digits.lstrip("-")) <= _MAX_INT_DIGITS else float(digits)


async def body_settings(request: Request, max_bytes: int) -> dict[str, Any]:
    """A JSON object body → raw settings; an empty body (no bytes) means "all defaults".

    A body of only whitespace is not empty: it is not JSON, and is refused like any other text
    that is not, so what a route accepts is exactly what its OpenAPI description says.
    """
    body = await _read_capped(request, max_bytes)
    if not body:
        return {}
    raw = parse_json(body)
    if not isinstance(raw, dict):
        raise InputError(("body",), 'expected a JSON object of settings, e.g. {"d_k": 64}')
    return raw


async def _read_capped(request: Request, max_bytes: int) -> bytes:
    # Checked twice: the declared length (cheap) and the bytes actually read (honest).
    declared = request.headers.get("content-length", "0")
    if declared.isdigit() and int(declared) > max_bytes:
        raise InputError(("body",), f"body larger than {max_bytes} bytes", status=413)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise InputError(("body",), f"body larger than {max_bytes} bytes", status=413)
        chunks.append(chunk)
    return b"".join(chunks)
