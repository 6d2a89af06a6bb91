"""The lesson's Markdown subset → plain blocks: inline text, formulas, lists, boxes.

The format is described in `attnlab.lesson`; this module turns the body lines of one content
file into blocks, with every number filled from the engine's values (or left as a slot, see
`attnlab.lesson.values`) and every `when:` condition parsed (`attnlab.lesson.conditions`). The
page renders the blocks (static/js/lib/lesson.js).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from attnlab.figures.registry import names
from attnlab.lesson.conditions import ConditionError, parse_condition
from attnlab.lesson.values import LessonError, check_spec, format_value, lookup, slot_html, slot_tex

__all__ = ["HL_KEYS", "PLACEHOLDER_RE", "Context", "parse_blocks", "render_inline", "render_tex"]

FIGURES = names()  # the names a `::: figure NAME` or `::: try … figure=NAME` may use
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
INLINE_RE = re.compile(
    r"(?P<dollar>\\\$)|\$(?P<math>[^$]+)\$|`(?P<code>[^`]+)`"
    r"|\[\[(?P<gloss>[^\]|]+)(?:\|(?P<shown>[^\]]+))?\]\]"
    r"|\[(?P<text>[^\]]+)\]\((?P<url>[^)\s]+)\)"
    r"|\*\*(?P<strong>.+?)\*\*|\*(?P<em>[^*\s](?:[^*]*[^*\s])?)\*"
    r"|(?P<ph>\{\{[^}]*\}\})"
)


@dataclass
class Context:
    """What rendering needs: where we are, the measured values, the glossary index."""

    where: str
    values: Mapping[str, Any] | None
    gloss: Mapping[str, str]
    missing: list[str] = field(default_factory=list)
    line: int = 0
    slots: bool = False  # numbers as slots the page fills (unknown values allowed)

    def at(self, line: int) -> str:
        return f"{self.where}:{line}"


def _value(m: re.Match[str], ctx: Context, *, tex: bool) -> str | None:
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


def _match(text: str, ctx: Context) -> re.Match[str]:
    m = PLACEHOLDER_RE.fullmatch(text)
    if not m:
        raise LessonError(f"{ctx.at(ctx.line)}: bad placeholder {text} (want {{{{F2.2.name}}}})")
    return m


def _placeholder(text: str, ctx: Context) -> str:
    """A placeholder in prose → HTML: the value, a slot, or (no values) the placeholder itself."""
    m = _match(text, ctx)
    shown = _value(m, ctx, tex=False)
    if ctx.slots:
        return slot_html(m[1], m[2], m[3], shown)
    return html.escape(text if shown is None else shown, quote=False)


def _placeholder_tex(m: re.Match[str], ctx: Context) -> str:
    shown = _value(m, ctx, tex=True)
    if ctx.slots:
        return slot_tex(m[1], m[2], m[3], shown)
    return (m[0] if shown is None else shown).replace("%", r"\%")  # % would start a comment


def render_tex(tex: str, ctx: Context) -> str:
    """Placeholders filled (or slots), \\hl{KEY} checked and converted."""
    tex = PLACEHOLDER_RE.sub(lambda m: _placeholder_tex(m, ctx), tex)
    for key in HL_RE.findall(tex):
        if key not in HL_KEYS:
            raise LessonError(f"{ctx.at(ctx.line)}: unknown \\hl key {key!r}")
    return HL_RE.sub(r"\\htmlData{hl=\1}", tex)


def render_inline(text: str, ctx: Context) -> str:
    """Markdown inline → safe HTML; our own files, but everything typed is escaped anyway."""
    out, pos = [], 0
    for m in INLINE_RE.finditer(text):
        out.append(html.escape(text[pos : m.start()], quote=False))
        pos = m.end()
        kind = m.lastgroup if m.lastgroup != "shown" else "gloss"
        if kind == "dollar":
            out.append("$")
        elif kind == "math":
            out.append(f'<span class="math">{html.escape(render_tex(m["math"], ctx))}</span>')
        elif kind == "code":
            out.append(f"<code>{html.escape(m['code'])}</code>")
        elif kind == "gloss":
            gid = _resolve(m["gloss"], ctx)
            shown = render_inline(m["shown"] or m["gloss"], ctx)
            out.append(f'<a class="gloss" href="#gloss-{gid}" data-gloss="{gid}">{shown}</a>')
        elif kind == "url":
            if not m["url"].startswith(("https://", "http://", "#")):
                raise LessonError(f"{ctx.at(ctx.line)}: link {m['url']!r} is not http(s)")
            url = html.escape(m["url"])
            out.append(f'<a href="{url}" rel="noopener">{render_inline(m["text"], ctx)}</a>')
        elif kind in ("strong", "em"):
            out.append(f"<{kind}>{render_inline(m[kind], ctx)}</{kind}>")
        else:
            out.append(_placeholder(m["ph"], ctx))
    out.append(html.escape(text[pos:], quote=False))
    return "".join(out)


def _resolve(target: str, ctx: Context) -> str:
    gid = ctx.gloss.get(target.strip().lower())
    if gid is None:
        raise LessonError(f"{ctx.at(ctx.line)}: [[{target}]] is not in the glossary")
    return gid


# --- blocks ----------------------------------------------------------------------------------


def parse_blocks(lines: list[str], first: int, ctx: Context) -> list[dict[str, Any]]:
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
                           "html": render_inline(m[2], ctx)})  # fmt: skip
            i += 1
        elif stripped.startswith("$$"):
            end = i
            while not (lines[end].strip().endswith("$$") and (end > i or len(stripped) > 2)):
                end += 1
                if end == len(lines):
                    raise LessonError(f"{ctx.at(first + i)}: '$$' is never closed")
            tex = " ".join(x.strip() for x in lines[i : end + 1]).strip()[2:-2].strip()
            blocks.append({"type": "math", "tex": render_tex(tex, ctx)})
            i = end + 1
        elif ITEM_RE.match(line):
            i = _list(lines, i, first, ctx, blocks)
        else:
            end = i
            while end < len(lines) and lines[end].strip() and not _starts_block(lines[end]):
                end += 1
            text = " ".join(x.strip() for x in lines[i:end])
            blocks.append({"type": "paragraph", "html": render_inline(text, ctx)})
            i = end
    return blocks


def _starts_block(line: str) -> bool:
    s = line.strip()
    return s.startswith((":::", "$$")) or bool(HEADING_RE.match(line) or ITEM_RE.match(line))


def _list(lines: list[str], i: int, first: int, ctx: Context, blocks: list[dict[str, Any]]) -> int:
    """One list (items may continue on indented lines); returns the index after it."""
    ordered = ITEM_RE.match(lines[i])[1] != "-"  # type: ignore[index]
    items: list[str] = []
    while i < len(lines) and (m := ITEM_RE.match(lines[i])):
        ctx.line, text, i = first + i, m[2], i + 1
        while i < len(lines) and lines[i].startswith((" ", "\t")) and lines[i].strip():
            text, i = f"{text} {lines[i].strip()}", i + 1
        items.append(render_inline(text, ctx))
        if i + 1 < len(lines) and not lines[i].strip() and ITEM_RE.match(lines[i + 1]):
            i += 1  # a blank line between items keeps the list going
    blocks.append({"type": "list", "ordered": ordered, "items": items})
    return i


def _box(head: str, lines: list[str], first: int, ctx: Context) -> dict[str, Any]:
    kind, _, rest = head.partition(" ")
    rest = rest.strip()
    where = ctx.at(first - 1)
    if kind not in BOXES:
        raise LessonError(f"{where}: unknown box '{kind}'; one of {', '.join(BOXES)}")
    if kind == "figure":
        if rest not in FIGURES:
            raise LessonError(f"{where}: unknown figure {rest!r}")
        return {"type": "figure", "name": rest, "caption": parse_blocks(lines, first, ctx)}
    if kind == "try":
        return _try(rest, lines, first, ctx)
    if kind == "exercise":
        return _exercise(rest, lines, first, ctx)
    title = render_inline(rest, ctx) if rest else None
    if kind == "pitfall" and not title:
        raise LessonError(f"{where}: a pitfall needs a title")
    return {"type": kind, "title": title, "body": parse_blocks(lines, first, ctx)}


def _try(head: str, lines: list[str], first: int, ctx: Context) -> dict[str, Any]:
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
            "when": when, "body": parse_blocks(body, first, ctx)}  # fmt: skip


def _exercise(ident: str, lines: list[str], first: int, ctx: Context) -> dict[str, Any]:
    """Question, then options `- [ ]`/`- [x]` each with an indented `> feedback`, then `hint:`
    (one line: shown after a wrong choice, so a retry is not spoiled), then `answer:`."""
    opt = next((i for i, x in enumerate(lines) if OPTION_RE.match(x)), None)
    hint = next((i for i, x in enumerate(lines) if x.startswith("hint:")), None)
    ans = next((i for i, x in enumerate(lines) if x.startswith("answer:")), None)
    if opt is None or hint is None or ans is None or not opt < hint < ans:
        raise LessonError(
            f"{ctx.at(first - 1)}: exercise {ident} needs options, then 'hint:', then 'answer:'"
        )
    ctx.line = first + hint
    hint_html = render_inline(lines[hint][len("hint:") :].strip(), ctx)
    if not hint_html or any(x.strip() for x in lines[hint + 1 : ans]):
        raise LessonError(f"{ctx.at(first + hint)}: exercise {ident}: 'hint:' is one line")
    options: list[dict[str, Any]] = []
    for i in range(opt, hint):
        line, ctx.line = lines[i], first + i
        if m := OPTION_RE.match(line):
            shown = render_inline(m[2], ctx)
            options.append({"html": shown, "correct": m[1] == "x", "feedback": ""})
        elif line.strip().startswith(">") and options:
            text = line.strip()[1:].strip()
            fb = options[-1]["feedback"]
            options[-1]["feedback"] = f"{fb} {render_inline(text, ctx)}".strip()
        elif line.strip():
            raise LessonError(
                f"{ctx.at(first + i)}: in exercise {ident}, expected an option or '>'"
            )
    answer = [lines[ans][len("answer:") :], *lines[ans + 1 :]]
    return {"type": "exercise", "id": ident, "question": parse_blocks(lines[:opt], first, ctx),
            "options": options, "hint": hint_html,
            "answer": parse_blocks(answer, first + ans, ctx)}  # fmt: skip
