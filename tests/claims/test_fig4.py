from __future__ import annotations

from attnlab.claims import fig4

EXPECTED = ("F4.1", "F4.2", "F4.3", "F4.4", "M1", "E2")


def test_every_expected_claim_has_a_fast_check():
    fast = [c.id for c in fig4.CHECKS if not c.slow]
    assert sorted(fast) == sorted(EXPECTED)
