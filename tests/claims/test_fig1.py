from __future__ import annotations

from attnlab.claims import fig1

EXPECTED = ("F1.1", "F1.2", "F1.3", "F1.4")


def test_every_expected_claim_has_a_fast_check():
    fast = [c.id for c in fig1.CHECKS if not c.slow]
    assert sorted(fast) == sorted(EXPECTED)
