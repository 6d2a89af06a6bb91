"""The try-it condition language in the page (static/js/lib/condition.js) against the one in
Python (attnlab.condition): one list of (condition, data, expected) cases, and every condition
of the lesson on the figures' real data, evaluated in Chromium and in Python; both must agree."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

from attnlab.condition import ConditionError, evaluate
from attnlab.figures import compute_figure
from attnlab.lesson import tries

pytestmark = pytest.mark.e2e

ERROR = "error"  # the expected outcome of a condition that cannot mean anything

DATA = {
    "settings": {"mode": "softmax", "d_k": 256, "scaled": False, "task": "fetch", "heads": 2},
    "weights": [0.05, 0.45, 0.44, 0.03, 0.03],
    "history": [
        {"step": 0, "attn_err_cm": 30.0, "mlp_err_cm": 31.0},
        {"step": 25, "attn_err_cm": 1.5, "mlp_err_cm": 24.0},
    ],
    "head_weights": [[0.9, 0.1], [0.2, 0.8]],
    "rms": [1.0, 3.0, -5.0],
    "flags": [True, False, True, 0, 2],
    "nothing": None,
    "empty": [],
    "nested": {"a": {"b": [1, 2, 3]}},
}

CASES: list[tuple[str, Any]] = [
    ('settings.mode == "softmax"', True),
    ('settings.mode != "softmax"', False),
    ("settings.d_k >= 256 and settings.scaled == false", True),
    ("settings.scaled == true or settings.d_k < 2", False),
    ("max(weights) > 0.4", True),
    ("min(weights) >= 0.03", True),
    ("count(weights > 0.4) == 2", True),
    ("count(flags) == 3", True),
    ("len(weights) == 5 and len(empty) == 0", True),
    ("last(history.attn_err_cm) < 2 and last(history.mlp_err_cm) > 20", True),
    ("at(history.step, 0) == 0 and at(history.step, -1) == 25", True),
    ("history.1.attn_err_cm == 1.5", True),
    ("max(head_weights) == 0.9 and min(head_weights) == 0.1", True),
    ("max(abs(rms)) == 5", True),
    ("min(-rms) == -3", True),
    ("-1.5e1 < -10 and 1e5 > 99999 and .5 == 0.5 and 2. == 2", True),
    ("true or false and false", True),
    ("(true or false) and false", False),
    ("settings.d_k == 256.0", True),
    ("settings.scaled == 0", False),
    ('settings.heads == "2"', False),
    ("max(settings.d_k) == 256", True),
    ("nested.a.b.2 == 3 and len(nested.a.b) == 3", True),
    ("at(nested.a.b, 1.0) == 2", True),
    # missing data: not met
    ("missing > 1", False),
    ("settings.missing == 1", False),
    ("nothing < 3", False),
    ("max(nothing) > 0", False),
    ("max(empty) > 0", False),
    ("last(empty) == 1", False),
    ("at(weights, 9) > 0", False),
    ("at(weights, -6) > 0", False),
    ("history.7.step == 0", False),
    ("nothing != 1", False),
    # nonsense: an error in both
    ("weights > 0.4", ERROR),
    ("max(weights)", ERROR),
    ('settings.mode > "a"', ERROR),
    ("weights > weights", ERROR),
    ("settings.d_k and true", ERROR),
    ("len(settings.d_k) == 1", ERROR),
    ("abs(settings.mode) > 1", ERROR),
    ("at(weights, 0.5) > 0", ERROR),
    ("-settings.scaled < 0", ERROR),
    ("", ERROR),
    ("settings.d_k >", ERROR),
    ("(max(weights) > 0.5", ERROR),
    ("max(weights) > 0.5)", ERROR),
    ("foo(weights) > 1", ERROR),
    ("at(weights) > 1", ERROR),
    ("max(weights, weights) > 1", ERROR),
    ("0 < settings.d_k < 10", ERROR),
    ("weights @ 2", ERROR),
    ("max(weights) 3", ERROR),
    ("and", ERROR),
    ("weights > 'single'", ERROR),
    ('"unterminated > 1', ERROR),
]


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
        "tokens": [{}, {"cameras": 4, "patch": 8}, {"cameras": 4, "patch": 8, "model": "7b"}],
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
