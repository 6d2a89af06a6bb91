from __future__ import annotations

import json

import pytest

from attnlab.claims import fig1
from attnlab.claims.base import ClaimResult

EXPECTED = ("F1.1", "F1.2", "F1.3", "F1.4")


def test_every_expected_claim_has_a_fast_check():
    fast = [c.id for c in fig1.CHECKS if not c.slow]
    assert sorted(fast) == sorted(EXPECTED)


@pytest.mark.parametrize(
    "check",
    [
        pytest.param(c, id=f"{c.id}{'-sweep' if c.slow else ''}", marks=[pytest.mark.slow] * c.slow)
        for c in fig1.CHECKS
    ],
)
def test_check_passes_and_reports_both_sides(check):
    result = check.run()
    assert isinstance(result, ClaimResult) and result.id == check.id
    assert result.ok, result.measured
    assert result.statement and result.lesson and result.measured and result.condition
    assert result.values
    json.dumps(result.to_dict(), allow_nan=False)  # values are plain numbers
