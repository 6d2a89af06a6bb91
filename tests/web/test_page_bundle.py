"""The committed page bundle (src/attnlab/static/bundle) is what widgets/page.mjs makes from
today's index.html block, modules and sheets.

A page module, a sheet or index.html's page block changed without `make page` fails here: the
script, the sheet and page.json must be byte for byte the rebuilt ones; each .gz must hold its
file (compared unpacked: another zlib may pack the same bytes differently). Needs esbuild from
widgets/package-lock.json, as tests/widgets/test_bundles.py.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from attnlab.web.config import PACKAGE_STATIC

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "widgets"
COMMITTED = PACKAGE_STATIC / "bundle"

pytestmark = pytest.mark.slow


def _tools() -> str:
    node = shutil.which("node")
    if node and (BUILD / "node_modules" / "esbuild").is_dir():
        return node
    if os.environ.get("CI"):  # make test runs npm ci in widgets/ first: never skip there
        pytest.fail("esbuild is not installed in widgets/ (cd widgets && npm ci)")
    pytest.skip("esbuild is not installed in widgets/ (make page)")


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.suffix != ".gz"}


def test_the_committed_page_bundle_is_fresh(tmp_path: Path) -> None:
    node = _tools()
    subprocess.run([node, "page.mjs", str(tmp_path)], cwd=BUILD, check=True, capture_output=True,
                   timeout=120)  # fmt: skip
    built, committed = _files(tmp_path), _files(COMMITTED)
    assert sorted(built) == sorted(committed), "the page bundle is stale: run `make page`"
    stale = [name for name in built if built[name] != committed[name]]
    assert not stale, f"stale page bundle {stale}: run `make page` and commit it"


def test_each_gz_holds_its_file() -> None:
    packed = sorted(COMMITTED.glob("*.gz"))
    assert {p.name.removesuffix(".gz") for p in packed} == {
        p.name for p in COMMITTED.iterdir() if p.suffix in (".js", ".css")
    }
    for path in packed:
        assert gzip.decompress(path.read_bytes()) == path.with_suffix("").read_bytes(), path.name


def test_each_url_in_the_sheet_is_a_static_file_of_ours() -> None:
    """A font's URL is /static/… as served, never a path on the disk it was built on (which
    named the checkout's depth: the bundle then differed from one clone to another)."""
    sheet = next(p for p in COMMITTED.iterdir() if p.suffix == ".css").read_text()
    urls = set(re.findall(r"url\(([^)]+)\)", sheet))
    assert urls
    for url in urls:
        assert url.startswith("/static/") and ".." not in url, url
        assert (PACKAGE_STATIC / url.removeprefix("/static/")).is_file(), url
