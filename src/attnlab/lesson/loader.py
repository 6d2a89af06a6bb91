"""The lesson's files: `content/{en,zh}/*.md` read, checked and turned into the page's data.

`load_lesson(lang, values)` is the whole text in one language; `glossary`, `tries`, `exercises`
and `placeholders` are the parts other layers read (the claims runner asks which numbers the
text needs; the tests walk every try-it and exercise).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from attnlab.lesson.blocks import PLACEHOLDER_RE, Context, parse_blocks, render_inline
from attnlab.lesson.values import LessonError

__all__ = ["CONTENT", "GLOSSARY_FILE", "LANGS", "PART_FILES", "exercises", "glossary",
           "load_lesson", "placeholders", "tries"]  # fmt: skip

CONTENT = Path(__file__).parent.parent / "content"
LANGS = ("en", "zh")
PART_FILES = (
    "01-why.md", "02-lookup.md", "03-training.md", "04-parts.md", "05-math.md",
    "06-robots.md", "07-pitfalls.md", "08-exercises.md", "09-reading.md",
)  # fmt: skip
GLOSSARY_FILE = "glossary.md"
GLOSS_ENTRY_RE = re.compile(r"^(.+?)\s+·\s+(.+?)\s+\{#([a-z0-9-]+)\}\s*$")


@lru_cache(maxsize=64)  # one per content file and language (about 12 × 2)
def _source(lang: str, name: str) -> tuple[dict[str, str], tuple[str, ...], int]:
    """(front matter, body lines, line number of the first body line) of one content file."""
    if lang not in LANGS:
        raise LessonError(f"unknown language {lang!r}; one of {', '.join(LANGS)}")
    lines = (CONTENT / lang / name).read_text(encoding="utf-8").splitlines()
    if not lines or lines[0] != "---" or "---" not in lines[1:]:
        raise LessonError(f"{lang}/{name}: must start with front matter between '---' lines")
    end = lines.index("---", 1)
    meta = dict(line.split(":", 1) for line in lines[1:end] if ":" in line)
    meta = {k.strip(): v.strip().strip('"') for k, v in meta.items()}
    if not {"id", "title"} <= meta.keys():
        raise LessonError(f"{lang}/{name}: front matter needs id and title")
    return meta, tuple(lines[end + 1 :]), end + 2


@lru_cache(maxsize=4)  # one per language
def _glossary_entries(lang: str) -> tuple[tuple[str, str, str, str, int], ...]:
    """(id, term, other-language term, definition source, line) for every entry."""
    _, lines, first = _source(lang, GLOSSARY_FILE)
    entries, term = [], None
    for i, line in enumerate(lines):
        if m := GLOSS_ENTRY_RE.match(line):
            term = (m[3], m[1].strip(), m[2].strip(), first + i)
        elif line.startswith(": ") and term:
            entries.append((term[0], term[1], term[2], line[2:].strip(), term[3]))
            term = None
        elif line.strip():
            raise LessonError(
                f"{lang}/{GLOSSARY_FILE}:{first + i}: expected 'term · other {{#id}}'"
            )
    return tuple(entries)


def gloss_index(lang: str) -> dict[str, str]:
    """Lower-cased id and term → id, so `[[softmax]]` and `[[注意力]]` both resolve."""
    index: dict[str, str] = {}
    for gid, term, *_ in _glossary_entries(lang):
        index[gid.lower()] = gid
        index[term.lower()] = gid
    return index


def glossary(
    lang: str, values: Mapping[str, Any] | None = None, *, slots: bool = False
) -> list[dict[str, Any]]:
    """The glossary: [{id, term, other, html}] in file order."""
    ctx = Context(f"{lang}/{GLOSSARY_FILE}", values, gloss_index(lang), slots=slots)
    out = []
    for gid, term, other, text, line in _glossary_entries(lang):
        ctx.line = line
        out.append({"id": gid, "term": term, "other": other, "html": render_inline(text, ctx)})
    return out


def _parts(
    lang: str, values: Mapping[str, Any] | None, missing: list[str], *, slots: bool = False
) -> list[dict]:
    parts, index = [], gloss_index(lang)
    for name in PART_FILES:
        meta, lines, first = _source(lang, name)
        ctx = Context(f"{lang}/{name}", values, index, missing, slots=slots)
        blocks = parse_blocks(list(lines), first, ctx)
        parts.append({"id": meta["id"], "title": meta["title"], "file": name, "blocks": blocks})
    return parts


def load_lesson(
    lang: str, values: Mapping[str, Any] | None, *, slots: bool = False
) -> dict[str, Any]:
    """The whole lesson in one language as plain data: {lang, parts, glossary}.

    values: the engine's measurements, flat ("F2.2.steps": 225) or by claim ({"F2.2": {...}}).
    Every `{{ID.name}}` must be there; otherwise LessonError lists each missing one with its line.
    values=None keeps the placeholders as text (for checking structure without the engine).
    slots=True (the page): every number is a slot, filled from `values` where known and left
    pending otherwise; nothing is missing then, the page fills the rest as values arrive.
    """
    missing: list[str] = []
    lesson = {"lang": lang, "parts": _parts(lang, values, missing, slots=slots),
              "glossary": glossary(lang, values, slots=slots)}  # fmt: skip
    if missing:
        raise LessonError("missing measured values: " + "; ".join(missing))
    return lesson


@lru_cache(maxsize=len(LANGS))  # the text is read once (_source); every page load asks for this
def placeholders(lang: str) -> frozenset[str]:
    """Every "ID.name" the text of one language asks the engine for."""
    names = [*PART_FILES, GLOSSARY_FILE]
    text = "\n".join("\n".join(_source(lang, n)[1]) for n in names)
    return frozenset(f"{m[1]}.{m[2]}" for m in PLACEHOLDER_RE.finditer(text))


def _walk(blocks: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [b for b in blocks if b["type"] == kind]


def tries(lang: str = "en") -> list[dict[str, Any]]:
    """Every try-it task in lesson order: {id, part, figure, claim, when}."""
    parts = _parts(lang, None, [])
    keys = ("id", "figure", "claim", "when")
    return [
        {"part": p["id"], **{k: b[k] for k in keys}}
        for p in parts
        for b in _walk(p["blocks"], "try")
    ]


def exercises(lang: str = "en") -> list[dict[str, Any]]:
    """Every exercise in lesson order, as blocks (question, options, answer)."""
    return [b for p in _parts(lang, None, []) for b in _walk(p["blocks"], "exercise")]
