"""Log lines a service manager can read: one line an event, in UTC, with level and source.

    2026-12-02T18:00:00Z INFO uvicorn.error training: 2 worker processes … capacity 16 sessions

journald (and any log shipper) takes each line of a service's output as one entry, so a
record never spans lines: a traceback, or a newline inside a message (text a client sent may
reach one), is folded into its record as a literal `\\n` — nor can a client's text forge a
line of its own. `log_config()` is a `logging.config.dictConfig` dict, the shape uvicorn's
`log_config` takes, so `attnlab serve` configures it through uvicorn (in every process of
`--workers N`): uvicorn's own loggers and ours write the same lines to stderr.

uvicorn's access log (one line a request) is off unless asked for (`serve --access-log`): a
class of 40 dragging sliders makes thousands of requests a minute, and would bury the events.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from typing import Any, TextIO

LINE_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


class LineFormatter(logging.Formatter):
    """`LINE_FORMAT` with the time in UTC (ISO 8601, seconds, "Z") on one line."""

    converter = time.gmtime
    default_time_format = "%Y-%m-%dT%H:%M:%SZ"
    default_msec_format = None  # type: ignore[assignment]  # the seconds are enough to read

    def __init__(self, fmt: str = LINE_FORMAT) -> None:
        super().__init__(fmt)

    def format(self, record: logging.LogRecord) -> str:
        return one_line(super().format(record))


def one_line(text: str) -> str:
    """`text` with every line break (CRLF, CR, LF) written as a literal backslash-n."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to `sys.stderr` as it is when a record comes, not as it was when configured
    (as logging's own last resort does): a test, or a tool, may swap sys.stderr meanwhile."""

    def __init__(self) -> None:
        logging.Handler.__init__(self)  # not StreamHandler's: it would pin today's stream

    @property
    def stream(self) -> TextIO:  # type: ignore[override]
        return sys.stderr


def log_config(level: str = "INFO") -> dict[str, Any]:
    """dictConfig for `serve`: our loggers and uvicorn's at `level`, other libraries' warnings,
    all through one handler on the root logger (the access log's level is uvicorn's choice)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"line": {"()": f"{__name__}.LineFormatter"}},
        "handlers": {"stderr": {"()": f"{__name__}.StderrHandler", "formatter": "line"}},
        "root": {"handlers": ["stderr"], "level": "WARNING"},
        "loggers": {
            name: {"handlers": [], "level": level, "propagate": True}
            for name in ("attnlab", "uvicorn", "uvicorn.error", "uvicorn.access")
        },
    }


def log_thread_exceptions(logger_name: str = "attnlab") -> None:
    """An exception that ends a thread goes through `logger_name` as one record.

    `threading`'s own hook prints "Exception in thread …" and the traceback straight to
    stderr, many lines that a journal takes as many entries and no formatter ever sees.
    """

    def hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return  # a thread that asked to end (threading's own hook is silent here too)
        name = args.thread.name if args.thread is not None else "?"
        logging.getLogger(logger_name).error(
            "thread %s ended by an exception",
            name,
            exc_info=(args.exc_type, args.exc_value, args.exc_traceback),  # type: ignore[arg-type]
        )

    threading.excepthook = hook
