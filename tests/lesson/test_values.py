"""The lesson's numbers as the server writes them, in prose and in TeX, against the shared
cases that the page's formatter (static/js/lib/lessonvalues.js) meets too
(tests/e2e/test_shared_cases.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attnlab.lesson import values
from attnlab.lesson.blocks import Context, render_tex
from attnlab.lesson.values import LessonError, check_spec, format_value, lookup

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


@pytest.mark.parametrize("spec", [None, "", ".0f", ".2f", ".1%", "sci", "sci0", "sci3"])
def test_specs_the_page_can_follow_pass(spec):
    check_spec(spec)


@pytest.mark.parametrize("spec", [".2e", "e", ",", ".f", "sci-1", "3f", ".2f%", "0.2f"])
def test_other_specs_are_refused(spec):
    with pytest.raises(LessonError, match="format"):
        check_spec(spec)
    with pytest.raises(LessonError):
        format_value(1.5, spec)


def test_scientific_notation_in_prose_and_in_tex():
    assert format_value(790719351.6, "sci1", tex=True) == r"7.9\times10^{8}"
    assert format_value(4.1e-8, "sci2", tex=True) == r"4.10\times10^{-8}"
    assert format_value(-3.0e5, "sci0") == "-3 × 10⁵"


def test_readable_defaults_by_size_and_type():
    assert format_value(np.int64(362), None) == "362"
    assert format_value(np.float64(24.0), None) == "24"
    assert format_value(123.6, None) == "124"  # a count, no decimals
    assert format_value(0.0123, None) == "0.0123"
    assert format_value(1e-4, None) == "1.0e-04"  # below 1e-3: too small for three digits


def test_lookup_reads_flat_and_grouped_values():
    values = {"F2.2.steps": 225, "F2.8": {"max_rel_error": 2e-8, "n_params": 362}}
    assert lookup(values, "F2.2", "steps") == 225
    assert lookup(values, "F2.8", "n_params") == 362
    assert lookup({"F2.8.n_params": 1, "F2.8": {"n_params": 2}}, "F2.8", "n_params") == 1
    for claim, name in (("F2.2", "seconds"), ("F9.9", "steps"), ("F2.8", "eps")):
        with pytest.raises(KeyError):
            lookup(values, claim, name)


def test_a_prose_slot_waits_then_shows_its_value():
    pending = values.slot_html("F2.2", "steps", ".0f", None)
    assert pending == (
        '<span class="val pending" data-claim="F2.2" data-name="steps" data-fmt=".0f">…</span>'
    )
    shown = values.slot_html("F7.3", "share", ".0%", "<51%>")
    assert 'class="val"' in shown and ">&lt;51%&gt;</span>" in shown  # escaped, never markup
    assert 'data-fmt=""' in values.slot_html("F2.2", "steps", None, "225")


def test_a_tex_slot_spells_percent_so_tex_reads_no_comment():
    assert (
        values.slot_tex("F7.3", "share", ".0%", "51%")
        == r"\htmlData{claim=F7.3,name=share,fmt=.0pct}{51\%}"
    )
    assert (
        values.slot_tex("F2.2", "steps", None, None) == r"\htmlData{claim=F2.2,name=steps}{\ldots}"
    )
