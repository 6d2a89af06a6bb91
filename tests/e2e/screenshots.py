"""Screenshots of every figure, for a human to look at (not a test).

    .venv/bin/python tests/e2e/screenshots.py [--out screenshots] [--lang en zh]

Runs the real app and headless Chromium (the helpers of conftest.py), then saves one PNG per
figure and language, FIG 2 again after training (fetch with 1 head; vector with 2 heads), the top
of the page, one PNG per part of the lesson's text and language (whole width, whole height: the
text, its boxes and its figures), and FIG 2 and two parts on a phone-sized screen. The default
folder, /screenshots/ in the repo, is gitignored.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from conftest import launch_browser, run_server  # this folder is on sys.path when run as a script

REPO = Path(__file__).resolve().parents[2]
FIGURES = ("lookup", "training", "scaling", "position", "depth", "kv-cache", "tokens", "flash")
# The sections of the page: the nine parts of the lesson, the glossary, "check the numbers".
PARTS = ("why", "lookup", "training", "parts", "math", "robots", "pitfalls", "exercises",
         "reading", "glossary", "check")  # fmt: skip
PHONE_PARTS = ("math", "exercises")
# The header is sticky: in an element screenshot it would cover the figure's first rows.
STATIC_HEADER = ".site-header { position: static !important; }"


def _open(browser: Any, url: str, width: int = 1280, height: int = 900) -> Any:
    page = browser.new_page(viewport={"width": width, "height": height}, device_scale_factor=1)
    page.goto(url)
    page.wait_for_selector("html.is-ready")
    page.wait_for_load_state("networkidle")
    page.add_style_tag(content=STATIC_HEADER)
    return page


def _shot(page: Any, selector: str, path: Path) -> None:
    node = page.locator(selector)
    node.scroll_into_view_if_needed()
    page.wait_for_timeout(400)  # let views finish their first drawing after data arrives
    node.screenshot(path=str(path))
    print(path)


def _part(page: Any, part: str, path: Path) -> None:
    """A whole section at the page's full width (figures are wider than the text column)."""
    page.locator(f"#s-{part}").scroll_into_view_if_needed()
    page.wait_for_timeout(200)
    top, height = page.evaluate(
        f"(() => {{ const r = document.querySelector('#s-{part}').getBoundingClientRect();"
        " return [r.top + scrollY, r.height]; })()"
    )
    width = page.viewport_size["width"]
    page.screenshot(path=str(path), full_page=True, clip={"x": 0, "y": top, "width": width,
                                                        "height": height})  # fmt: skip
    print(path)


def _wait_for_numbers(page: Any) -> None:
    """Until every engine number of the text is in (the seed sweeps take a few seconds)."""
    page.wait_for_function("document.documentElement.dataset.pendingValues === '0'",
                           timeout=120_000)  # fmt: skip


def _train(page: Any, steps: int) -> None:
    fig = "#fig-training"
    page.click(f"{fig} button[data-role=train]")
    page.wait_for_function(
        f"+document.querySelector('{fig} dd[data-key=step]').dataset.value >= {steps}",
        timeout=60_000,
    )
    page.click(f"{fig} button[data-role=train]")
    page.wait_for_selector(f"{fig} button[data-role=train][aria-pressed=false]")


def capture(base: str, out: Path, langs: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with launch_browser() as browser:
        for lang in langs:
            page = _open(browser, f"{base}/#lang={lang}")
            page.screenshot(path=str(out / f"{lang}-top.png"))
            for i, name in enumerate(FIGURES, start=1):
                _shot(page, f"#fig-{name}", out / f"{lang}-fig{i}-{name}.png")
            _wait_for_numbers(page)
            for i, part in enumerate(PARTS, start=1):
                _part(page, part, out / f"{lang}-part{i:02d}-{part}.png")
            _train(page, 600)
            _shot(page, "#fig-training", out / f"{lang}-fig2-trained-fetch.png")
            page.close()
            page = _open(browser, f"{base}/#lang={lang}&training.task=vector&training.heads=2")
            _train(page, 1500)
            _shot(page, "#fig-training", out / f"{lang}-fig2-trained-vector-2heads.png")
            page.close()
        phone = _open(browser, f"{base}/#lang={langs[0]}", width=390, height=844)
        _shot(phone, "#fig-training", out / "phone-fig2-training.png")
        _wait_for_numbers(phone)
        for part in PHONE_PARTS:
            _part(phone, part, out / f"phone-{part}.png")
        phone.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "screenshots")
    parser.add_argument("--lang", nargs="+", choices=("en", "zh"), default=["en", "zh"])
    args = parser.parse_args(argv)
    with run_server() as base:
        capture(base, args.out, args.lang)
    return 0


if __name__ == "__main__":
    sys.exit(main())
