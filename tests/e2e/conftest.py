"""End-to-end fixtures: the real lesson app in a thread, and Debian's headless Chromium.

`server` runs `attnlab.web.create_app()` with uvicorn on a free 127.0.0.1 port (the socket is
bound first, so the port cannot be taken in between); `browser` is Playwright's sync API driving
/usr/bin/chromium (no browser can be downloaded here); `page` opens a fresh context per test
and records every console message, page error and request, so tests can assert that the page is
clean and never talks to anything but 127.0.0.1.

The helpers at the top are plain functions so that `screenshots.py` can reuse them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.kept import kept_measurements

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 1280, "height": 900}


@contextlib.contextmanager
def run_server(
    port: int = 0, *, wrap: Callable[[Any], Any] | None = None, **limits: Any
) -> Iterator[str]:
    """The real app (with these WebSettings) on 127.0.0.1:port (0: a free one), in a thread;
    wrap(app) → the ASGI app served instead (a test's own layer around it)."""
    import uvicorn

    from attnlab.web import WebSettings, create_app

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    port = sock.getsockname()[1]
    app = create_app(WebSettings(**limits))
    app.state.measurements = kept_measurements()  # the lifespan starts it, and keeps it
    served = wrap(app) if wrap else app  # a wrapper passes the lifespan on to the app
    server = uvicorn.Server(uvicorn.Config(served, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the lesson server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def show_everyone(
    teacher: Any, figure: str, settings: dict[str, str], *, follow: bool = False
) -> None:
    """On the teacher's page: "show everyone" `figure` at `settings` (the form's own fields)."""
    form = "#teach-show-figure"
    teacher.select_option(f"{form} select[name=figure]", figure)
    for name, value in settings.items():
        teacher.fill(f"{form} input[name={name}]", value)
    if follow:
        teacher.check(f"{form} input[name=follow]")
    teacher.click(f"{form} [data-role=show-figure]")


def chromium_path() -> Path | None:
    """Debian's Chromium, if installed (`make browser` installs it)."""
    if CHROMIUM.exists():
        return CHROMIUM
    found = shutil.which("chromium")
    return Path(found) if found else None


@contextlib.contextmanager
def launch_browser() -> Iterator[Any]:
    """A headless Chromium under Playwright's sync API."""
    from playwright.sync_api import sync_playwright

    path = chromium_path()
    if path is None:
        raise RuntimeError("chromium is not installed; run `make browser`")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(path), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Recorder:
    """What a page did: console errors, uncaught errors, every request URL and response size."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    bytes_by_url: dict[str, int] = field(default_factory=dict)

    def attach(self, page: Any) -> None:
        page.on("console", self._console)
        page.on("pageerror", lambda err: self.page_errors.append(str(err)))
        page.on("request", lambda req: self.requests.append(req.url))
        page.on("websocket", lambda ws: self.requests.append(ws.url))
        page.on("response", self._response)

    def _console(self, msg: Any) -> None:
        if msg.type != "error":
            return
        url = (msg.location or {}).get("url", "")
        # A figure whose view module is not written yet is a quiet placeholder by design; the
        # only trace is Chromium's own network line for the module's 404.
        if "/static/js/figures/" in url and "404" in msg.text:
            return
        self.console_errors.append(f"{msg.text} ({url})")

    def _response(self, response: Any) -> None:
        with contextlib.suppress(Exception):  # bodies of redirects/aborted loads are unreadable
            self.bytes_by_url[response.url] = len(response.body())


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    with run_server() as base_url:
        yield base_url


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if chromium_path() is None:
        if os.environ.get("CI"):  # CI installs it (make test → make browser): never skip there
            pytest.fail("chromium is not installed, so the page cannot be tested")
        pytest.skip("chromium is not installed (make browser)")
    with launch_browser() as b:
        yield b


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def page(browser: Any, recorder: Recorder) -> Iterator[Any]:
    context = browser.new_context(viewport=VIEWPORT, locale="en-US")
    context.set_default_timeout(15_000)
    pg = context.new_page()
    recorder.attach(pg)
    try:
        yield pg
    finally:
        context.close()


@pytest.fixture(scope="module")
def loaded_lesson(browser: Any, server: str) -> Iterator[tuple[Any, Recorder]]:
    """One page with the lesson loaded, shared by a module's read-only tests, and its record."""
    context = browser.new_context(viewport=VIEWPORT, locale="en-US")
    context.set_default_timeout(15_000)
    pg = context.new_page()
    rec = Recorder()
    rec.attach(pg)
    pg.goto(f"{server}/")
    pg.wait_for_selector("html.is-ready")
    try:
        yield pg, rec
    finally:
        context.close()


@pytest.fixture
def open_lesson(page: Any, server: str) -> Any:
    """Load the page (optionally with a state hash) and wait until every view is mounted."""

    def load(hash_: str = "") -> Any:
        page.goto(f"{server}/{hash_}")
        page.wait_for_selector("html.is-ready")
        return page

    return load
