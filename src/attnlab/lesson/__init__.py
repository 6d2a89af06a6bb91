"""The lesson's words: Markdown files in `content/{en,zh}/` turned into plain blocks for the page.

A writer edits the `.md` files and never this code. The format, in short (every content file
is an example of it):

- front matter `---` / `id: …` / `title: …` / `---`; paragraphs, `##`/`###` headings, `- ` and `1. `
  lists, `**bold**`, `*em*`, `` `code` ``, `[text](url)`, `[[term]]` or `[[term|shown text]]`
  (a glossary link), `$inline$` and `$$display$$` math (KaTeX), `\\hl{KEY}{tex}` for a symbol
  linked to the figures (becomes `\\htmlData{hl=KEY}{tex}`);
- `{{ID.name}}`, `{{ID.name:.1f}}` or `{{ID.name:sci1}}` (7.9 × 10⁸): a number measured by the
  engine (claim ID of CLAIMS.md, value name of that claim; formats in `attnlab.lesson.values`);
- boxes `::: figure NAME`, `::: try ID figure=NAME claim=CLAIM` (then `when: CONDITION` lines, one
  per stage, in order), `::: insight`, `::: note`, `::: pitfall TITLE`, `::: exercise ID` (options
  `- [ ]`/`- [x]`, each followed by an indented `> feedback`, then a one-line `hint:`, then
  `answer:`), each closed by `:::`.

Blocks are dicts with a "type": heading (level, id, html), paragraph (html), list (ordered,
items: [html]), math (tex), figure (name, caption: [blocks]), try (id, figure, claim, when:
[condition], body), insight / note / pitfall (title, body), exercise (id, question, options:
[{html, correct, feedback}], hint (html), answer). Inline math in html is
`<span class="math">TeX</span>`.

The page asks for the text with `slots=True`: the text must not wait for the engine (FIG 2's
numbers take seconds to measure), so every number becomes a slot the page fills when the value
arrives (`attnlab.lesson.values.slot_html` / `slot_tex`), pre-filled with the values known now.

`evaluate(condition, data)` is the try-it grammar (the page has the same in JS): dotted paths
(a path through a list maps over it), numbers, "strings", true/false, unary minus, functions
max min count abs last at len, comparisons (elementwise on lists), and, or, parentheses.

The package mirrors the page's static/js/lib/: `loader` (the files → the lesson; lesson.js
renders it), `blocks` (the Markdown subset), `conditions` (condition.js) and `values`
(lessonvalues.js). What both languages compute is held equal by shared cases that both test
suites read: tests/condition_cases.json and tests/value_cases.json.
"""

from __future__ import annotations

from attnlab.lesson.blocks import HL_KEYS, PLACEHOLDER_RE
from attnlab.lesson.conditions import ConditionError, condition_paths, evaluate, parse_condition
from attnlab.lesson.loader import (
    CONTENT,
    GLOSSARY_FILE,
    LANGS,
    PART_FILES,
    exercises,
    glossary,
    load_lesson,
    placeholders,
    tries,
)
from attnlab.lesson.values import LessonError

__all__ = [
    "CONTENT",
    "GLOSSARY_FILE",
    "HL_KEYS",
    "LANGS",
    "PART_FILES",
    "PLACEHOLDER_RE",
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
