"""Touch drags on a phone (issue 9, item 4), with real touch input through the DevTools protocol.

`Input.dispatchTouchEvent` goes through Chromium's whole input pipeline (hit test, touch-action,
the compositor's scroll decision), so a handle that loses the gesture to page scrolling moves only
part of the way here, exactly as under a finger. Each test opens the page on a 390 × 844 touch
screen, puts a finger on a handle, moves it 60 px in small steps, lifts it, and checks that the
handle followed the finger the whole way and that the page did not scroll. A last test checks
the other half of the bargain: a finger on a figure but not on a handle still scrolls the page.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.waits import frames, wait_settled, wait_still

PHONE = {"width": 390, "height": 844}
DISTANCE = 60  # px the finger travels
STEPS = 12

# (figure, handle selector, direction of the drag in screen px)
HANDLES = (
    ("lookup", "#fig-lookup .q-handle", (-1, 0)),
    ("lookup", "#fig-lookup .scene .block", (1, 0)),
    ("training", "#fig-training .scene .block", (1, 0)),
    ("position", "#fig-position .rope-handle-q", (0, 1)),
)


@pytest.fixture
def phone(browser: Any, server: str) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                                  device_scale_factor=2, locale="en-US")  # fmt: skip
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(f"{server}/")
    page.wait_for_selector("html.is-ready")
    wait_settled(page)  # nothing above a handle moves it (or the page: scroll anchoring) later
    try:
        yield page
    finally:
        context.close()


def _centre(page: Any, selector: str) -> tuple[float, float]:
    box = page.locator(selector).first.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def _touch_drag(page: Any, start: tuple[float, float], delta: tuple[float, float]) -> None:
    cdp = page.context.new_cdp_session(page)
    x, y = start

    def touch(kind: str, px: float, py: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": px, "y": py, "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", x, y)
    for i in range(1, STEPS + 1):
        touch("touchMove", x + delta[0] * i / STEPS, y + delta[1] * i / STEPS)
        page.wait_for_timeout(16)  # a finger moves over frames, not all at once
    touch("touchEnd", 0, 0)
    cdp.detach()


def _scroll_y(page: Any) -> float:
    return page.evaluate("scrollY")


def _lifted(page: Any, selector: str) -> None:
    """Wait until the drag has ended: pointerup (after every move) takes `dragging` off the handle
    (svg.js), and what the last move changed is drawn."""
    handle = page.locator(selector).first.element_handle()
    page.wait_for_function("el => !el.classList.contains('dragging')", arg=handle)
    frames(page)


@pytest.mark.parametrize(("figure", "selector", "direction"), HANDLES,
                         ids=[f"{f}:{s.split()[-1]}" for f, s, _ in HANDLES])  # fmt: skip
def test_a_finger_drags_the_handle_the_whole_way(phone, figure, selector, direction) -> None:
    page = phone
    page.locator(selector).first.scroll_into_view_if_needed()
    page.evaluate("scrollBy(0, -120)")  # the handle mid-screen, room above and below
    wait_still(page, selector)
    before_xy = _centre(page, selector)
    before_scroll = _scroll_y(page)
    delta = (direction[0] * DISTANCE, direction[1] * DISTANCE)
    _touch_drag(page, before_xy, delta)
    _lifted(page, selector)
    after_xy = _centre(page, selector)
    assert _scroll_y(page) == before_scroll, "the page scrolled instead of dragging"
    dx, dy = after_xy[0] - before_xy[0], after_xy[1] - before_xy[1]
    moved = dx * direction[0] + dy * direction[1]
    assert moved == pytest.approx(DISTANCE, abs=6), f"{figure}: moved {moved:.1f} px"
    page.wait_for_function(f"location.hash.includes('{figure}.')")  # the move reached the state


def test_handles_offer_a_44px_touch_target(phone) -> None:
    sizes = phone.evaluate(
        """() => [...document.querySelectorAll('.drag-handle')].map((h) => {
             const r = h.getBoundingClientRect();
             return [h.getAttribute('aria-label'), Math.min(r.width, r.height)]; })"""
    )
    assert sizes
    small = [(label, round(size, 1)) for label, size in sizes if size < 44 - 0.5]
    assert not small, small


def test_a_finger_beside_the_handles_still_scrolls_the_page(phone) -> None:
    page = phone
    page.locator("#fig-lookup .key-space").scroll_into_view_if_needed()
    wait_still(page, "#fig-lookup .key-space")
    box = page.locator("#fig-lookup .key-space").bounding_box()
    before = _scroll_y(page)
    # the key space's lower left corner: grid, no handle
    _touch_drag(page, (box["x"] + 12, box["y"] + box["height"] - 12), (0, -200))
    page.wait_for_function(f"scrollY > {before + 100}")


@pytest.mark.parametrize("figure", ["lookup", "training"])
def test_a_block_dragged_past_the_edge_stays_whole_on_the_table(phone, figure) -> None:
    page = phone
    block = f"#fig-{figure} .scene .block"
    page.locator(block).first.scroll_into_view_if_needed()
    page.evaluate("scrollBy(0, -200)")
    wait_still(page, block)
    start = _centre(page, block)
    table = page.locator(f"#fig-{figure} .scene .table-top").bounding_box()
    # up and to the left, far past the table's corner (over the instruction and the axis)
    _touch_drag(page, start, (table["x"] - start[0] - 80, table["y"] - start[1] - 80))
    _lifted(page, block)
    face = page.locator(f"{block} .block-face").first.bounding_box()
    assert face["x"] >= table["x"] - 0.5 and face["y"] >= table["y"] - 0.5
