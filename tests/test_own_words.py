"""The lesson is written in our own words: facts and numbers from the spec carry over, its
sentences do not.

The spec (shared/seed/000_0564eb995a167a8c.txt) is Chinese, so the check compares every text a
reader sees, in both languages (content/{en,zh}/*.md and the interface strings; the English text
can only share its latin words and numbers), with it, token by token: each
Chinese character is a token, each latin word or number is a token; math ($…$, $$…$$, \\(…\\)),
the engine's placeholders ({{…}}, {…}), markup and punctuation are dropped. A run of more than
MAX_RUN consecutive tokens shared with the spec fails, reported with its file and text.

A reference's authors and title (`- A. Author & B. Author, [Title](url)`) are a bibliographic
record, not prose, and are dropped. A term name (视觉-语言-动作) is no exception: it is short, so
it never fails alone, and a term must not bridge two copied half-sentences into one run.

Run as a script (`python tests/test_own_words.py`) it prints every shared run of 8 or more tokens,
longest first: the measure behind the test, for a writer.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC_NAME = Path("shared", "seed", "000_0564eb995a167a8c.txt")  # beside the repository
CONTENT = ROOT / "src" / "attnlab" / "content"
I18N = ROOT / "src" / "attnlab" / "static" / "i18n"
MAX_RUN = 11  # tokens a run may share; a longer one is a copied sentence, not a shared term

DROP = re.compile(
    r"\$\$.*?\$\$|\$[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]"  # math
    r"|\{\{[^}]*\}\}|\{\w+\}"  # engine placeholders, interface-string variables
    r"|^- [^\[\n]*\[[^\]\n]+\]\([^)\s]+\)"  # a reference: authors, [title](url)
    r"|\[[^\]\[\n]+\]\([^)\s]+\)"  # any other link's text
    # box headers, try-it conditions, front matter
    r"|^(?:::: [^\n]*|when: [^\n]*|id: [^\n]*|answer:|---)$",
    re.S | re.M,
)
TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]|[A-Za-z]+|\d+(?:\.\d+)?")


def tokens(text: str) -> list[str]:
    """The text's tokens (see the module docstring), latin words lower-cased."""
    text = re.sub(r"\[\[([^\]|]+)\|([^\]]+)\]\]", r"\2", text)  # [[term|shown]] → shown
    return [t.lower() for t in TOKEN.findall(DROP.sub(" ", text))]


@dataclass(frozen=True)
class Run:
    where: str  # file (and key, for an interface string)
    text: str  # the shared tokens, joined

    @property
    def length(self) -> int:
        return len(tokens(self.text))


def _join(toks: list[str]) -> str:
    out = ""
    for t in toks:
        out += f" {t}" if out and t.isascii() and out[-1].isascii() else t
    return out


def shared_runs(text: str, where: str, spec_grams: set[tuple[str, ...]], n: int) -> list[Run]:
    """Maximal runs of ≥ n consecutive tokens of `text` that also occur in the spec."""
    toks = tokens(text)
    hit = [tuple(toks[i : i + n]) in spec_grams for i in range(len(toks) - n + 1)]
    runs, i = [], 0
    while i < len(hit):
        if not hit[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(hit) and hit[j + 1]:
            j += 1
        runs.append(Run(where, _join(toks[i : j + n])))
        i = j + 1
    return runs


def spec_path() -> Path:
    """The spec: $ATTNLAB_SPEC, or shared/seed/… in a folder above the repository."""
    if os.environ.get("ATTNLAB_SPEC"):
        return Path(os.environ["ATTNLAB_SPEC"])
    for folder in ROOT.parents:
        if (folder / SPEC_NAME).is_file():
            return folder / SPEC_NAME
    pytest.skip(f"the spec ({SPEC_NAME}) is not beside this repository; set ATTNLAB_SPEC")


def spec_ngrams(n: int) -> set[tuple[str, ...]]:
    toks = tokens(spec_path().read_text("utf-8"))
    return {tuple(toks[i : i + n]) for i in range(len(toks) - n + 1)}


def reader_texts() -> Iterator[tuple[str, str]]:
    """(where, text) of every text a reader sees, in both languages."""
    for path in sorted(CONTENT.glob("*/*.md")):
        yield f"content/{path.parent.name}/{path.name}", path.read_text("utf-8")
    for path in sorted(I18N.glob("*.json")):
        for key, text in json.loads(path.read_text("utf-8")).items():
            yield f"static/i18n/{path.name} {key}", text


def all_runs(n: int) -> list[Run]:
    grams = spec_ngrams(n)
    runs = [r for where, text in reader_texts() for r in shared_runs(text, where, grams, n)]
    return sorted(runs, key=lambda r: -r.length)


# --- the tests --------------------------------------------------------------------------------


def test_the_tokenizer_drops_math_placeholders_markup_and_references() -> None:
    text = (
        "**注意**：$\\alpha_i$ 是 {{F2.4.weight:.2f}} 和 {n}，见 [Attention Is All](https://x.org) "
        "与 [[软查找|查找]] RoPE 2.5"
    )
    assert tokens(text) == [*"注意是和见与查找", "rope", "2.5"]


def test_a_copied_sentence_is_found_and_a_term_name_cannot_bridge_one() -> None:
    grams = spec_ngrams(MAX_RUN + 1)
    copied = "前言。策略真正需要的是按内容路由信息，不管桌上有几个物体。"
    (run,) = shared_runs(copied, "example", grams, MAX_RUN + 1)
    assert run.text.startswith("策略真正需要的是按内容路由信息") and run.length > MAX_RUN
    # the spec's words around a spelled-out term are one run with it (issue 21's 01-why.md)
    assert shared_runs("输出动作 token；视觉-语言-动作 (VLA) 模型", "example", grams, MAX_RUN + 1)


def test_every_text_shares_no_run_longer_than_the_limit_with_the_spec() -> None:
    runs = all_runs(MAX_RUN + 1)
    report = "\n".join(f"  {r.length:3d}  {r.where}: {r.text}" for r in runs)
    assert not runs, f"{len(runs)} runs of > {MAX_RUN} tokens shared with the spec:\n{report}"


def test_the_english_text_is_read_too() -> None:
    where = {w.split(" ")[0].split("/")[1] for w, _ in reader_texts() if w.startswith("content/")}
    files = {w.split(" ")[0] for w, _ in reader_texts() if w.startswith("static/")}
    assert where == {"en", "zh"} and any(f.endswith("en.json") for f in files)


def test_the_panels_textbook_column_quotes_only_the_textbooks_numbers() -> None:
    """The claims panel's "the textbook states" column (claimlesson.*) holds the spec's own
    numbers; a number the spec does not state (one we measured) belongs in "this page measures"."""
    number = re.compile(r"(?<![A-Za-z\d.])\d+(?:\.\d+)?(?![A-Za-z\d])")
    spec = set(re.findall(r"\d+(?:\.\d+)?", spec_path().read_text("utf-8")))  # TeX too: 0\ldots63
    for path in sorted(I18N.glob("*.json")):
        for key, text in json.loads(path.read_text("utf-8")).items():
            if key.startswith("claimlesson."):
                extra = set(number.findall(text)) - spec
                assert not extra, f"{path.name} {key}: {sorted(extra)} not in the textbook"


if __name__ == "__main__":  # the writer's measure: every shared run of ≥ 8 tokens
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    found = all_runs(n)
    for r in found:
        print(f"{r.length:3d}  {r.where}: {r.text}")
    print(f"{len(found)} runs of ≥ {n} tokens; longest {found[0].length if found else 0}")
