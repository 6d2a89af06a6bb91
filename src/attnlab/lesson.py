"""The lesson's words: Markdown files in `content/{en,zh}/` turned into plain blocks for the page.

A writer edits the `.md` files and never this code. The format, in short (every content file
is an example of it):

- front matter `---` / `id: …` / `title: …` / `---`; paragraphs, `##`/`###` headings, `- ` and `1. `
  lists, `**bold**`, `*em*`, `` `code` ``, `[text](url)`, `[[term]]` or `[[term|shown text]]`
  (a glossary link), `$inline$` and `$$display$$` math (KaTeX), `\\hl{KEY}{tex}` for a symbol
  linked to the figures (becomes `\\htmlData{hl=KEY}{tex}`);
- `{{ID.name}}`, `{{ID.name:.1f}}` or `{{ID.name:sci1}}` (7.9 × 10⁸): a number measured by the
  engine (claim ID of CLAIMS.md, value name of that claim; formats in `attnlab.lesson_values`);
- boxes `::: figure NAME`, `::: try ID figure=NAME claim=CLAIM` (then `when: CONDITION` lines, one
  per stage, in order), `::: insight`, `::: note`, `::: pitfall TITLE`, `::: exercise ID` (options
  `- [ ]`/`- [x]`, each followed by an indented `> feedback`, then `answer:`), each closed by `:::`.

Blocks are dicts with a "type": heading (level, id, html), paragraph (html), list (ordered,
items: [html]), math (tex), figure (name, caption: [blocks]), try (id, figure, claim, when:
[condition], body), insight / note / pitfall (title, body), exercise (id, question, options:
[{html, correct, feedback}], answer). Inline math in html is `<span class="math">TeX</span>`.

The page asks for the text with `slots=True`: the text must not wait for the engine (FIG 2's
numbers take seconds to measure), so every number becomes a slot the page fills when the value
arrives (`attnlab.lesson_values.slot_html` / `slot_tex`), pre-filled with the values known now.

`evaluate(condition, data)` is the try-it grammar (the page has the same in JS): dotted paths
(a path through a list maps over it), numbers, "strings", true/false, unary minus, functions
max min count abs last at len, comparisons (elementwise on lists), and, or, parentheses.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from attnlab.condition import ConditionError, condition_paths, evaluate, parse_condition
from attnlab.lesson_values import (
    LessonError,
    check_spec,
    format_value,
    lookup,
    slot_html,
    slot_tex,
)

__all__ = [
    "FIGURES",
    "HL_KEYS",
    "LANGS",
    "PART_FILES",
    "ConditionError",
    "LessonError",
    "condition_paths",
    "evaluate",
    "exercises",
    "glossary",
    "load_lesson",
    "parse_condition",
    "placeholders",
    "tries",
]

CONTENT = Path(__file__).parent / "content"
LANGS = ("en", "zh")
PART_FILES = (
    "01-why.md", "02-lookup.md", "03-training.md", "04-parts.md", "05-math.md",
    "06-robots.md", "07-pitfalls.md", "08-exercises.md", "09-reading.md",
)  # fmt: skip
GLOSSARY_FILE = "glossary.md"
FIGURES = ("lookup", "training", "scaling", "position", "depth", "kv-cache", "tokens", "flash")
HL_KEYS = frozenset(
    {"q", "k", "v", "alpha", "sqrtd", "pe", "rope", "res", "ln", "mask", "kv", "n2"}
)
BOXES = ("figure", "try", "insight", "note", "pitfall", "exercise")

CLAIM_RE = re.compile(r"^(F\d\.\d+|M\d+|E\d+)$")
PLACEHOLDER_RE = re.compile(r"\{\{\s*(F\d\.\d+|M\d+|E\d+)\.([a-z_][a-z0-9_]*)(?::([^}]*))?\s*\}\}")
HL_RE = re.compile(r"\\hl\{([^}]*)\}")
HEADING_RE = re.compile(r"^(#{2,3})\s+(.*?)(?:\s+\{#([\w-]+)\})?\s*$")
ITEM_RE = re.compile(r"^(-|\d+\.)\s+(.*)$")
OPTION_RE = re.compile(r"^- \[( |x)\]\s+(.*)$")
GLOSS_ENTRY_RE = re.compile(r"^(.+?)\s+·\s+(.+?)\s+\{#([a-z0-9-]+)\}\s*$")
INLINE_RE = re.compile(
    r"(?P<dollar>\\\$)|\$(?P<math>[^$]+)\$|`(?P<code>[^`]+)`"
    r"|\[\[(?P<gloss>[^\]|]+)(?:\|(?P<shown>[^\]]+))?\]\]"
    r"|\[(?P<text>[^\]]+)\]\((?P<url>[^)\s]+)\)"
    r"|\*\*(?P<strong>.+?)\*\*|\*(?P<em>[^*\s](?:[^*]*[^*\s])?)\*"
    r"|(?P<ph>\{\{[^}]*\}\})"
)


# --- reading and inline rendering ------------------------------------------------------------


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


@dataclass
class _Ctx:
    """What rendering needs: where we are, the measured values, the glossary index."""

    where: str
    values: Mapping[str, Any] | None
    gloss: Mapping[str, str]
    missing: list[str] = field(default_factory=list)
    line: int = 0
    slots: bool = False  # numbers as slots the page fills (unknown values allowed)

    def at(self, line: int) -> str:
        return f"{self.where}:{line}"


def _value(m: re.Match[str], ctx: _Ctx, *, tex: bool) -> str | None:
    """The shown text of placeholder `m`, or None while its value is not known."""
    try:
        check_spec(m[3])
    except LessonError as err:
        raise LessonError(f"{ctx.at(ctx.line)}: {m[0]}: {err}") from err
    if ctx.values is None:
        return None
    try:
        return format_value(lookup(ctx.values, m[1], m[2]), m[3], tex=tex)
    except KeyError:
        if not ctx.slots:
            ctx.missing.append(f"{{{{{m[1]}.{m[2]}}}}} ({ctx.at(ctx.line)})")
        return None
    except (LessonError, ValueError) as err:
        if ctx.slots:  # e.g. "never reached" (None): the page shows the slot as pending
            return None
        raise LessonError(f"{ctx.at(ctx.line)}: {m[0]}: {err}") from err


def _match(text: str, ctx: _Ctx) -> re.Match[str]:
    m = PLACEHOLDER_RE.fullmatch(text)
    if not m:
        raise LessonError(f"{ctx.at(ctx.line)}: bad placeholder {text} (want {{{{F2.2.name}}}})")
    return m


def _placeholder(text: str, ctx: _Ctx) -> str:
    """A placeholder in prose → HTML: the value, a slot, or (no values) the placeholder itself."""
    m = _match(text, ctx)
    shown = _value(m, ctx, tex=False)
    if ctx.slots:
        return slot_html(m[1], m[2], m[3], shown)
    return html.escape(text if shown is None else shown, quote=False)


def _placeholder_tex(m: re.Match[str], ctx: _Ctx) -> str:
    shown = _value(m, ctx, tex=True)
    if ctx.slots:
        return slot_tex(m[1], m[2], m[3], shown)
    return (m[0] if shown is None else shown).replace("%", r"\%")  # % would start a comment


def _tex(tex: str, ctx: _Ctx) -> str:
    """Placeholders filled (or slots), \\hl{KEY} checked and converted."""
    tex = PLACEHOLDER_RE.sub(lambda m: _placeholder_tex(m, ctx), tex)
    for key in HL_RE.findall(tex):
        if key not in HL_KEYS:
            raise LessonError(f"{ctx.at(ctx.line)}: unknown \\hl key {key!r}")
    return HL_RE.sub(r"\\htmlData{hl=\1}", tex)


def _inline(text: str, ctx: _Ctx) -> str:
    """Markdown inline → safe HTML; our own files, but everything typed is escaped anyway."""
    out, pos = [], 0
    for m in INLINE_RE.finditer(text):
        out.append(html.escape(text[pos : m.start()], quote=False))
        pos = m.end()
        kind = m.lastgroup if m.lastgroup != "shown" else "gloss"
        if kind == "dollar":
            out.append("$")
        elif kind == "math":
            out.append(f'<span class="math">{html.escape(_tex(m["math"], ctx))}</span>')
        elif kind == "code":
            out.append(f"<code>{html.escape(m['code'])}</code>")
        elif kind == "gloss":
            gid = _resolve(m["gloss"], ctx)
            shown = _inline(m["shown"] or m["gloss"], ctx)
            out.append(f'<a class="gloss" href="#gloss-{gid}" data-gloss="{gid}">{shown}</a>')
        elif kind == "url":
            if not m["url"].startswith(("https://", "http://", "#")):
                raise LessonError(f"{ctx.at(ctx.line)}: link {m['url']!r} is not http(s)")
            url = html.escape(m["url"])
            out.append(f'<a href="{url}" rel="noopener">{_inline(m["text"], ctx)}</a>')
        elif kind in ("strong", "em"):
            out.append(f"<{kind}>{_inline(m[kind], ctx)}</{kind}>")
        else:
            out.append(_placeholder(m["ph"], ctx))
    out.append(html.escape(text[pos:], quote=False))
    return "".join(out)


def _resolve(target: str, ctx: _Ctx) -> str:
    gid = ctx.gloss.get(target.strip().lower())
    if gid is None:
        raise LessonError(f"{ctx.at(ctx.line)}: [[{target}]] is not in the glossary")
    return gid


# --- blocks ----------------------------------------------------------------------------------


def _blocks(lines: list[str], first: int, ctx: _Ctx) -> list[dict[str, Any]]:
    """Parse body lines (line number of lines[0] is `first`) into blocks."""
    blocks: list[dict[str, Any]] = []
    i = 0
    while i < len(lines):
        line, ctx.line = lines[i], first + i
        stripped = line.strip()
        if not stripped:
            i += 1
        elif stripped.startswith(":::"):
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == ":::"), None)
            if end is None:
                raise LessonError(f"{ctx.at(first + i)}: box '{stripped}' is never closed")
            blocks.append(_box(stripped[3:].strip(), lines[i + 1 : end], first + i + 1, ctx))
            i = end + 1
        elif m := HEADING_RE.match(line):
            n = sum(b["type"] == "heading" for b in blocks) + 1
            ident = m[3] or f"{ctx.where.split('/')[-1][:2]}-h{n}"  # same in both languages
            blocks.append({"type": "heading", "level": len(m[1]), "id": ident,
                           "html": _inline(m[2], ctx)})  # fmt: skip
            i += 1
        elif stripped.startswith("$$"):
            end = i
            while not (lines[end].strip().endswith("$$") and (end > i or len(stripped) > 2)):
                end += 1
                if end == len(lines):
                    raise LessonError(f"{ctx.at(first + i)}: '$$' is never closed")
            tex = " ".join(x.strip() for x in lines[i : end + 1]).strip()[2:-2].strip()
            blocks.append({"type": "math", "tex": _tex(tex, ctx)})
            i = end + 1
        elif ITEM_RE.match(line):
            i = _list(lines, i, first, ctx, blocks)
        else:
            end = i
            while end < len(lines) and lines[end].strip() and not _starts_block(lines[end]):
                end += 1
            text = " ".join(x.strip() for x in lines[i:end])
            blocks.append({"type": "paragraph", "html": _inline(text, ctx)})
            i = end
    return blocks


def _starts_block(line: str) -> bool:
    s = line.strip()
    return s.startswith((":::", "$$")) or bool(HEADING_RE.match(line) or ITEM_RE.match(line))


def _list(lines: list[str], i: int, first: int, ctx: _Ctx, blocks: list[dict[str, Any]]) -> int:
    """One list (items may continue on indented lines); returns the index after it."""
    ordered = ITEM_RE.match(lines[i])[1] != "-"  # type: ignore[index]
    items: list[str] = []
    while i < len(lines) and (m := ITEM_RE.match(lines[i])):
        ctx.line, text, i = first + i, m[2], i + 1
        while i < len(lines) and lines[i].startswith((" ", "\t")) and lines[i].strip():
            text, i = f"{text} {lines[i].strip()}", i + 1
        items.append(_inline(text, ctx))
        if i + 1 < len(lines) and not lines[i].strip() and ITEM_RE.match(lines[i + 1]):
            i += 1  # a blank line between items keeps the list going
    blocks.append({"type": "list", "ordered": ordered, "items": items})
    return i


def _box(head: str, lines: list[str], first: int, ctx: _Ctx) -> dict[str, Any]:
    kind, _, rest = head.partition(" ")
    rest = rest.strip()
    where = ctx.at(first - 1)
    if kind not in BOXES:
        raise LessonError(f"{where}: unknown box '{kind}'; one of {', '.join(BOXES)}")
    if kind == "figure":
        if rest not in FIGURES:
            raise LessonError(f"{where}: unknown figure {rest!r}")
        return {"type": "figure", "name": rest, "caption": _blocks(lines, first, ctx)}
    if kind == "try":
        return _try(rest, lines, first, ctx)
    if kind == "exercise":
        return _exercise(rest, lines, first, ctx)
    title = _inline(rest, ctx) if rest else None
    if kind == "pitfall" and not title:
        raise LessonError(f"{where}: a pitfall needs a title")
    return {"type": kind, "title": title, "body": _blocks(lines, first, ctx)}


def _try(head: str, lines: list[str], first: int, ctx: _Ctx) -> dict[str, Any]:
    ident, *pairs = head.split()
    args = dict(p.split("=", 1) for p in pairs if "=" in p)
    where = ctx.at(first - 1)
    if args.get("figure") not in FIGURES or not CLAIM_RE.match(args.get("claim", "")):
        raise LessonError(f"{where}: try {ident} needs figure=NAME and claim=ID, got {head!r}")
    when = [x.strip()[5:].strip() for x in lines if x.strip().startswith("when:")]
    if not when:
        raise LessonError(f"{where}: try {ident} needs at least one 'when:' line")
    for cond in when:
        try:
            parse_condition(cond)
        except ConditionError as err:
            raise LessonError(f"{where}: try {ident}: {err}") from err
    body = [x if not x.strip().startswith("when:") else "" for x in lines]
    return {"type": "try", "id": ident, "figure": args["figure"], "claim": args["claim"],
            "when": when, "body": _blocks(body, first, ctx)}  # fmt: skip


def _exercise(ident: str, lines: list[str], first: int, ctx: _Ctx) -> dict[str, Any]:
    """Question, then options `- [ ]`/`- [x]` each with an indented `> feedback`, then answer:."""
    opt = next((i for i, x in enumerate(lines) if OPTION_RE.match(x)), None)
    ans = next((i for i, x in enumerate(lines) if x.startswith("answer:")), None)
    if opt is None or ans is None or ans < opt:
        raise LessonError(f"{ctx.at(first - 1)}: exercise {ident} needs options then 'answer:'")
    options: list[dict[str, Any]] = []
    for i in range(opt, ans):
        line, ctx.line = lines[i], first + i
        if m := OPTION_RE.match(line):
            options.append({"html": _inline(m[2], ctx), "correct": m[1] == "x", "feedback": ""})
        elif line.strip().startswith(">") and options:
            text = line.strip()[1:].strip()
            fb = options[-1]["feedback"]
            options[-1]["feedback"] = f"{fb} {_inline(text, ctx)}".strip()
        elif line.strip():
            raise LessonError(
                f"{ctx.at(first + i)}: in exercise {ident}, expected an option or '>'"
            )
    answer = [lines[ans][len("answer:") :], *lines[ans + 1 :]]
    return {"type": "exercise", "id": ident, "question": _blocks(lines[:opt], first, ctx),
            "options": options, "answer": _blocks(answer, first + ans, ctx)}  # fmt: skip


# --- glossary and the whole lesson -----------------------------------------------------------


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


def _gloss_index(lang: str) -> dict[str, str]:
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
    ctx = _Ctx(f"{lang}/{GLOSSARY_FILE}", values, _gloss_index(lang), slots=slots)
    out = []
    for gid, term, other, text, line in _glossary_entries(lang):
        ctx.line = line
        out.append({"id": gid, "term": term, "other": other, "html": _inline(text, ctx)})
    return out


def _parts(
    lang: str, values: Mapping[str, Any] | None, missing: list[str], *, slots: bool = False
) -> list[dict]:
    parts, index = [], _gloss_index(lang)
    for name in PART_FILES:
        meta, lines, first = _source(lang, name)
        ctx = _Ctx(f"{lang}/{name}", values, index, missing, slots=slots)
        blocks = _blocks(list(lines), first, ctx)
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


def placeholders(lang: str) -> set[str]:
    """Every "ID.name" the text of one language asks the engine for."""
    names = [*PART_FILES, GLOSSARY_FILE]
    text = "\n".join("\n".join(_source(lang, n)[1]) for n in names)
    return {f"{m[1]}.{m[2]}" for m in PLACEHOLDER_RE.finditer(text)}


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
