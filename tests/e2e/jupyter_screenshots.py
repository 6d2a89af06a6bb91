"""Screenshots of every widget of the tutorial in JupyterLab, for a human to look at (not a test).

    .venv/bin/python tests/e2e/jupyter_screenshots.py [--out screenshots/jupyter] [--width 768 390]

Starts JupyterLab on the notebook as tests/e2e/test_jupyter.py does, runs the cells that make
the widgets at each browser width, saves one PNG per widget and width, and prints what sticks
out of its output area (test_jupyter.py asserts that nothing does).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from conftest import launch_browser  # this folder is on sys.path when run as a script
from test_jupyter import WIDGET_CELLS, jupyterlab, open_notebook, overflowing, run

REPO = Path(__file__).resolve().parents[2]


def _parts(path: Path, height: int = 1000) -> list[Path]:
    """A tall screenshot cut into pieces of `height` px, each readable on its own."""
    from PIL import Image

    with Image.open(path) as image:
        if image.height <= height * 1.2:
            return []
        parts = []
        for i, top in enumerate(range(0, image.height, height)):
            parts.append(path.with_name(f"{path.stem}.{i + 1}.png"))
            image.crop((0, top, image.width, min(top + height, image.height))).save(parts[-1])
        return parts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "screenshots" / "jupyter")
    parser.add_argument("--width", type=int, nargs="+", default=[768, 390])
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as home, jupyterlab(Path(home)) as url, \
            launch_browser() as browser:  # fmt: skip
        for width in args.width:
            page = open_notebook(browser, url, width=width, height=3200)  # a whole widget in view
            for name, source in WIDGET_CELLS.items():
                target = run(page, source, timeout_s=180).locator(".attnlab-nb").last
                if name == "training":
                    run(page, "tr.train(600)", timeout_s=180)
                if name == "tokens":  # its layer, timed in the kernel
                    target.locator(".layer-timing[data-n-timed]").wait_for(timeout=60_000)
                target.scroll_into_view_if_needed()
                page.wait_for_timeout(600)
                path = args.out / f"{name}-{width}.png"
                target.screenshot(path=str(path))
                print(path, overflowing(target) or "fits", *_parts(path))
            page.context.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
