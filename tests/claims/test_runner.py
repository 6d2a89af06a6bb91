"""The claims measured in a worker thread (claims/runner.py): one run at a time, stopped by
close() between claims, sweep values under the fast check's, `since` for pollers, and requests
answered at once — what is measured, or what is still to measure."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time

import pytest

from attnlab.claims import run_claim
from attnlab.claims.runner import Measurements, MeasuringProcess
from tests.proctree import descendants, kill_all, wait_gone

WAIT_S = 30.0
CROSS_PROCESS_REL = 1e-9  # float noise is ~1e-15; a changed number is far above this


def test_one_run_at_a_time_and_close_stops_it_between_claims() -> None:
    measured = Measurements(ids=("F1.1", "F1.2", "F1.3"), text_needs=(), in_process=True)
    with measured.measuring:  # the run waits here, before its first claim
        assert measured.start()
        assert measured.running
        assert not measured.start(fresh=True)  # refused: a run is going on
        measured.close()
    assert measured.wait(WAIT_S)
    answer = measured.snapshot()
    assert answer["claims"] == [] and answer["running"] is False
    assert answer["state"]["kind"] == "start" and answer["state"]["seconds"] is not None
    assert measured.start()  # after the run, a new one may start
    assert measured.wait(WAIT_S)
    assert [c["id"] for c in measured.snapshot()["claims"]] == ["F1.1", "F1.2", "F1.3"]


def test_a_sweep_adds_its_values_under_the_fast_check_s() -> None:
    measured = Measurements(ids=("F4.2",), text_needs={"F4.2.median"}, in_process=True)
    measured.want_sweeps()  # idle: a run measures the sweep only
    assert measured.wait(WAIT_S)
    assert measured.snapshot()["state"]["kind"] == "sweeps"
    assert "median" in measured.values()["F4.2"]
    before = measured.snapshot()["seq"]
    assert measured.start()
    assert measured.wait(WAIT_S)
    values = measured.values()["F4.2"]
    assert values["median"] == run_claim("F4.2", True).values["median"]
    assert {k: values[k] for k in run_claim("F4.2").values} == run_claim("F4.2").values
    newer = measured.snapshot(since=before)
    assert [c["id"] for c in newer["claims"]] == ["F4.2"] and newer["seq"] == before + 1
    measured.want_sweeps()  # measured once already: nothing more to do
    assert not measured.running


def test_a_request_is_answered_at_once_and_its_claims_measured_first() -> None:
    measured = Measurements(ids=("F1.1", "F1.2", "F1.3"), text_needs=(), in_process=True)
    with measured.measuring:  # the startup run is stuck before its first claim
        assert measured.start()
        results, pending = measured.answer(["F1.3"], False)
        assert (results, pending) == ([], ["F1.3"])  # queued, nobody waits
        assert measured.answer(["F1.3", "F2.1"], True) == ([], ["F1.3", "F2.1"])
    assert measured.wait(WAIT_S)
    order = [c["id"] for c in measured.snapshot()["claims"]]
    assert order[0] == "F1.3" and sorted(order) == ["F1.1", "F1.2", "F1.3"]  # asked: first
    results, pending = measured.answer(["F1.3"], False)
    assert pending == [] and results == [run_claim("F1.3").to_dict()]
    results, pending = measured.answer(["F2.1", "F1.3"], True)  # registry order, full mode
    assert pending == [] and [r["id"] for r in results] == ["F1.3", "F2.1"]
    assert results[1] == run_claim("F2.1", True).to_dict()


def test_an_idle_runner_starts_for_a_request_and_unknown_ids_are_refused() -> None:
    from attnlab.params import ParamError

    measured = Measurements(ids=(), text_needs=(), in_process=True)
    with pytest.raises(ParamError):
        measured.answer(["F9.9"], False)
    assert measured.answer(["F3.3"], False)[1] == ["F3.3"]
    assert measured.wait(WAIT_S)
    assert measured.snapshot()["state"]["kind"] == "asked"
    assert measured.answer(["F3.3"], False)[1] == []


def test_by_default_a_child_process_measures_and_close_ends_it() -> None:
    measured = Measurements(ids=("F1.1", "F3.3"), text_needs=())
    assert measured.start()
    assert measured.wait(WAIT_S)
    answer = measured.snapshot()
    assert [c["id"] for c in answer["claims"]] == ["F1.1", "F3.3"]
    # the same engine in another process: its BLAS may use another thread count (the package
    # sets OPENBLAS_NUM_THREADS=1 only where NumPy was not imported first), so float noise only
    assert answer["values"]["F3.3"] == pytest.approx(
        run_claim("F3.3").values, rel=CROSS_PROCESS_REL
    )
    child = measured._where._proc
    assert child.is_alive() and child.pid != os.getpid()
    measured.close()
    assert not child.is_alive()


def test_the_costly_fast_checks_are_measured_last() -> None:
    """F2.11 trains 20 seeds: the page's other numbers come first, in the registry's order."""
    from attnlab.claims import CLAIM_IDS
    from attnlab.claims.runner import cheap_first

    order = cheap_first(CLAIM_IDS)
    assert sorted(order) == sorted(CLAIM_IDS) and order[-1] == "F2.11"
    assert order[:-1] == [c for c in CLAIM_IDS if c != "F2.11"]


def test_a_closed_measuring_process_starts_no_other() -> None:
    """A call racing a close (the server's shutdown) must not leave a new child nobody ends."""
    measuring = MeasuringProcess()
    assert measuring.call("clear") is None
    measuring.close()
    with pytest.raises(EOFError):
        measuring.call("clear")
    assert measuring._proc is None


@pytest.mark.parametrize(("given", "nice"), [(None, 10), ("0", 0), ("3", 3), ("20", 10), ("x", 10)])
def test_the_measuring_process_gives_way_to_the_server(monkeypatch, given, nice) -> None:
    """It runs MEASURE_NICE nicer than the server: readers and learners come first (unless
    NICE_VARIABLE says another niceness: the suite's servers measure as equals, tests/conftest)."""
    from attnlab.claims.runner import MEASURE_NICE, NICE_VARIABLE

    assert MEASURE_NICE == 10
    monkeypatch.delenv(NICE_VARIABLE, raising=False)
    if given is not None:
        monkeypatch.setenv(NICE_VARIABLE, given)
    measuring = MeasuringProcess()
    try:
        assert measuring.call("clear") is None
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        theirs = os.getpriority(os.PRIO_PROCESS, measuring._proc.pid)
        assert theirs == min(19, ours + nice)
    finally:
        measuring.close()


def test_closing_it_mid_sweep_leaves_neither_it_nor_the_sweep_s_processes() -> None:
    """F2.11's fast check is a 20-seed sweep in two processes of the measuring child's own:
    they find their parent gone and end themselves."""
    measuring = MeasuringProcess()
    thread = threading.Thread(target=_measure_ignoring_eof, args=(measuring, "F2.11"))
    thread.start()
    tree: list[int] = []
    try:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            child = measuring._proc
            tree = [child.pid, *descendants(child.pid)] if child is not None else []
            if len(tree) == 3:  # the child and its two sweep processes
                break
            time.sleep(0.02)
        assert len(tree) == 3
        measuring.close()
        assert wait_gone(tree, 2.0) == []  # they watch their parent: typical 0.25 s (WATCH_S)
    finally:
        measuring.close()
        thread.join(WAIT_S)
        kill_all(tree)


def _measure_ignoring_eof(measuring: MeasuringProcess, cid: str) -> None:
    with contextlib.suppress(EOFError, OSError):  # closed meanwhile: that is the test
        measuring.call("measure", cid, False)


def test_an_interpreter_that_exits_without_closing_it_does_not_hang(tmp_path) -> None:
    """The child is not a daemon: multiprocessing's exit hook would join it forever."""
    script = tmp_path / "leaves_it_open.py"
    script.write_text(
        "from attnlab.claims.runner import MeasuringProcess\n"
        "if __name__ == '__main__':\n"
        "    measuring = MeasuringProcess()  # held to the end, as an app holds it\n"
        "    measuring.call('clear')\n"
        "    print('measured', flush=True)\n"
    )
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0 and run.stdout == "measured\n", run.stderr
