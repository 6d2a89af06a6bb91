"""A check shared by the tests of answers that are gzipped once for every reader."""

from __future__ import annotations

import gzip
from typing import Any

import attnlab.web.revalidate as revalidate

GZIP = {"accept-encoding": "gzip"}


def assert_packed_once(client: Any, path: str, monkeypatch: Any) -> None:
    """`path` is sent gzipped, the second time without packing it again (not compressed per
    request), and a reader without gzip gets the same JSON."""
    packed: list[int] = []
    real = gzip.compress
    monkeypatch.setattr(
        revalidate.gzip, "compress", lambda b, **kw: packed.append(len(b)) or real(b, **kw)
    )
    first = client.get(path, headers=GZIP)
    before = len(packed)
    again = client.get(path, headers=GZIP)
    plain = client.get(path, headers={"accept-encoding": "identity"})
    assert first.headers["content-encoding"] == again.headers["content-encoding"] == "gzip"
    assert "content-encoding" not in plain.headers
    assert first.json() == again.json() == plain.json()
    assert len(packed) == before, f"{path} was packed again"
