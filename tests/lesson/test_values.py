"""The lesson's numbers as the server writes them, in prose and in TeX, against the shared
cases that the page's formatter (static/js/lib/lessonvalues.js) meets too
(tests/e2e/test_shared_cases.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from attnlab.lesson.blocks import Context, render_tex
from attnlab.lesson.values import LessonError, format_value

CASES = json.loads((Path(__file__).parents[1] / "cases" / "values.json").read_text("utf-8"))


def _placeholder(spec: str) -> str:
    return "{{M9.v" + (f":{spec}" if spec else "") + "}}"


@pytest.mark.parametrize(("value", "spec", "prose", "tex"), CASES["cases"])
def test_each_shared_case(value: Any, spec: str, prose: str | None, tex: str | None) -> None:
    if prose is None:
        with pytest.raises(LessonError):
            format_value(value, spec or None)
    else:
        assert format_value(value, spec or None) == prose
    ctx = Context("cases", {"M9.v": value}, {})
    if tex is None:
        with pytest.raises(LessonError):
            render_tex(_placeholder(spec), ctx)
    else:
        assert render_tex(_placeholder(spec), ctx) == tex


def test_the_cases_cover_every_kind_of_spec() -> None:
    specs = {spec[:3] if spec.startswith("sci") else spec[-1:] for _, spec, _, _ in CASES["cases"]}
    assert {"", "f", "%", "sci"} <= specs
    assert any(prose is None for _, _, prose, _ in CASES["cases"])
