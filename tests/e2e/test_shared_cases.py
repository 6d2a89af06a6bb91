"""The page's own copies of logic that also runs in Python, held to the cases both test suites
read (tests/cases/): the try-it condition language (static/js/lib/condition.js against
attnlab.lesson.conditions: the shared cases, and every condition of the lesson on the figures'
real data), the number formatting of the lesson's text (lib/lessonvalues.js, values.json) and
the reading of settings from the URL (lib/state.js against attnlab.params, settings.json) and
the number slots of the claims panel's strings (lib/lessonvalues.js, slots.json)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from attnlab.figures import compute_figure
from attnlab.lesson import tries
from attnlab.lesson.conditions import ConditionError, evaluate

pytestmark = pytest.mark.e2e

ERROR = "error"  # the expected outcome of a condition that cannot mean anything
CASES = Path(__file__).parents[1] / "cases"
_SHARED = json.loads((CASES / "conditions.json").read_text("utf-8"))
VALUES = json.loads((CASES / "values.json").read_text("utf-8"))
SETTINGS = json.loads((CASES / "settings.json").read_text("utf-8"))
SLOTS = json.loads((CASES / "slots.json").read_text("utf-8"))
DATA: dict[str, Any] = _SHARED["data"]
CASES: list[tuple[str, Any]] = [tuple(case) for case in _SHARED["cases"]]


def _python(condition: str, data: Any) -> Any:
    try:
        return evaluate(condition, data)
    except ConditionError:
        return ERROR


JS = """async ({cases}) => {
  const { conditions, ConditionError } = await import("/static/js/lib/condition.js");
  const reader = conditions();
  return cases.map(([condition, data]) => {
    try {
      return reader.evaluate(condition, data);
    } catch (error) {
      return error instanceof ConditionError ? "error" : `crash: ${error}`;
    }
  });
}"""


@pytest.fixture(scope="module")
def lib_page(browser: Any, server: str) -> Iterator[Any]:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{server}/static/i18n/en.json")  # any document of the lesson's origin
    try:
        yield page
    finally:
        context.close()


def _in_browser(page: Any, cases: list[tuple[str, Any]]) -> list[Any]:
    return page.evaluate(JS, {"cases": [list(c) for c in cases]})


def test_the_shared_cases_agree(lib_page) -> None:
    expected = [want for _, want in CASES]
    assert [_python(c, DATA) for c, _ in CASES] == expected  # the list itself is right
    assert _in_browser(lib_page, [(c, DATA) for c, _ in CASES]) == expected


def _toward(v: tuple[float, float], length: float) -> list[float]:
    return [x * length / math.hypot(*v) for x in v]


TRAINED = (("fetch", 1, 600), ("vector", 2, None), ("vector", 2, 0))  # steps; None: the claims'


def _trained(task: str, heads: int, steps: int | None) -> dict[str, Any]:
    """FIG 2 as the page's try-its read it: the records so far and the colour-match readout."""
    from attnlab.claims.fig2_runs import trained

    tr = trained(task, heads, steps=steps)  # the claims' cached runs (F2.10)
    settings = {"task": task, "heads": heads, "n_objects": 4}
    return {"settings": settings, "history": tr.history, "colour_match": tr.colour_match()}


def _figure_data() -> dict[str, list[dict[str, Any]]]:
    """Real answers of the figures, in states that meet and that miss the lesson's conditions."""
    from attnlab.figures.lookup import DEFAULT_KEYS

    k0 = DEFAULT_KEYS[0:2]
    settings = {
        "lookup": [{}, {"q": _toward(k0, 7.0)}, {"q": [0.05, 0.05]}, {"mode": "hard"}],
        "scaling": [{}, {"d_k": 256, "scaled": False}, {"d_k": 512, "scaled": True}],
        "position": [{}, {"pe": "sinusoidal"}, {"pe": "rope", "m": 9, "n": 13}],
        "depth": [{}, {"residual": False, "depth": 6}, {"norm": "none", "depth": 24}],
        "kv-cache": [{}, {"mask": "block", "cache": False, "step": 8}],
        "tokens": [
            {},
            {"cameras": 4, "patch": 8},
            {"cameras": 4, "patch": 8, "model": "7b"},
            {"model": "7b", "kv": "gqa", "kv_heads": 8},
            {"latents": 256},
        ],
        "flash": [{}, {"tile": 1, "step": 2}, {"tile": 1, "step": 7}, {"tile": 5, "step": 3}],
    }
    out = {
        name: [compute_figure(name, raw) for raw in variants] for name, variants in settings.items()
    }
    history = [{"step": 25 * i, "attn_err_cm": 30.0 / (i + 1), "attn_err6_cm": 31.0 / (i + 1),
                "mlp_err_cm": 40.0 - i} for i in range(80)]  # fmt: skip
    out["training"] = [
        {"settings": {"task": t, "heads": h, "n_objects": n}, "history": history[:k]}
        for t, h, n, k in (("fetch", 1, 6, 20), ("vector", 1, 4, 80), ("vector", 2, 4, 3))
    ]
    out["training"] += [_trained(task, heads, steps) for task, heads, steps in TRAINED]
    out["position"] += [{**out["position"][0], "settings": {"shift": s}} for s in (2, 3)]
    return out


def test_the_lesson_s_conditions_agree_on_real_figure_data(lib_page) -> None:
    data = _figure_data()
    cases = [(cond, d) for t in tries() for cond in t["when"] for d in data[t["figure"]]]
    assert len(cases) > 50
    python = [_python(c, d) for c, d in cases]
    assert ERROR not in python
    assert True in python and False in python  # the data meets some conditions, not all
    assert _in_browser(lib_page, cases) == python


def test_the_page_formats_the_shared_values(lib_page) -> None:
    shown = lib_page.evaluate(
        """async (cases) => {
             const V = await import("/static/js/lib/lessonvalues.js");
             const both = (v, s) => [V.formatValue(v, s), V.formatValue(v, s, {tex: true})];
             return cases.map(([v, spec]) => both(v, spec));
           }""",
        VALUES["cases"],
    )
    assert shown == [[prose, tex] for _, _, prose, tex in VALUES["cases"]]


def test_the_page_reads_the_shared_settings(lib_page) -> None:
    read = lib_page.evaluate(
        """async ({specs, cases}) => {
             const { coerce } = await import("/static/js/lib/state.js");
             return cases.map(([spec, text]) => coerce(specs[spec], text) ?? null);
           }""",
        {"specs": SETTINGS["specs"], "cases": SETTINGS["cases"]},
    )
    assert read == [value for _, _, value in SETTINGS["cases"]]


def test_the_page_writes_the_shared_slots(lib_page) -> None:
    from attnlab.lesson.blocks import PLACEHOLDER_RE

    written = lib_page.evaluate(
        """async ({values, texts}) => {
             const V = await import("/static/js/lib/lessonvalues.js");
             const { escapeHTML } = await import("/static/js/lib/format.js");
             return {source: V.PLACEHOLDER.source,
                     html: texts.map((text) => V.slotsHTML(escapeHTML(text), values))};
           }""",
        {"values": SLOTS["values"], "texts": [text for text, _ in SLOTS["cases"]]},
    )
    assert written["source"] == PLACEHOLDER_RE.pattern  # the same placeholder syntax
    assert written["html"] == [html for _, html in SLOTS["cases"]]
