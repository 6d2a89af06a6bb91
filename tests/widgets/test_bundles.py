"""The committed bundles are what widgets/build.mjs makes from today's views, byte for byte.

A view, a lib module it imports, a notebook stand-in or a figure sheet changed without
`make widgets` fails here. Needs esbuild from widgets/package-lock.json (`make test` runs
`npm ci` there first); outside CI a machine without it skips.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from attnlab.figures import MODULES
from attnlab.widgets.assets import BUNDLES

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "widgets"

pytestmark = pytest.mark.slow


def _tools() -> str:
    node = shutil.which("node")
    if node and (BUILD / "node_modules" / "esbuild").is_dir():
        return node
    if os.environ.get("CI"):  # make test runs npm ci in widgets/ first: never skip there
        pytest.fail("esbuild is not installed in widgets/ (cd widgets && npm ci)")
    pytest.skip("esbuild is not installed in widgets/ (make widgets)")


def test_the_committed_bundles_are_fresh(tmp_path: Path) -> None:
    node = _tools()
    subprocess.run([node, "build.mjs", str(tmp_path)], cwd=BUILD, check=True, capture_output=True,
                   timeout=120)  # fmt: skip
    built = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    committed = {p.name: p.read_bytes() for p in BUNDLES.iterdir()}
    assert sorted(built) == sorted(committed), "bundles added or removed: run `make widgets`"
    stale = [name for name in built if built[name] != committed[name]]
    assert not stale, f"stale bundles {stale}: run `make widgets` and commit them"


def test_every_figure_has_a_bundle() -> None:
    names = {p.stem for p in BUNDLES.glob("*.js")}
    assert set(MODULES) | {"attention-map"} == names
    assert (BUNDLES / "widget.css").read_text().startswith(".attnlab-nb")


def test_the_bundles_hold_no_page_transport() -> None:
    """In a notebook there is no server: no view may fetch or open a socket."""
    for path in BUNDLES.glob("*.js"):
        text = path.read_text()
        assert "/static/i18n" not in text and "new WebSocket" not in text, path.name
