from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from attnlab.claims import CLAIM_IDS, all_checks, run_claims, select
from attnlab.params import ParamError

SHARED = Path(__file__).resolve().parents[3] / "shared"
CLAIMS_MD = SHARED / "CLAIMS.md"
BEYOND_MD = SHARED / "CLAIMS-beyond.md"  # the project's own claims (issue 13), same rules

# Ids of CLAIMS-beyond.md not built yet: each is expected to fail below (strict: once its check is
# registered the test fails until the id is taken off this list). All are built now.
NOT_YET_BUILT: dict[str, str] = {}


def _listed(path: Path) -> list[str]:
    if not path.exists():
        pytest.skip(f"shared/{path.name} is not beside this checkout")
    return re.findall(r"^- (F\d\.\d+|M\d)\b", path.read_text(encoding="utf-8"), flags=re.M)


def _beyond_ids() -> list[str]:
    """CLAIMS-beyond.md's ids, read at collection (none when the file is not beside us)."""
    if not BEYOND_MD.exists():
        return []
    return re.findall(r"^- (F\d\.\d+)\b", BEYOND_MD.read_text(encoding="utf-8"), flags=re.M)


def test_ids_match_the_contract():
    listed = _listed(CLAIMS_MD)
    exercises = re.search(r"E1–E5", CLAIMS_MD.read_text(encoding="utf-8"))
    assert exercises, "the contract names exercises E1–E5"
    beyond = set(_listed(BEYOND_MD)) - set(NOT_YET_BUILT)
    assert set(CLAIM_IDS) == {*listed, *beyond, "E1", "E2", "E3", "E4", "E5"}


def test_the_not_yet_built_ids_are_the_contracts():
    assert set(NOT_YET_BUILT) <= set(_listed(BEYOND_MD))


@pytest.mark.parametrize(
    "cid",
    [
        pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=NOT_YET_BUILT[c]))
        if c in NOT_YET_BUILT
        else c
        for c in _beyond_ids()
    ],
)
def test_every_claim_beyond_the_lesson_is_registered(cid):
    assert cid in CLAIM_IDS
    assert cid in all_checks()


def test_every_claim_has_a_fast_check():
    checks = all_checks()
    assert list(checks) == list(CLAIM_IDS)
    for cid, found in checks.items():
        assert any(not c.slow for c in found), f"{cid} has no fast check"


# Every check, fast and slow, except FIG 2's 20-seed training sweeps: those are a command
# (`attnlab reproduce --full`), while CI trains the default seed (the fast F2 checks).
CHECKS = [
    pytest.param(c, id=f"{c.id}-{'sweep' if c.slow else 'fast'}", marks=[pytest.mark.slow] * c.slow)
    for checks in all_checks().values()
    for c in checks
    if not (c.slow and c.id.startswith("F2."))
]


@pytest.mark.parametrize("check", CHECKS)
def test_check_holds_and_reports_both_sides(check):
    result = check.run()
    assert result.id == check.id
    assert result.ok, result.measured
    assert result.statement and result.lesson and result.measured and result.condition
    assert result.values
    json.dumps(result.to_dict(), allow_nan=False)  # plain numbers only, for the page and --json


def test_select_keeps_registry_order_and_refuses_unknown_ids():
    assert select(["F6.1", "F1.1"]) == ["F1.1", "F6.1"]
    with pytest.raises(ParamError, match=r"unknown claim id 'F9\.9'"):
        select(["F9.9"])


def test_a_result_carries_both_sides():
    (result,) = run_claims(["F7.1"])
    assert result.id == "F7.1" and result.ok
    assert result.lesson and result.measured and result.condition and result.statement


def test_the_page_shows_the_registrys_words_for_what_the_lesson_says():
    # The claims panel reads "what the lesson says" from the i18n catalogues (so it reads in
    # Chinese too); the English entries must be the registry's own, not a drifting copy.
    i18n = Path(__file__).resolve().parents[2] / "src" / "attnlab" / "static" / "i18n"
    en = json.loads((i18n / "en.json").read_text("utf-8"))
    zh = json.loads((i18n / "zh.json").read_text("utf-8"))
    for result in run_claims():
        assert en[f"claimlesson.{result.id}"] == result.lesson
        assert zh[f"claimlesson.{result.id}"]
