"""The try-it condition language (`attnlab.lesson.conditions`): what it means, what it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attnlab.lesson.conditions import ConditionError, condition_paths, evaluate, parse_condition

SHARED = json.loads((Path(__file__).parents[1] / "cases" / "conditions.json").read_text("utf-8"))
# the same data and cases run in the page's JS (tests/e2e/test_shared_cases.py)
DATA = SHARED["data"]


@pytest.mark.parametrize(("condition", "expected"), [tuple(c) for c in SHARED["cases"]])
def test_shared_cases(condition: str, expected: bool | str) -> None:
    if expected == "error":
        with pytest.raises(ConditionError):
            evaluate(condition, DATA)
    else:
        assert evaluate(condition, DATA) is expected


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ('settings.mode == "softmax"', True),
        ('settings.mode != "softmax"', False),
        ("settings.d_k >= 256 and settings.scaled == false", True),
        ("settings.scaled == true or settings.d_k < 2", False),
        ("max(weights) > 0.4", True),
        ("min(weights) >= 0.03", True),
        ("count(weights > 0.4) == 2", True),
        ("count(weights > 0.4) == 1", False),
        ("len(weights) == 5", True),
        ("last(history.attn_err_cm) < 2 and last(history.mlp_err_cm) > 20", True),
        ("at(history.step, 0) == 0 and at(history.step, -1) == 25", True),
        ("history.1.attn_err_cm == 1.5", True),
        ("max(head_weights) == 0.9 and min(head_weights) == 0.1", True),
        ("max(abs(rms)) == 5", True),
        ("min(-rms) == -3", True),
        ("-1.5e1 < -10 and 1e5 > 99999 and .5 == 0.5", True),
        ("true or false and false", True),  # 'and' binds tighter than 'or'
        ("(true or false) and false", False),
        ('max(weights) > 0.9 or (settings.task == "fetch" and len(history) == 2)', True),
        ("settings.d_k == 256.0", True),
        ("settings.scaled == 0", False),  # a bool is not a number
    ],
)
def test_conditions_evaluate(condition: str, expected: bool) -> None:
    assert evaluate(condition, DATA) is expected


@pytest.mark.parametrize(
    "condition",
    [
        "missing > 1",
        "settings.missing == 1",
        "nothing < 3",
        "max(nothing) > 0",
        "at(weights, 9) > 0",
        "last(missing) != 1",
    ],
)
def test_missing_data_means_not_met(condition: str) -> None:
    assert evaluate(condition, DATA) is False


@pytest.mark.parametrize(
    "condition",
    [
        "",
        "settings.d_k >",
        "(max(weights) > 0.5",
        "max(weights) > 0.5)",
        "foo(weights) > 1",
        "at(weights) > 1",
        "max(weights, weights) > 1",
        "0 < settings.d_k < 10",
        "weights @ 2",
        "max(weights) 3",
        "and",
        "weights > 'single'",
        '"unterminated > 1',
    ],
)
def test_bad_conditions_do_not_parse(condition: str) -> None:
    with pytest.raises(ConditionError):
        parse_condition(condition)


@pytest.mark.parametrize(
    "condition",
    [
        "weights > 0.4",  # a list is not true or false: wrap it in count(), max() …
        "max(weights)",
        'settings.mode > "a"',
        "weights > weights",
        "settings.d_k and true",
        "len(settings.d_k) == 1",
        "abs(settings.mode) > 1",
        "at(weights, 0.5) > 0",
    ],
)
def test_conditions_that_cannot_mean_anything_are_errors(condition: str) -> None:
    with pytest.raises(ConditionError):
        evaluate(condition, DATA)


def test_and_or_stop_early() -> None:
    assert evaluate('false and settings.mode > "a"', DATA) is False
    assert evaluate('true or settings.mode > "a"', DATA) is True


def test_condition_paths_lists_what_a_condition_reads() -> None:
    paths = condition_paths('settings.mode == "softmax" and count(weights > 0.4) == 2')
    assert paths == {"settings.mode", "weights"}
