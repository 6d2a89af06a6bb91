"""The claims' sentences for a terminal (`attnlab.claims.text`): TeX as Unicode, conditions filled
from the check's values."""

from __future__ import annotations

import re

import pytest

from attnlab.claims import all_checks
from attnlab.claims.text import catalogue, condition, condition_key, plain_text


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"$d_k \ge 256$", "dₖ ≥ 256"),
        (r"$\sqrt{64} = 8$ and $\sqrt{d_k}$", "√64 = 8 and √dₖ"),
        (r"$\alpha_i \ge 0$, $\sum_i\alpha_i = 1$", "αᵢ ≥ 0, Σᵢαᵢ = 1"),
        (r"$\|\partial\hat{\mathbf y}/\partial\mathbf q\| \ne 0$", "‖∂ŷ/∂q‖ ≠ 0"),
        (r"$\mathbf q_m\cdot\mathbf k_n$", "qₘ·kₙ"),
        (r"up to $\sim 10^{-16}$", "up to ~10⁻¹⁶"),
        (r"$196^2 \approx 3.8\times10^4$", "196² ≈ 3.8×10⁴"),
        (r"$2\cdot L\cdot n$, $p - p'$, $\mathbf p_A$", "2·L·n, p − p', p_A"),
        (r"$\mathrm{Attn}(Y \leftarrow PX)$", "Attn(Y ← PX)"),
        ("no math: 20 cm", "no math: 20 cm"),
    ],
)
def test_inline_tex_reads_as_unicode(tex: str, text: str) -> None:
    assert plain_text(tex) == text


def test_a_command_it_does_not_know_is_kept_for_a_test_to_see() -> None:
    assert plain_text(r"$\frac{a}{b}$") == r"\fracab"


def test_every_claim_reads_without_tex_in_a_terminal() -> None:
    """What `attnlab reproduce` prints of the lesson's words: no TeX left."""
    from attnlab.claims import run_claims

    for r in run_claims():
        for text in (r.statement, r.lesson, r.condition):
            shown = plain_text(text)
            assert not re.search(r"[\\${}^]|_\{", shown), (r.id, shown)


def test_the_english_condition_is_the_catalogues_sentence_filled() -> None:
    values = {"fetch_lo": 175, "fetch_hi": 250, "race_cm": 20}
    sentence = "default seed: first step below 2 cm in 175–250, MLP above 20 cm"
    assert condition("F2.2", values) == sentence
    assert condition_key("F2.2", values) == "claimcondition.F2.2"
    assert condition_key("F2.2", {**values, "n_seeds": 100}) == "claimcondition.F2.2.sweep"


def test_every_claim_of_the_registry_has_a_condition_sentence() -> None:
    """The fast check's sentence for every id (the sweeps' are held to theirs in test_lesson)."""
    for cid, checks in all_checks().items():
        if any(not c.slow for c in checks):
            assert f"claimcondition.{cid}" in catalogue(), cid


def test_reproduce_prints_the_lessons_math_as_text(capsys) -> None:
    from attnlab.cli import main

    assert main(["reproduce", "--only", "F1.4,F3.1,M1"]) == 0
    table = capsys.readouterr().out
    assert "∂ŷ/∂q" in table and "Attn(PX)" in table
    assert not re.search(r"[\\$]|mathbf|\^\{", table)
