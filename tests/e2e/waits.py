"""Waits for a state of the page, never for a fixed time: a busy machine only makes them last
longer. Every one has a deadline and fails at it."""

from __future__ import annotations

import time
from typing import Any

SWEEP_ONLY = 4  # values of the text that only a seed sweep gives: F2.2's and F2.6's percentiles

# `n` animation frames: what the page scheduled for its next frame (a drawing) and the
# ResizeObservers of a layout made before have run (frame callbacks run in the order asked).
FRAMES = """(n) => new Promise((done) => {
  const next = (k) => (k ? requestAnimationFrame(() => next(k - 1)) : done());
  next(n);
})"""

# The page drawn for good: every font in, the display formulas refitted to them (lesson.js, 250 ms
# after the last font; a width measured before a font came is short, so a formula that fits now
# stays as it is), every figure's answer drawn (aria-busy) and FIG 2's first progress (its table).
SETTLED = """() => document.fonts.status === 'loaded'
  && !document.querySelector('[aria-busy=true]')
  && Boolean(document.querySelector('#fig-training td.cm-cell')?.dataset.value)
  && [...document.querySelectorAll('.math.display[data-tex]')].every((node) => {
    const box = node.querySelector('.katex-display') ?? node;
    return box.scrollWidth <= box.clientWidth + 1;
  })"""

# where `selector` is drawn on screen, and where the page is scrolled to
WHERE = """(node) => { const r = node.getBoundingClientRect();
  return [scrollX, scrollY, r.x, r.y, r.width, r.height]; }"""


def frames(page: Any, n: int = 2) -> None:
    """Let `n` animation frames of the page pass (see FRAMES)."""
    page.evaluate(FRAMES, n)


def wait_settled(page: Any, timeout: int = 60_000) -> None:
    """Wait until the page is drawn for good (see SETTLED)."""
    page.wait_for_function(SETTLED, timeout=timeout)


def wait_still(page: Any, selector: str, *, still: int = 3, timeout_s: float = 15) -> None:
    """Wait until `selector` (its first match) and the scroll position have not moved for `still`
    animation frames in a row."""
    deadline = time.monotonic() + timeout_s
    last, same = None, 0
    while same < still:
        if time.monotonic() > deadline:
            raise AssertionError(f"{selector} did not come to rest in {timeout_s} s")
        frames(page, 1)
        now = page.locator(selector).first.evaluate(WHERE)
        same = same + 1 if now == last else 0
        last = now
