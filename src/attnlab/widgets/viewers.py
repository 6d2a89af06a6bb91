"""Who will see a widget's display: a person at a front-end that draws widgets, or a file.

A widget's static PNG (its figure drawn by attnlab.export) is for outputs that are stored and
read where widgets do not run (GitHub, nbviewer); drawing it costs ~0.6 s of kernel CPU, ~1.8 s
the first time (matplotlib's import and fonts), against ~0.02 s for the widget. The Jupyter
protocol does not tell a kernel which front-end will show a display (ipywidgets' maintainers:
kernel code should not depend on it), and a live view can say it is drawn only after the cell
that displayed it has ended (the kernel reads no message while a cell runs), so the first
display in a fresh kernel cannot wait for it. What the kernel does know at the first display is
the request running the cell: its `allow_stdin`, which the protocol defines as the client
being able to answer `input()`. JupyterLab (and Notebook 7, built on it) sends true, as any
front-end that offers `input()` to a person does: a person reads the outputs as they come, and
the front-end's widget manager draws the view (tests/e2e/test_jupyter.py). nbclient, which nbconvert
--execute, papermill, jupyter-book and the tutorial's outputs.py run a notebook with, sends
false: nobody answers, the outputs are stored, and they get the PNG.

`live_front_end()` is true when any of these says a person's front-end shows the widgets:
the cell's request allows stdin; one of our views said it is drawn (VIEW_SHOWN); ipywidgets'
control comm is open (JupyterLab's widget manager opens it on meeting a kernel with ipywidgets
imported). Outside a kernel (a script, a test) nothing says so: the PNG is drawn.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

__all__ = ["VIEW_SHOWN", "cell_request", "live_front_end", "view_shown"]

VIEW_SHOWN = threading.Event()  # a view of ours said it is drawn: this kernel has a front-end


def view_shown() -> None:
    """One of our views said it is drawn (its "shown" message): this kernel has a front-end."""
    VIEW_SHOWN.set()


def cell_request() -> dict[str, Any] | None:
    """The execute request whose cell is running now, or None outside an ipykernel cell."""
    kernelbase = sys.modules.get("ipykernel.kernelbase")  # imported only if this is a kernel
    if kernelbase is None or not kernelbase.Kernel.initialized():
        return None
    get_parent = getattr(kernelbase.Kernel.instance(), "get_parent", None)  # ipykernel ≥ 6
    parent = get_parent("shell") if get_parent else None
    if not parent or parent.get("header", {}).get("msg_type") != "execute_request":
        return None
    return parent


def live_front_end() -> bool:
    """Whether a person's front-end, which draws widgets, shows this kernel's displays (above)."""
    if VIEW_SHOWN.is_set():
        return True
    import ipywidgets

    if getattr(ipywidgets.Widget, "_control_comm", None) is not None:
        return True
    request = cell_request()
    return request is not None and request.get("content", {}).get("allow_stdin") is True
