from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from attnlab.claims import CLAIM_IDS, all_checks, run_claims, select
from attnlab.params import ParamError

CLAIMS_MD = Path(__file__).resolve().parents[3] / "shared" / "CLAIMS.md"
BEYOND_MD = CLAIMS_MD.with_name("CLAIMS-beyond.md")


def test_ids_match_the_contract():
    if not CLAIMS_MD.exists():
        pytest.skip("shared/CLAIMS.md is not beside this checkout")
    text = CLAIMS_MD.read_text(encoding="utf-8")
    listed = re.findall(r"^- (F\d\.\d|M\d)\b", text, flags=re.M)
    exercises = re.search(r"E1–E5", text)
    assert exercises, "the contract names exercises E1–E5"
    spec = {*listed, "E1", "E2", "E3", "E4", "E5"}
    beyond = set(re.findall(r"^- (F\d\.\d+)\b", BEYOND_MD.read_text("utf-8"), flags=re.M))
    assert spec <= set(CLAIM_IDS)
    assert set(CLAIM_IDS) - spec <= beyond, "an id that neither contract names"
    assert {i for i in beyond if i.startswith("F7.")} <= set(CLAIM_IDS)  # FIG 7's, all there


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
