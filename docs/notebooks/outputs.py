"""Run the tutorial and store its outputs, as a reader without a kernel sees them (not a test).

    .venv/bin/python docs/notebooks/outputs.py        (or: make notebook)

GitHub and nbviewer run no widgets, so each widget's stored output is its PNG (image/png, the
slide drawn small, attnlab.widgets.base.png_bytes) and a line of text; the widget's own view
(application/vnd.jupyter.widget-view+json) is not stored: without the kernel's widget state it
could only show an error, and JupyterLab shows the PNG until the cell is run. Run times,
execution counts and widget state are dropped too, so the file changes only when what it shows
changes (and a cell run in JupyterLab gets a new number, as the e2e test waits for).
tests/widgets/test_notebook.py runs the notebook again and fails when these outputs are stale.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

NOTEBOOK = Path(__file__).with_name("attention.ipynb")
WIDGET = "application/vnd.jupyter.widget-view+json"
TIMEOUT_S = 180


def executed(path: Path = NOTEBOOK) -> Any:
    """The notebook run top to bottom in a fresh kernel (nbclient, a real ipykernel)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=TIMEOUT_S, kernel_name="python3", allow_errors=False).execute()
    return nb


def for_storage(nb: Any) -> Any:
    """`nb` as it is stored: no widget views, widget state, run times or execution counts."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.execution_count = None
        for output in cell.get("outputs", []):
            if "execution_count" in output:
                output["execution_count"] = None
            output.get("data", {}).pop(WIDGET, None)
            output.get("metadata", {}).pop(WIDGET, None)
    return nb


def main() -> int:
    import nbformat

    nbformat.write(for_storage(executed()), NOTEBOOK)
    print(f"{NOTEBOOK}: {NOTEBOOK.stat().st_size // 1024} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
