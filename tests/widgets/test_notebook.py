"""The tutorial runs headless (nbclient, a real ipykernel) and says what it should."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "notebooks" / "attention.ipynb"
WIDGET = "application/vnd.jupyter.widget-view+json"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def executed():
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=180, kernel_name="python3", allow_errors=False).execute()
    return nb


def _text(nb) -> str:
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def test_every_figure_shows_as_a_widget_with_a_png_beside_it(executed) -> None:
    shown = [o for c in executed.cells if c.cell_type == "code" for o in c.outputs
             if o.output_type in ("display_data", "execute_result")]  # fmt: skip
    assert len(shown) == 8  # the seven figures and one attention map
    for output in shown:
        assert WIDGET in output.data and output.data["image/png"].startswith("iVBORw0KGgo")


def test_the_notebooks_own_checks_hold(executed) -> None:
    text = _text(executed)
    assert "same as attnlab.nn.attention: True" in text
    step = int(re.search(r"attention below 2 cm at step (\d+)", text).group(1))
    assert 0 < step <= 600
    assert re.search(r"largest weight at \|q\| doubled: 0\.9\d+", text)
    assert "tokens per frame: 196" in text


def test_it_asks_the_exercises_questions() -> None:
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    questions = [c for c in nb.cells if c.cell_type == "markdown" and "*Question.*" in c.source]
    assert len(questions) == 7
    assert all(not c.outputs for c in nb.cells if c.cell_type == "code")  # kept clean in git
