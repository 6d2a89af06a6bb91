from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from attnlab import lesson
from attnlab.claims import fig8
from attnlab.claims.fig8 import CHECKS
from attnlab.figures import compute_figure
from attnlab.lesson import values as lesson_values
from attnlab.nn.attention import causal_mask

I18N = Path(lesson.__file__).parent.parent / "static" / "i18n"


@pytest.fixture(scope="module")
def results():
    return {c.id: c.run() for c in CHECKS}


def test_ids():
    assert [c.id for c in CHECKS] == ["F8.1", "F8.2", "F8.3"]


def test_the_claims_hold_and_quote_the_figures_numbers(results):
    assert all(r.ok for r in results.values())
    assert results["F8.1"].values["max_diff_plain"] < fig8.TOL
    data = compute_figure("flash", {"n": fig8.N, "tile": fig8.SHOWN_TILE, "causal": True})
    assert data["blocks"]["computed"] == results["F8.3"].values["computed"]
    assert data["blocks"]["total"] == results["F8.3"].values["total"]
    assert data["memory"]["peak"] == fig8.N * fig8.SHOWN_TILE


def test_a_wrong_engine_would_fail_the_equality_claim(monkeypatch):
    # the exercise's wrong answer: each tile's exponentials shifted by that tile's own maximum
    # and summed as they are, never rescaled to a common one
    def no_rescale(q, k, v, *, tile, causal=False):
        s = q @ k.T / np.sqrt(q.shape[1])
        s = np.where(causal_mask(len(q)), s, -np.inf) if causal else s
        ell, acc = np.zeros(len(q)), np.zeros((len(q), v.shape[1]))
        for j0 in range(0, len(k), tile):
            block = s[:, j0 : j0 + tile]
            top = block.max(axis=1, keepdims=True)
            with np.errstate(under="ignore", invalid="ignore"):
                p = np.nan_to_num(np.exp(block - np.where(np.isfinite(top), top, 0)))
            ell, acc = ell + p.sum(axis=1), acc + p @ v[j0 : j0 + tile]
        return SimpleNamespace(out=acc / ell[:, None])

    monkeypatch.setattr(fig8, "flash_attention", no_rescale)
    result = fig8.CHECKS[0].run()
    assert not result.ok and result.values["max_diff_plain"] > 1e-3


def test_a_tiled_engine_that_builds_the_full_matrix_fails_the_memory_claim(monkeypatch):
    # it tiles, gives the right output and reports n × tile scores held, but first builds the
    # n × n scores (and drops them at once): only the measured allocation can tell
    real = fig8.flash_attention

    def full_first(q, k, v, *, tile, causal=False):
        scores = q @ k.T  # (n, n)
        del scores
        return real(q, k, v, tile=tile, causal=causal)

    monkeypatch.setattr(fig8, "flash_attention", full_first)
    result = fig8.CHECKS[1].run()
    assert result.values["peak"] == fig8.LONG_N * fig8.LONG_TILE  # its own count is fine
    assert result.values["allocated_blocks"] > result.values["full_blocks"]
    assert not result.ok


def test_the_memory_claim_measures_allocations_not_the_engine_s_count(results):
    values = results["F8.2"].values
    assert 1 <= values["allocated_blocks"] <= fig8.BLOCKS_MAX  # at least the one score block
    assert values["full_blocks"] == fig8.LONG_N // fig8.LONG_TILE > fig8.BLOCKS_MAX
    held = fig8.peak_allocated(lambda: float(np.ones((fig8.LONG_N, fig8.LONG_N)).sum()))
    assert held >= 8 * fig8.LONG_N**2  # a temporary, freed before fn returns, is counted


def test_conditions_are_translated_with_the_engines_thresholds(results):
    for lang in lesson.LANGS:
        catalogue = json.loads((I18N / f"{lang}.json").read_text("utf-8"))
        for cid, r in results.items():
            for kind in ("claimcondition", "claimmeasured"):
                sentence = catalogue[f"{kind}.{cid}"]
                slots = list(lesson.PLACEHOLDER_RE.finditer(sentence))
                assert slots, (lang, kind, cid)
                for m in slots:
                    assert m[1] == cid and m[2] in r.values, (lang, m[0])
                    assert lesson_values.format_value(r.values[m[2]], m[3]), (lang, m[0])
                rest = lesson.PLACEHOLDER_RE.sub(" ", sentence)
                assert not re.search(r"\d\.\d|\de-\d", rest), (lang, cid, "not returned")
            if lang == "en":
                assert catalogue[f"claimlesson.{cid}"] == r.lesson
