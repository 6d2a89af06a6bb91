from __future__ import annotations

import json

import pytest

from attnlab.claims import fig3
from attnlab.claims.base import ClaimResult

EXPECTED = ("F3.1", "F3.2", "F3.3", "E1")


def test_every_expected_claim_has_a_fast_check():
    fast = [c.id for c in fig3.CHECKS if not c.slow]
    assert sorted(fast) == sorted(EXPECTED)


@pytest.mark.parametrize(
    "check",
    [
        pytest.param(c, id=f"{c.id}{'-sweep' if c.slow else ''}", marks=[pytest.mark.slow] * c.slow)
        for c in fig3.CHECKS
    ],
)
def test_check_passes_and_reports_both_sides(check):
    result = check.run()
    assert isinstance(result, ClaimResult) and result.id == check.id
    assert result.ok, result.measured
    assert result.statement and result.lesson and result.measured and result.condition
    assert result.values
    json.dumps(result.to_dict(), allow_nan=False)  # values are plain numbers
