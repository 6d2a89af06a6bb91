"""The claims measured in a worker thread (web/measurements.py): one run at a time, stopped by
close() between claims, sweep values under the fast check's, and `since` for pollers."""

from __future__ import annotations

from attnlab.claims import run_claim
from attnlab.web.measurements import MEASURING, Measurements

WAIT_S = 30.0


def test_one_run_at_a_time_and_close_stops_it_between_claims() -> None:
    measured = Measurements(ids=("F1.1", "F1.2", "F1.3"), text_needs=())
    with MEASURING[False]:  # the run waits here, before its first claim
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
    measured = Measurements(ids=("F4.2",), text_needs={"F4.2.median"})
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
