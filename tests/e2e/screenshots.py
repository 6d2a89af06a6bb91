"""Screenshots of every figure, for a human to look at (not a test).

    .venv/bin/python tests/e2e/screenshots.py [--out screenshots] [--lang en zh]

Runs the real app and headless Chromium (the helpers of conftest.py), then saves one PNG per
figure and language, FIG 2 again after training (fetch with 1 head; vector with 2 heads), the top
of the page, and FIG 2 on a phone-sized screen. The default folder, /screenshots/ in the repo,
is gitignored.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from conftest import launch_browser, run_server  # this folder is on sys.path when run as a script

REPO = Path(__file__).resolve().parents[2]
FIGURES = ("lookup", "training", "scaling", "position", "depth", "kv-cache", "tokens")
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
            _train(page, 600)
            _shot(page, "#fig-training", out / f"{lang}-fig2-trained-fetch.png")
            page.close()
            page = _open(browser, f"{base}/#lang={lang}&training.task=vector&training.heads=2")
            _train(page, 1500)
            _shot(page, "#fig-training", out / f"{lang}-fig2-trained-vector-2heads.png")
            page.close()
        phone = _open(browser, f"{base}/#lang={langs[0]}", width=390, height=844)
        _shot(phone, "#fig-training", out / "phone-fig2-training.png")
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
