"""Drags that never pile up (issue 19, part 2), against a server that takes 200 ms a request.

The server here waits `figure_delay_s` before each figure answer (a busy class server), and a
layer around the app counts, on the server, the FIG 1 requests being answered at once: from the
request's arrival to the moment its last byte is handed to the socket, before the page can have
read it. FIG 1's query handle is dragged with the mouse, a finger (DevTools touch input) and a
held arrow key; each time at most one request is out, far fewer are sent than the drag made
settings, the last one sent is the reader's last setting, and the figure ends drawing the
engine's answer for it. The handle itself moves at once, before any answer.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from attnlab.figures import compute_figure
from tests.e2e.conftest import VIEWPORT, run_server

pytestmark = pytest.mark.e2e

DELAY_S = 0.2
LOOKUP = "/api/figures/lookup"
BARS = "#fig-lookup svg.weights .bar-series rect"
HANDLE = "#fig-lookup .q-handle"
TOL = 1e-6  # weights drawn vs the engine's, both float64 from the same settings


@dataclass
class Counter:
    """FIG 1 requests on the server: how many at once (the most ever), and each one's query."""

    now: int = 0
    most: int = 0
    queries: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        with self.lock:
            self.most, self.queries = self.now, []

    def wrap(self, app: Any) -> Any:
        async def counted(scope: dict, receive: Any, send: Any) -> None:
            if scope["type"] != "http" or scope["path"] != LOOKUP:
                await app(scope, receive, send)
                return
            with self.lock:
                self.now += 1
                self.most = max(self.most, self.now)
                self.queries.append(scope["query_string"].decode())
            done = False

            async def send_counted(message: dict) -> None:
                nonlocal done
                last = message["type"] == "http.response.body" and not message.get("more_body")
                if last and not done:  # before the bytes leave: the page cannot have them yet
                    done = True
                    with self.lock:
                        self.now -= 1
                await send(message)

            try:
                await app(scope, receive, send_counted)
            finally:
                if not done:
                    with self.lock:
                        self.now -= 1

        return counted


@pytest.fixture(scope="module")
def slow() -> Iterator[tuple[str, Counter]]:
    counter = Counter()
    with run_server(wrap=counter.wrap, figure_delay_s=DELAY_S) as base:
        yield base, counter


def _open(browser: Any, base: str, **options: Any) -> Any:
    context = browser.new_context(viewport=VIEWPORT, locale="en-US", **options)
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.goto(f"{base}/")
    page.wait_for_selector("html.is-ready")
    page.wait_for_selector(f"{BARS}[data-value]")
    page.locator("#fig-lookup .key-space").scroll_into_view_if_needed()
    return page


@pytest.fixture
def desk(browser: Any, slow: tuple[str, Counter]) -> Iterator[tuple[Any, Counter]]:
    base, counter = slow
    page = _open(browser, base)
    try:
        yield page, counter
    finally:
        page.context.close()


@pytest.fixture
def phone(browser: Any, slow: tuple[str, Counter]) -> Iterator[tuple[Any, Counter]]:
    base, counter = slow
    page = _open(browser, base, has_touch=True, is_mobile=True)
    try:
        yield page, counter
    finally:
        page.context.close()


