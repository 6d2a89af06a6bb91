"""A test that passed only when run again is named, never passed over in silence.

`make test` runs each failed test once more (pytest-rerunfailures, `--reruns 1`): a verdict that
a busy machine turned red once does not throw the whole run away. The safety net hides nothing:
every test that failed and then passed is listed by name at the very end of the output, as a
defect to mend (its verdict depends on something it should not, most often the machine's speed).

The reports reach this plugin in the process that prints the summary: pytest's own, or with
pytest-xdist the controller, which receives every worker's reports.
"""

from __future__ import annotations

import pytest

_failed_once: set[str] = set()  # node ids with a report whose outcome was "rerun"
_flaky: list[str] = []  # of those, the ones that then passed, in the order they did


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.outcome == "rerun":
        _failed_once.add(report.nodeid)
    elif report.when == "call" and report.passed and report.nodeid in _failed_once:
        _flaky.append(report.nodeid)


@pytest.hookimpl(trylast=True)  # after every other section: the last thing before the totals
def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _flaky:
        return
    terminalreporter.write_sep("=", f"{len(_flaky)} flaky test(s): passed only when run again")
    for nodeid in _flaky:
        terminalreporter.write_line(f"FLAKY {nodeid}", yellow=True, bold=True)
    terminalreporter.write_line(
        "Each is a defect: its verdict depends on something it should not (the machine's speed?)."
    )
