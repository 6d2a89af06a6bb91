"""The kernel CPU a widget's display costs, as a person's front-end and as nbconvert ask for it.

A fresh ipykernel per client (jupyter_client, as JupyterLab and nbclient start one) runs the
tutorial's way in: `from attnlab import widgets` in one cell, then one widget displayed per cell.
The client is either a person's front-end (execute requests with allow_stdin true, as
JupyterLab, Notebook and VS Code send them) or nbclient (allow_stdin false: nbconvert
--execute, whose outputs are stored). Prints, per client, the kernel's process CPU of the first
display in the fresh kernel and the median of the later ones, whether each display carried a PNG,
and the person's figures as a ratio to nbclient's (the same displays, the PNG drawn), measured
in the same run. Process CPU, not wall time: another job on the machine moves it much less.

    .venv/bin/python benchmarks/widget_display.py [--later 4] [--figure depth]
"""

from __future__ import annotations

import argparse
import json
import statistics
from typing import Any

from jupyter_client.manager import start_new_kernel

TIMEOUT_S = 120
DISPLAY = """import time as _t, json as _j
_c = _t.process_time(); display(widgets.{figure}()); _c = _t.process_time() - _c
print(_j.dumps({{"cpu_s": _c}}))"""


def run_cell(kc: Any, code: str, allow_stdin: bool) -> list[dict[str, Any]]:
    """Run `code`; the cell's iopub messages up to its idle status (an error raises)."""
    msg_id = kc.execute(code, allow_stdin=allow_stdin)
    messages = []
    while True:
        msg = kc.get_iopub_msg(timeout=TIMEOUT_S)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "error":
            raise RuntimeError("\n".join(msg["content"]["traceback"]))
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return messages
        messages.append(msg)


def display_once(kc: Any, figure: str, allow_stdin: bool) -> tuple[float, bool]:
    """One display in its own cell: the kernel CPU it took, and whether a PNG was sent."""
    messages = run_cell(kc, DISPLAY.format(figure=figure), allow_stdin)
    shown = [m["content"]["data"] for m in messages if m["msg_type"] == "display_data"]
    printed = "".join(m["content"]["text"] for m in messages if m["msg_type"] == "stream")
    return json.loads(printed)["cpu_s"], any("image/png" in d for d in shown)


def client_run(figure: str, later: int, allow_stdin: bool) -> dict[str, Any]:
    """A fresh kernel; the first display and `later` more, as this client asks for them."""
    km, kc = start_new_kernel(kernel_name="python3")
    try:
        run_cell(kc, "from attnlab import widgets", allow_stdin)
        first, first_png = display_once(kc, figure, allow_stdin)
        rest = [display_once(kc, figure, allow_stdin) for _ in range(later)]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return {"first_s": first, "later_s": statistics.median(c for c, _ in rest),
            "pngs": [first_png] + [p for _, p in rest]}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--later", type=int, default=4, help="displays after the first")
    parser.add_argument("--figure", default="depth", help="the widget displayed")
    args = parser.parse_args()
    runs = {
        "nbclient (allow_stdin false)": client_run(args.figure, args.later, allow_stdin=False),
        "person (allow_stdin true)": client_run(args.figure, args.later, allow_stdin=True),
    }
    reference = runs["nbclient (allow_stdin false)"]
    print(f"widgets.{args.figure}() displayed in a fresh kernel, kernel process CPU")
    for name, r in runs.items():
        ratio = [r[k] / reference[k] for k in ("first_s", "later_s")]
        print(f"  {name:30s} first {r['first_s']:.3f} s   later (median of {args.later}) "
              f"{r['later_s']:.3f} s   × nbclient's: {ratio[0]:.3f}, {ratio[1]:.3f}   "
              f"PNG sent: {r['pngs']}")  # fmt: skip


if __name__ == "__main__":
    main()
