"""Claims F2.10–F2.11 (claims/fig2_inside.py): they hold, and F2.11 fails where it should."""

from __future__ import annotations

import pytest

from attnlab.claims import fig2_inside
from attnlab.tabletop import SweepResult


def _sweep(*seeds: tuple[float, list[list[float]]]) -> SweepResult:
    """A made-up sweep: per seed its final error (cm) and head weights [w_A, w_B] per head."""
    histories = [
        [{"step": 1500, "attn_err_cm": cm, "mlp_err_cm": 20.0, "head_weight": w}] for cm, w in seeds
    ]
    return SweepResult("vector", 2, 1500, list(range(len(seeds))), histories)


def test_the_table_is_diagonal_and_the_heads_split():
    r = fig2_inside.check_f2_10()
    assert r.ok, r.measured
    assert r.values["diagonal_rows"] == r.values["n_colours"] == 6
    assert r.values["head_a"] != r.values["head_b"]


def test_the_strip_fails_on_b_and_the_check_holds():
    r = fig2_inside.check_f2_11()
    assert r.ok, r.measured
    strip = r.values["per_seed"]
    assert strip["seed"] == list(fig2_inside.STRIP_SEEDS)
    failed = [s for s, f in zip(strip["seed"], strip["failed"], strict=True) if f]
    assert r.values["failing_seeds"] == failed
    for i in (strip["seed"].index(s) for s in r.values["failing_seeds"]):
        assert len(set(strip["looks_at"][i])) == 1 and strip["final_cm"][i] > r.values["fail_cm"]


@pytest.mark.parametrize(
    ("seeds", "ok"),
    [
        (((0.4, [[0.99, 0.0], [0.0, 0.98]]), (30.0, [[0.0, 0.99], [0.0, 0.99]])), True),
        # a failing seed whose heads look at different objects contradicts the claim
        (((0.4, [[0.99, 0.0], [0.0, 0.98]]), (5.0, [[0.9, 0.1], [0.1, 0.9]])), False),
        # no seed fails: nothing to show, so the claim is not shown either
        (((0.4, [[0.99, 0.0], [0.0, 0.98]]),), False),
        # both heads spread their weight: not "most of their weight on one object"
        (((30.0, [[0.45, 0.4], [0.45, 0.4]]),), False),
    ],
)
def test_f2_11_fails_when_a_failing_seed_is_not_on_one_object(monkeypatch, seeds, ok):
    monkeypatch.setattr(fig2_inside, "swept", lambda *args: _sweep(*seeds))
    assert fig2_inside.check_f2_11().ok is ok
