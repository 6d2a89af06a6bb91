from __future__ import annotations

from attnlab.claims import fig3

EXPECTED = ("F3.1", "F3.2", "F3.3", "E1")


def test_every_expected_claim_has_a_fast_check():
    fast = [c.id for c in fig3.CHECKS if not c.slow]
    assert sorted(fast) == sorted(EXPECTED)
