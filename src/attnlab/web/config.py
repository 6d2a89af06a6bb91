"""The lesson server's limits, in one place so tests can shrink them.

Every limit here protects the reader's own machine: the server runs locally, but a page from
another site could try to talk to it, and a forgotten browser tab must not train forever.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The page's files ship inside the package (see [tool.setuptools.package-data]).
PACKAGE_STATIC = Path(__file__).resolve().parent.parent / "static"


@dataclass(frozen=True)
class WebSettings:
    """Limits and wiring for `create_app`.

    max_sessions: concurrent live-training sockets (FIG 2); the next one is refused as "busy".
    max_steps: steps one trainer may take (then "done": step_limit); config/reset start over.
    idle_timeout_s: a paused session with no client message for this long is closed.
    frame_s: one progress message per frame while training (0.04 s → 25 messages a second).
    max_step_n: the largest n in {"type": "step", "n": n}.
    max_body_bytes / max_message_bytes: the largest HTTP body / socket message we read.
    static_dir: where the page's files are (the package's static/ by default).
    allowed_hosts: host names, besides loopback, that the page may be served under
        (`attnlab serve --host NAME`); "*" trusts any (the reader chose to expose the server).
    trainer_factory: (task, heads, seed) → a trainer with the `attnlab.tabletop.Trainer`
        interface; None means the real one (tests may wrap it to watch it).
    """

    max_sessions: int = 4
    max_steps: int = 20_000
    idle_timeout_s: float = 600.0
    frame_s: float = 0.04
    max_step_n: int = 500
    max_body_bytes: int = 64 * 1024
    max_message_bytes: int = 16 * 1024
    static_dir: Path = PACKAGE_STATIC
    allowed_hosts: tuple[str, ...] = ()
    trainer_factory: Callable[[str, int, int], Any] | None = None
