"""Every test: strict numerics, and a run that leaves no process behind.

Strict numerics: an overflow or a 0/0 (e.g. a fully masked softmax row done wrong) raises
instead of quietly producing inf or NaN. No process left: see tests/leftovers.py.
"""

from __future__ import annotations

# ruff: noqa: I001 — attnlab first: it sets BLAS to one thread before numpy loads, as in use
import attnlab  # noqa: F401
import numpy as np
import pytest
from pathlib import Path

from tests.leftovers import leftovers, mark_session

pytest_plugins = ["tests.flaky"]  # a test that passed only when run again is named at the end
_MARK = {}


def pytest_configure(config: pytest.Config) -> None:
    # before any test starts a process; an xdist worker keeps the mark of the run that started it
    _MARK["session"] = mark_session(inherit=hasattr(config, "workerinput"))


_E2E = Path(__file__).parent / "e2e"


_LONG = ("e2e", "server", "slow")  # a file with such a test takes seconds to minutes


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under tests/e2e drives a browser or a server process: marked e2e, so that
    `make check` (-m "not e2e and not server") leaves the folder out whatever its modules say.

    The files with long tests go first, each kept whole (a stable sort): pytest-xdist hands out
    files in this order (--dist loadfile), and a long one handed out last kept one core busy
    while the other had finished (schemathesis: a minute and a half at the end of a run)."""
    for item in items:
        if _E2E in item.path.parents:
            item.add_marker(pytest.mark.e2e)
    long = {item.path for item in items if any(item.get_closest_marker(m) for m in _LONG)}
    items.sort(key=lambda item: item.path not in long)


@pytest.fixture(autouse=True, scope="session")
def _stop_training_pools():
    """Apps served in this process share training pools (trainpool.pool), and the kept ones a
    claims runner (tests/kept.py): stopped at the end."""
    yield
    from attnlab.trainpool.pool import stop_shared_pools
    from tests.kept import end_kept_measurements

    stop_shared_pools()
    end_kept_measurements()


@pytest.hookimpl(trylast=True)  # after xdist has ended its workers
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if a process the suite started is still alive (and end it)."""
    if "session" not in _MARK or hasattr(session.config, "workerinput"):
        return
    left = leftovers(_MARK["session"])
    if left:
        lines = "\n".join(f"  {pid}: {cmd}" for pid, cmd in left.items())
        session.config.get_terminal_writer().line(
            f"\n{len(left)} process(es) started by the tests were still running (now killed):\n"
            + lines,
            red=True,
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True)
def _strict_numpy():
    old = np.seterr(all="raise")
    yield
    np.seterr(**old)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)
