"""Figure answers as the routes send them: encoded once, shared by every reader who asks.

`FigureAnswers.encoded(name, raw, source)` validates the settings (an InputError for bad ones),
then answers from the AnswerCache by figure and canonical settings (the checked values, so
"64" in a URL and 64 in a JSON body are one entry). `at_defaults()` is every figure at its
default settings in one JSON object, what a page opening the lesson asks first: computed once
per process (the engine is deterministic) and kept gzipped, with its ETag.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fastapi.responses import JSONResponse

from attnlab.figures import figure_json, figure_module
from attnlab.params import Source, validate
from attnlab.web.answer_cache import AnswerCache
from attnlab.web.inputs import checked
from attnlab.web.revalidate import GZIP_MIN_BYTES, etag_of, pack

# A drag's answer is packed once and sent to few: level 1 makes it 2–4 times faster than level
# 6 for 5–10 % more bytes on the lesson's JSON (benchmarks/figure_gzip.py), nginx's own default
ANSWER_GZIP_LEVEL = 1


@dataclass(frozen=True)
class Packed:
    """One answer body, its gzip (made once) and its ETag."""

    body: bytes
    gzipped: bytes
    etag: str


def encode(answer: Any) -> bytes:
    """JSON bytes as every figure route sends them (JSONResponse's encoding)."""
    return JSONResponse(answer).body


class FigureAnswers:
    def __init__(self, names: Iterable[str], cache: AnswerCache) -> None:
        self.names = tuple(names)
        self.cache = cache
        self._defaults: Packed | None = None
        self._defaults_lock = threading.Lock()

    def encoded(self, name: str, raw: dict[str, Any], source: Source, where: str) -> bytes:
        key = self._key(name, raw, source, where)
        return self.cache.get(key, lambda: figure_json(name, raw, source))

    def answer(
        self, name: str, raw: dict[str, Any], source: Source, where: str, *, gzip_ok: bool
    ) -> tuple[bytes, bool]:
        """(bytes, whether they are gzipped): the answer as `encoded`, and packed with gzip when
        the reader accepts it and it is worth packing. The packed bytes are kept in the cache
        beside the answer (made once for everyone who asks), at ANSWER_GZIP_LEVEL."""
        key = self._key(name, raw, source, where)
        body = self.cache.get(key, lambda: figure_json(name, raw, source))
        if not gzip_ok or len(body) < GZIP_MIN_BYTES:
            return body, False
        return self.cache.get((*key, "gzip"), lambda: pack(body, ANSWER_GZIP_LEVEL)), True

    @staticmethod
    def _key(name: str, raw: dict[str, Any], source: Source, where: str) -> tuple[str, str]:
        settings = checked(where, validate, figure_module(name).PARAMS, raw, source)
        return name, json.dumps(settings, sort_keys=True, default=str)

    def at_defaults(self) -> Packed:
        """{name: answer at the defaults, …} in lesson order; computed once (single flight)."""
        with self._defaults_lock:  # the first page computes, the others wait for it
            if self._defaults is None:
                parts = [
                    json.dumps(name).encode() + b":" + self.encoded(name, {}, "json", "query")
                    for name in self.names
                ]
                body = b"{" + b",".join(parts) + b"}"
                packed = pack(body)
                self._defaults = Packed(body, packed, etag_of(body))
            return self._defaults
