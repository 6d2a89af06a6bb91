"""Shared by the web tests: a TestClient per app, apps with small limits."""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urljoin

import pytest

from attnlab.web import WebSettings, create_app
from tests.kept import kept_measurements

# Starlette warns (at import) that its TestClient prefers the `httpx2` package; this project pins
# `httpx`. The warning is about packaging, not about our code, so it is silenced for this import.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

MakeClient = Callable[..., TestClient]
# The guard answers only our own host names, and our POSTs only as JSON (`attnlab.web.guard`):
# test clients ask as the page does, under 127.0.0.1 and with JSON bodies.
LOCAL = {"base_url": "http://127.0.0.1:8000", "headers": {"content-type": "application/json"}}


class LocalClient(TestClient):
    """A TestClient that talks to `app` as the lesson's own page would."""

    def __init__(self, app: Any, **kw: Any) -> None:
        super().__init__(app, **{**LOCAL, **kw})

    def websocket_connect(self, url: str, *args: Any, **kw: Any) -> Any:
        # Starlette joins a relative socket URL to ws://testserver whatever the base_url.
        return super().websocket_connect(urljoin("ws://127.0.0.1:8000", url), *args, **kw)


@pytest.fixture
def make_client() -> Iterator[MakeClient]:
    """`make_client(**limits)` → a TestClient on a fresh app with those WebSettings."""
    with contextlib.ExitStack() as stack:

        def make(**limits: Any) -> TestClient:
            # Entered: one event loop for all of a client's requests (not one per request).
            return stack.enter_context(LocalClient(create_app(WebSettings(**limits))))

        yield make


@pytest.fixture(scope="session")
def client() -> Iterator[TestClient]:
    """The app with its default limits, shared: requests leave no state behind."""
    app = create_app()
    app.state.measurements = kept_measurements()  # measured once for this process's servers
    with LocalClient(app) as shared:
        yield shared


def _wait_until(condition: Callable[[], bool], timeout: float = 3.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


@pytest.fixture
def wait_until() -> Callable[..., bool]:
    """Poll `condition()` until true or `timeout` seconds pass (the app runs in another thread)."""
    return _wait_until
