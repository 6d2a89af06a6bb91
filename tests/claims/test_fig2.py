"""Claims F2.1–F2.11 and E4 (claims/fig2.py, fig2_inside.py): every fast check holds at the default
seed."""

from __future__ import annotations

import json

from attnlab.claims import fig2, fig2_runs

IDS = [f"F2.{i}" for i in range(1, 12)] + ["E4"]


def test_every_claim_has_a_fast_check_and_the_sweeps_are_slow():
    fast = [c.id for c in fig2.CHECKS if not c.slow]
    slow = [c.id for c in fig2.CHECKS if c.slow]
    assert sorted(fast) == sorted(IDS)
    assert set(slow) == {"F2.2", "F2.3", "F2.4", "F2.5", "F2.6", "F2.7", "F2.10", "F2.11"}


def test_values_the_lesson_text_uses():
    values = {c.id: c.run().values for c in fig2.CHECKS if not c.slow}
    assert values["F2.1"]["attn_params"] == 182 and values["F2.1"]["mlp_params"] == 8194
    assert 175 <= values["F2.2"]["steps"] <= 250 and values["F2.2"]["mlp_cm"] > 20
    assert values["F2.3"]["err6_cm"] < 3
    assert 0.95 <= values["F2.4"]["weight"] <= 0.99
    assert values["F2.5"]["err_cm"] > 20
    assert values["F2.6"]["steps"] <= 550 and values["F2.6"]["final_cm"] < 1
    assert min(values["F2.7"]["weight_a"], values["F2.7"]["weight_b"]) > 0.95
    assert values["F2.8"]["max_rel_error"] < 1e-6
    assert values["F2.9"]["max_change_cm"] < 1e-9 and values["F2.9"]["mlp_change_cm"] > 1


def test_sweep_results_are_plain(monkeypatch):
    """The slow checks on a 3-seed, 600-step sweep (the real one: `attnlab reproduce --full`)."""
    monkeypatch.setattr(fig2_runs, "SWEEP_SEEDS", (0, 1, 2))
    monkeypatch.setattr(fig2_runs, "STEPS", 600)
    fig2.swept.cache_clear()
    fig2.trained.cache_clear()
    try:
        results = {}
        for check in (c for c in fig2.CHECKS if c.slow):
            r = check.run()
            json.dumps(r.to_dict(), allow_nan=False)
            assert isinstance(r.ok, bool) and r.measured and "seeds 0–2" in r.measured
            results[r.id] = r.values
        # the distribution the page draws: one entry per seed, and the summary agrees with it
        race = results["F2.2"]["per_seed"]
        assert race["seed"] == [0, 1, 2] and all(len(v) == 3 for v in race.values())
        at_2cm = zip(race["steps"], race["mlp_cm"], strict=True)
        won = [n is not None and cm > fig2.RACE_CM for n, cm in at_2cm]
        assert race["race"] == won
        lost = [s for s, w in zip(race["seed"], won, strict=True) if not w]
        assert results["F2.2"]["failing_seeds"] == lost
        assert results["F2.2"]["share_race"] == sum(won) / 3
        vector = results["F2.6"]["per_seed"]
        assert vector["seed"] == [0, 1, 2] and len(vector["final_cm"]) == 3
        below = [f < 1 for f in vector["final_cm"]]
        assert results["F2.6"]["share_below_1cm"] == sum(below) / 3
        failing = [s for s, b in zip(vector["seed"], below, strict=True) if not b]
        assert results["F2.6"]["failing_seeds"] == failing
    finally:
        fig2.swept.cache_clear()
        fig2.trained.cache_clear()