def _centre(page: Any, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def _q_of(query: str) -> list[float]:
    return [float(v) for v in parse_qs(query)["q"][0].split(",")]


def _q_in_hash(page: Any) -> list[float]:
    page.wait_for_function("location.hash.includes('lookup.q=')")
    piece = next(p for p in urlsplit(page.url).fragment.split("&") if p.startswith("lookup.q="))
    return [float(v) for v in unquote(piece.split("=", 1)[1]).split(",")]


def _settled(page: Any, counter: Counter) -> None:
    """Wait until the figure has no request out or waiting (a request takes DELAY_S)."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        busy = page.get_attribute("#fig-lookup", "aria-busy")
        if busy == "false" and counter.now == 0:
            page.wait_for_timeout(3 * DELAY_S * 1000)  # nothing more comes
            if page.get_attribute("#fig-lookup", "aria-busy") == "false" and counter.now == 0:
                return
        page.wait_for_timeout(50)
    raise AssertionError("FIG 1 was still waiting for answers after 15 s")


def _weights(page: Any) -> list[float]:
    values = page.eval_on_selector_all(BARS, "bars => bars.map((b) => b.dataset.value)")
    return [float(v) for v in values]


def _check_drag(page: Any, counter: Counter, moves: int, seconds: float) -> None:
    """At most one request at once (so at most one per answer's time: the settings in between
    are never sent), ended on the last setting, whose answer is drawn."""
    _settled(page, counter)
    sent = list(counter.queries)
    assert counter.most == 1, f"{counter.most} FIG 1 requests were answered at once"
    # each request waits for the one before it (≥ DELAY_S): those begun within the moves'
    # `seconds`, and one after them carrying the last setting
    most = min(moves, math.floor(seconds / DELAY_S) + 2)
    assert 1 <= len(sent) <= most, f"{len(sent)} requests for {moves} moves in {seconds:.2f} s"
    last_q, shown_q = _q_of(sent[-1]), _q_in_hash(page)
    assert last_q == pytest.approx(shown_q, abs=1e-9)  # the last request is the last setting
    engine = compute_figure("lookup", {k: v[0] for k, v in parse_qs(sent[-1]).items()})["weights"]
    assert _weights(page) == pytest.approx(engine, abs=TOL)  # and its answer is what is drawn


def test_a_mouse_drag_sends_one_request_at_a_time_and_ends_on_its_last_setting(desk) -> None:
    page, counter = desk
    x, y = _centre(page, f"{HANDLE} .hit")
    counter.reset()
    page.mouse.move(x, y)
    page.mouse.down()
    moves, t0 = 40, time.monotonic()
    for i in range(1, moves + 1):  # about 1 s of dragging, a move every frame or so
        page.mouse.move(x - 2 * i, y - 1.5 * i)
        page.wait_for_timeout(20)
    page.mouse.up()
    _check_drag(page, counter, moves, time.monotonic() - t0)


def test_a_finger_drag_sends_one_request_at_a_time_and_ends_on_its_last_setting(phone) -> None:
    page, counter = phone
    x, y = _centre(page, f"{HANDLE} .hit")
    counter.reset()
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, px: float, py: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": px, "y": py, "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    moves, t0 = 40, time.monotonic()
    touch("touchStart", x, y)
    for i in range(1, moves + 1):
        touch("touchMove", x - 1.5 * i, y + i)
        page.wait_for_timeout(20)
    touch("touchEnd", 0, 0)
    cdp.detach()
    _check_drag(page, counter, moves, time.monotonic() - t0)


def test_a_held_arrow_key_sends_one_request_at_a_time_and_ends_on_its_last_setting(desk) -> None:
    page, counter = desk
    start = _q_in_hash_or_default(page)
    page.locator(HANDLE).focus()
    counter.reset()
    presses, t0 = 25, time.monotonic()  # a held key repeats about every 30 ms
    for _ in range(presses):
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(30)
    _check_drag(page, counter, presses, time.monotonic() - t0)
    assert _q_in_hash(page) == pytest.approx([start[0] + 0.1 * presses, start[1]], abs=1e-9)


def _q_in_hash_or_default(page: Any) -> list[float]:
    fragment = urlsplit(page.url).fragment
    if "lookup.q=" in fragment:
        return _q_in_hash(page)
    return compute_figure("lookup", {})["settings"]["q"]


def test_the_handle_moves_at_once_and_the_numbers_follow(desk) -> None:
    page, counter = desk
    before = _weights(page)
    counter.reset()
    # one task: the key's event, then a look at the handle and the bars; no answer can arrive
    # inside it (a fetch resolves in a later task), so what moved, moved before any answer
    seen = page.evaluate(
        """([handle, bars]) => {
             const h = document.querySelector(handle);
             const at = h.getAttribute("transform");
             h.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowUp", bubbles: true }));
             const weights = [...document.querySelectorAll(bars)].map((b) => +b.dataset.value);
             const busy = document.querySelector("#fig-lookup").getAttribute("aria-busy");
             return { before: at, after: h.getAttribute("transform"),
                      label: h.getAttribute("aria-label"), weights, busy };
           }""",
        [HANDLE, BARS],
    )
    assert seen["after"] != seen["before"]  # the handle is where the reader put it, at once
    assert seen["weights"] == before  # the numbers have not come yet
    assert seen["busy"] == "true"  # they are on their way
    _settled(page, counter)
    q = _q_in_hash(page)
    assert f"{q[1]:.1f}" in seen["label"]  # the handle's name said the new place at once too
    assert _weights(page) != before  # and then the numbers follow
    assert _weights(page) == pytest.approx(compute_figure("lookup", {"q": q})["weights"], abs=TOL)
