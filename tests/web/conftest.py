"""Shared by the web tests: a TestClient per app, apps with small limits."""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from attnlab.web import WebSettings, create_app

# Starlette warns (at import) that its TestClient prefers the `httpx2` package; this project pins
# `httpx`. The warning is about packaging, not about our code, so it is silenced for this import.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

MakeClient = Callable[..., TestClient]


@pytest.fixture
def make_client() -> Iterator[MakeClient]:
    """`make_client(**limits)` → a TestClient on a fresh app with those WebSettings."""
    with contextlib.ExitStack() as stack:

        def make(**limits: Any) -> TestClient:
            # Entered: one event loop for all of a client's requests (not one per request).
            return stack.enter_context(TestClient(create_app(WebSettings(**limits))))

        yield make


@pytest.fixture(scope="session")
def client() -> Iterator[TestClient]:
    """The app with its default limits, shared: requests leave no state behind."""
    with TestClient(create_app()) as shared:
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
