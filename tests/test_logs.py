"""attnlab.logs: one line an event, in UTC, and uvicorn's access log off unless asked for."""

from __future__ import annotations

import logging
import re
import sys
from datetime import datetime, timezone

from attnlab.logs import LineFormatter, one_line
from attnlab.web import WebSettings
from attnlab.web.server import server_config

LINE = re.compile(r"(\S+Z) (INFO|WARNING|ERROR) ([\w.]+) (.*)")


def _record(msg: str, *args: object, exc_info: object = None) -> logging.LogRecord:
    return logging.LogRecord("attnlab.web", logging.INFO, __file__, 1, msg, args, exc_info)


def test_a_record_is_one_line_with_utc_time_level_source_and_message() -> None:
    record = _record("capacity %d sessions", 19)
    record.created = 1_796_234_400.75  # an instant, whatever this machine's time zone
    (line,) = LineFormatter().format(record).splitlines()
    when, level, name, message = LINE.fullmatch(line).groups()
    utc = datetime.fromtimestamp(1_796_234_400, tz=timezone.utc)
    assert when == utc.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert (level, name, message) == ("INFO", "attnlab.web", "capacity 19 sessions")


def test_a_traceback_and_a_sent_newline_stay_inside_their_record() -> None:
    try:
        1 / 0  # noqa: B018
    except ZeroDivisionError:
        failed = _record("refused %s", "a\r\nINFO attnlab.web forged", exc_info=sys.exc_info())
    text = LineFormatter().format(failed)
    assert "\n" not in text and "\r" not in text
    assert "Traceback (most recent call last):" in text and "ZeroDivisionError" in text
    assert "refused a\\nINFO attnlab.web forged\\nTraceback" in text  # no forged line of its own
    assert one_line("a\rb\nc\r\nd") == "a\\nb\\nc\\nd"


def _emit(name: str, level: int, msg: str) -> None:
    logging.getLogger(name).log(level, msg)


def test_serve_logs_events_and_no_requests_by_default(capsys) -> None:
    config = server_config("attnlab.web.app:app_from_env", WebSettings())
    assert config.access_log is False
    _emit("uvicorn.access", logging.INFO, '127.0.0.1:5000 - "GET /api/figures HTTP/1.1" 200')
    _emit("uvicorn.error", logging.INFO, "Application startup complete.")
    _emit("attnlab.trainpool", logging.ERROR, "a training worker stopped")
    _emit("attnlab.trainpool", logging.DEBUG, "not at the default level")
    lines = capsys.readouterr().err.splitlines()
    assert [LINE.fullmatch(line).group(2, 3, 4) for line in lines] == [
        ("INFO", "uvicorn.error", "Application startup complete."),
        ("ERROR", "attnlab.trainpool", "a training worker stopped"),
    ]


def test_the_access_log_is_there_when_asked_for(capsys) -> None:
    server_config("attnlab.web.app:app_from_env", WebSettings(access_log=True))
    _emit("uvicorn.access", logging.INFO, '127.0.0.1:5000 - "GET /api/figures HTTP/1.1" 200')
    (line,) = capsys.readouterr().err.splitlines()
    assert LINE.fullmatch(line).group(3) == "uvicorn.access"


def test_an_exception_that_ends_a_thread_is_one_record(caplog) -> None:
    import threading

    from attnlab.logs import log_thread_exceptions

    before = threading.excepthook
    log_thread_exceptions()
    try:

        def fail() -> None:
            raise RuntimeError("pipe reset")

        worker = threading.Thread(target=fail, name="_read")
        with caplog.at_level(logging.ERROR, logger="attnlab"):
            worker.start()
            worker.join()
    finally:
        threading.excepthook = before
    (record,) = [r for r in caplog.records if r.name == "attnlab"]
    assert record.getMessage() == "thread _read ended by an exception"
    (line,) = LineFormatter().format(record).splitlines()
    assert "RuntimeError: pipe reset" in line and "Traceback" in line
