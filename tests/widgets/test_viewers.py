"""A display draws the PNG for nbclient's stored outputs, never for a person's front-end.

A real ipykernel (jupyter_client, as JupyterLab and nbclient start one) runs the cells; the
kernel counts every PNG a widget draws. The first display in the fresh kernel is the one that
matters: no view can have said it is drawn yet (it would answer after the cell).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from attnlab.widgets.viewers import cell_request, live_front_end

pytestmark = [pytest.mark.slow, pytest.mark.server]  # a Jupyter kernel: not in `make check`

COUNTING = """from attnlab import widgets
from attnlab.widgets.base import FigureWidget
drawn = []
_png = FigureWidget.figure_png
FigureWidget.figure_png = lambda self: drawn.append(self.FIGURE) or _png(self)"""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A fresh ipykernel (its IPython profile in a temporary folder), shut down afterwards."""
    import os

    from jupyter_client.manager import start_new_kernel

    ipython = tmp_path_factory.mktemp("ipython")
    km, kc = start_new_kernel(kernel_name="python3", env={**os.environ, "IPYTHONDIR": str(ipython)})
    try:
        yield kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def run_cell(kc: Any, code: str, allow_stdin: bool) -> tuple[list[dict[str, Any]], str]:
    """Run `code` as a client with `allow_stdin` asks: the displays' data and what it printed."""
    msg_id = kc.execute(code, allow_stdin=allow_stdin)
    shown, printed = [], ""
    while True:
        msg = kc.get_iopub_msg(timeout=120)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        assert kind != "error", "\\n".join(content["traceback"])
        if kind == "status" and content["execution_state"] == "idle":
            return shown, printed
        shown += [content["data"]] if kind in ("display_data", "execute_result") else []
        printed += content["text"] if kind == "stream" else ""


def test_a_persons_first_display_draws_no_png_and_nbclients_does(kernel) -> None:
    run_cell(kernel, COUNTING, allow_stdin=True)
    # JupyterLab, Notebook, VS Code: allow_stdin true; the kernel is fresh, no view has answered
    shown, _ = run_cell(kernel, "widgets.depth()", allow_stdin=True)
    assert "application/vnd.jupyter.widget-view+json" in shown[0]
    assert "image/png" not in shown[0]
    _, printed = run_cell(kernel, "print(drawn)", allow_stdin=True)
    assert printed.strip() == "[]", "a PNG was drawn for a person's front-end"
    # nbclient (nbconvert --execute): allow_stdin false; its outputs are stored, with the PNG
    shown, _ = run_cell(kernel, "widgets.kv_cache()", allow_stdin=False)
    assert shown[0]["image/png"] and "application/vnd.jupyter.widget-view+json" in shown[0]
    _, printed = run_cell(kernel, "print(drawn)", allow_stdin=False)
    assert printed.strip() == "['kv-cache']"


def test_outside_a_kernel_nothing_says_a_person_looks() -> None:
    assert cell_request() is None and not live_front_end()
