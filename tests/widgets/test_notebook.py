"""The tutorial runs headless (nbclient, a real ipykernel), says what it should, and is stored
with the outputs that run gives (docs/notebooks/outputs.py), for readers without a kernel."""

from __future__ import annotations

import base64
import copy
import importlib.util
import io
import re
from pathlib import Path

import numpy as np
import pytest

from attnlab.widgets.drawn import differences

OUTPUTS = Path(__file__).resolve().parents[2] / "docs" / "notebooks" / "outputs.py"
_spec = importlib.util.spec_from_file_location("notebook_outputs", OUTPUTS)
outputs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(outputs)  # type: ignore[union-attr]
NOTEBOOK, WIDGET = outputs.NOTEBOOK, outputs.WIDGET
MAX_BYTES = 320_000  # the stored notebook: eight small PNGs and the text
PIXEL_TOL = 0.02  # mean |Δ| of a stored PNG against a fresh one (0–1): font rendering, not content

pytestmark = [pytest.mark.slow, pytest.mark.server]  # a Jupyter kernel: not in `make check`


@pytest.fixture(scope="module")
def executed():
    return outputs.executed()


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


def _pixels(output) -> np.ndarray:
    import matplotlib.image

    return matplotlib.image.imread(io.BytesIO(base64.b64decode(output.data["image/png"])), "png")


def _same_output(stored, fresh) -> None:
    assert stored.output_type == fresh.output_type
    if stored.output_type == "stream":  # the notebook prints its floats rounded (2–3 digits):
        assert stored.text == fresh.text  # well above float noise, so the same on any machine
        return
    assert stored.data["text/plain"] == fresh.data["text/plain"]
    # drawn from the same data: its figure and settings, its floats within a stated tolerance
    assert differences(stored.metadata["attnlab"], fresh.metadata["attnlab"]) == []
    old, new = _pixels(stored), _pixels(fresh)
    assert old.shape == new.shape and np.abs(old[..., :3] - new[..., :3]).mean() < PIXEL_TOL


def test_the_stored_outputs_are_what_a_run_gives(executed) -> None:
    import nbformat

    stored = nbformat.read(NOTEBOOK, as_version=4)
    fresh = outputs.for_storage(copy.deepcopy(executed))
    for old, new in zip(stored.cells, fresh.cells, strict=True):
        assert old.source == new.source
        if old.cell_type != "code":
            continue
        assert len(old.outputs) == len(new.outputs), f"stale outputs: make notebook ({old.source})"
        for a, b in zip(old.outputs, new.outputs, strict=True):
            _same_output(a, b)


def test_the_stored_notebook_shows_pictures_and_stays_small() -> None:
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    shown = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if "data" in o]
    assert len(shown) == 8 and all(o.data["image/png"] for o in shown)  # GitHub shows these
    assert not any(WIDGET in o.data for o in shown)  # no view without its kernel
    assert "widgets" not in nb.metadata
    assert not any("execution" in c.metadata for c in nb.cells)  # no run times
    assert all(c.execution_count is None for c in nb.cells if c.cell_type == "code")
    assert NOTEBOOK.stat().st_size < MAX_BYTES
