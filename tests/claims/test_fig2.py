"""Claims F2.1–F2.9 and E4 (claims/fig2.py): every fast check holds at the default seed."""

from __future__ import annotations

import json

from attnlab.claims import fig2

IDS = [f"F2.{i}" for i in range(1, 10)] + ["E4"]


def test_every_claim_has_a_fast_check_and_the_sweeps_are_slow():
    fast = [c.id for c in fig2.CHECKS if not c.slow]
    slow = [c.id for c in fig2.CHECKS if c.slow]
    assert sorted(fast) == sorted(IDS)
    assert set(slow) == {"F2.2", "F2.3", "F2.4", "F2.5", "F2.6", "F2.7"}


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
    monkeypatch.setattr(fig2, "SWEEP_SEEDS", (0, 1, 2))
    monkeypatch.setattr(fig2, "STEPS", 600)
    fig2.swept.cache_clear()
    fig2.trained.cache_clear()
    try:
        for check in (c for c in fig2.CHECKS if c.slow):
            r = check.run()
            json.dumps(r.to_dict(), allow_nan=False)
            assert isinstance(r.ok, bool) and r.measured
    finally:
        fig2.swept.cache_clear()
        fig2.trained.cache_clear()
