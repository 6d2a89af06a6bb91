"""What one figure request costs the server's CPU, measured at start-up (issue 19).

The stated capacity counts the readers dragging figures beside the learners training
(`attnlab.trainpool.capacity.while_dragging`), so it needs the CPU one figure answer takes. A
drag moves one setting of a figure already drawn: the figure's weights and scenes are built
(their caches warm), so each figure is computed twice at its defaults and the second is
timed — its compute and its JSON, on this thread's CPU clock (other threads' work does not
count). The mean over the figures is the cost of the request a reader's drag sends; the HTTP
stack around it (routing, the guard, the socket write) is not in it, which
`benchmarks/classroom.py` shows beside the server's CPU per request it measured.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable

from attnlab.figures import compute_figure


def answer_cpu_s(name: str) -> float:
    """This thread's CPU seconds for one warm answer of figure `name` at its defaults."""
    json.dumps(compute_figure(name))  # warms the figure's caches, as a drag finds them
    start = time.thread_time()
    json.dumps(compute_figure(name))
    return time.thread_time() - start


def figure_request_cpu_s(names: Iterable[str]) -> float:
    """The mean CPU seconds of one warm figure answer over `names` (a reader drags any)."""
    costs = [answer_cpu_s(name) for name in names]
    if not costs:
        raise ValueError("no figures to measure")
    return sum(costs) / len(costs)
