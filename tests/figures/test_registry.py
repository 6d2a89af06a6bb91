"""The one list of figures: every entry names modules that exist and a section of the text."""

from __future__ import annotations

import importlib

from attnlab.claims import all_checks
from attnlab.figures import MODULES, figure_modules
from attnlab.figures.registry import FIGURES, by_name, names
from attnlab.lesson import load_lesson


def test_numbers_run_in_lesson_order_and_names_are_unique() -> None:
    assert [f.number for f in FIGURES] == list(range(1, len(FIGURES) + 1))
    assert len(set(names())) == len(FIGURES) == len(MODULES)
    assert all(by_name(f.name) is f for f in FIGURES)


def test_each_entry_names_its_modules() -> None:
    modules = figure_modules()
    for fig in FIGURES:
        assert fig.name == modules[fig.name].NAME
        if fig.export:
            assert callable(importlib.import_module(f"attnlab.export.{fig.export}").draw)
        measured = {
            c.id for c in importlib.import_module(f"attnlab.claims.{fig.claims_module}").CHECKS
        }
        assert set(fig.claim_ids) <= measured, fig.name
    assert all(cid in all_checks() for fig in FIGURES for cid in fig.claim_ids)


def test_each_figure_sits_in_its_section_of_the_text() -> None:
    for lang in ("en", "zh"):
        parts = {p["id"]: p for p in load_lesson(lang, None)["parts"]}
        for fig in FIGURES:
            boxes = [b["name"] for b in parts[fig.section]["blocks"] if b["type"] == "figure"]
            assert fig.name in boxes, (lang, fig.name, fig.section)
