"""What `pip install` gives a notebook user: the widgets, and a front-end only when asked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11 on; 3.10 reads no TOML of its own
ROOT = Path(__file__).resolve().parents[2]


def _extras() -> dict[str, list[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    return project["optional-dependencies"]


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~; ]", r, maxsplit=1)[0] for r in requirements}


def test_the_lab_extra_brings_the_widgets_and_jupyterlab() -> None:
    extras = _extras()
    assert "jupyterlab" not in _names(extras["notebook"])  # [notebook]: the widgets only
    assert _names(extras["lab"]) == {"attnlab[notebook]", "jupyterlab"}
    assert "attnlab[lab]" in _names(extras["dev"])  # the e2e tests run the JupyterLab it names


def test_the_readme_says_a_front_end_is_installed_apart_or_by_the_lab_extra() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("## In a notebook", 1)[1].split("\n## ", 1)[0]
    install = re.findall(r'pip install "attnlab\[(\w+)\]"', section)
    assert install == ["notebook", "lab"] and set(install) <= set(_extras())
    assert "not a front-end" in section
