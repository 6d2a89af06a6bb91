"""The interface strings by group and language, read from static/i18n (and the widgets' own).

Files are `<group>.<lang>.json`; `<lang>.json` is the page's catalogue and `page.<lang>.json` the
page shell's, merged into group "page" (the catalogue's own keys win over the shell's); every
other group is a figure view's. The page gets one language at a time (`GET /api/strings/{lang}`),
a notebook every language at once (attnlab.widgets.assets).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from attnlab.lesson import LANGS

Catalogues = dict[str, dict[str, dict[str, Any]]]  # group → lang → key → text


def read_catalogues(folders: Iterable[Path]) -> Catalogues:
    """{group: {lang: {key: text}}} of every `*.json` catalogue in `folders`."""
    out: Catalogues = {}
    mains: dict[str, dict[str, Any]] = {}
    for folder in folders:
        for path in sorted(folder.glob("*.json")):
            *group, lang = path.stem.split(".")
            if lang not in LANGS:
                continue
            text = json.loads(path.read_text("utf-8"))
            if not group:
                mains[lang] = text  # applied last: its keys win over page.<lang>.json's
            name = ".".join(group) or "page"
            out.setdefault(name, {}).setdefault(lang, {}).update(text)
    for lang, text in mains.items():
        out["page"][lang].update(text)
    return out


def one_language(catalogues: Catalogues, lang: str, fallback: str = "en") -> dict[str, Any]:
    """{group: {key: text}} in `lang`, a key it lacks taken from `fallback` (the page's
    translator falls back to English the same way, and then needs only one catalogue)."""
    return {
        group: {**langs.get(fallback, {}), **langs.get(lang, {})}
        for group, langs in catalogues.items()
    }
