"""What a widget's front-end is made of: the bundles, the scoped sheet and the strings.

The bundles are built from the page's own view modules by `widgets/build.mjs` (esbuild) and kept
in `bundles/`; `tests/widgets/test_bundles.py` rebuilds them and fails when they are stale. The
strings are the page's catalogues (static/i18n), read here and sent in the `strings` trait,
because a notebook has no server for the views to fetch them from. The widgets' own catalogues
(i18n/) add their groups ("notebook": attention_map) and, for a group the page has too
("tokens"), replace the page's words that are not true in a notebook: there the kernel, not a
server, times FIG 7's layer and cuts the reader's frame. The names of the custom
messages are in protocol.json, which the front-end's bundles read too.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from attnlab.catalogues import Catalogues, read_catalogues

BUNDLES = Path(__file__).parent / "bundles"
CSS = BUNDLES / "widget.css"
PAGE_STRINGS = Path(__file__).parent.parent / "static" / "i18n"
OWN_STRINGS = Path(__file__).parent / "i18n"  # the widgets' own, and the page's words replaced
PROTOCOL: dict[str, Any] = json.loads((Path(__file__).parent / "protocol.json").read_text("utf-8"))
SETTINGS_CHANNEL: str = PROTOCOL["channels"]["settings"]
TRAINING_CHANNEL: str = PROTOCOL["channels"]["training"]
API_CHANNEL: str = PROTOCOL["channels"]["api"]


def bundle(figure: str) -> Path:
    """The ES module of figure `figure` (the page's name, e.g. "kv-cache")."""
    path = BUNDLES / f"{figure}.js"
    if not path.is_file():
        raise FileNotFoundError(f"no widget bundle {path}; rebuild with `make widgets`")
    return path


@lru_cache(maxsize=1)
def strings() -> Catalogues:
    """{group: {lang: {key: text}}}: the page's catalogues (attnlab.catalogues) and the
    widgets' own."""
    return read_catalogues((PAGE_STRINGS, OWN_STRINGS))
