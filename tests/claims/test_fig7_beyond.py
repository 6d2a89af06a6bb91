"""FIG 7 beyond the spec (F7.6–F7.9): each check holds, reports the figure's own numbers, and
fails when the engine is wrong."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from attnlab import frames, lesson
from attnlab.claims import fig7
from attnlab.figures import compute_figure
from attnlab.lesson.values import format_value
from attnlab.nn import timing

CHECKS = {c.id: c for c in fig7.CHECKS if c.id in ("F7.6", "F7.7", "F7.8", "F7.9")}


@pytest.mark.parametrize("cid", sorted(CHECKS))
def test_each_claim_holds_with_plain_values(cid) -> None:
    r = CHECKS[cid].run()
    assert r.id == cid and r.ok, r.measured
    json.dumps(r.values, allow_nan=False)


def test_kv_values_are_the_figures() -> None:
    v = CHECKS["F7.6"].run().values
    gqa = compute_figure("tokens", {**fig7.TRIED, "model": "7b", "kv": "gqa", "kv_heads": 8})
    assert v["cache_gb_gqa"] == gqa["kv_cache_bytes"]["total"] / 1e9
    assert v["fraction"] == 0.25 and v["fraction_mqa"] == 1 / 32


def test_a_wrong_kv_count_fails_the_claim(monkeypatch) -> None:
    real = fig7._tokens

    def doubled(**s):
        data = real(**s)
        return data | {"kv_cache_bytes": {"total": 2 * data["kv_cache_bytes"]["total"]}}

    monkeypatch.setattr(fig7, "_tokens", doubled)
    assert not fig7._kv_heads().ok


def test_latent_values_are_the_figures() -> None:
    v = CHECKS["F7.7"].run().values
    lat = compute_figure("tokens", {**fig7.TRIED, "latents": 256})["latent"]
    assert v["share"] == lat["attention_share"] and v["crossover_many"] == 2926


def test_the_timing_claim_checks_a_connected_tiled_version(monkeypatch) -> None:
    """The hook for FIG 8's tiled attention: a stand-in that is exact passes, one that is off
    by 1e-9 fails the claim (so the lead's connection is tested when it lands)."""
    exact = timing._plain
    for offset, holds in ((0.0, True), (1e-9, False)):
        monkeypatch.setattr(timing, "TILED_ATTENTION", lambda q, k, v, e=offset: exact(q, k, v) + e)
        timing._measure.cache_clear()
        try:
            r = fig7._timed()
        finally:
            timing._measure.cache_clear()
        assert r.ok is holds and r.values["tiled_connected"]


def test_the_frame_claim_fails_for_a_frame_that_is_not_the_box_mean(monkeypatch) -> None:
    real = frames.to_frame

    def mirrored(image, size=224):  # the right pixels in the wrong places
        img, source = real(image, size)
        return img[:, ::-1].copy(), source

    monkeypatch.setattr(frames, "to_frame", mirrored)
    assert not fig7._own_frame().ok


def test_the_panels_sentences_are_in_both_catalogues_with_the_checks_values() -> None:
    """claim / claimlesson / claimmeasured / claimcondition for F7.6–F7.9, en and zh: every slot
    names a value the check returns, and no threshold is written into a sentence."""
    i18n = Path(lesson.__file__).parent.parent / "static" / "i18n"
    results = {cid: c.run() for cid, c in CHECKS.items()}
    for lang in lesson.LANGS:
        catalogue = json.loads((i18n / f"{lang}.json").read_text("utf-8"))
        for cid, r in results.items():
            for kind in ("claim", "claimlesson", "claimmeasured", "claimcondition"):
                sentence = catalogue[f"{kind}.{cid}"]
                for m in lesson.PLACEHOLDER_RE.finditer(sentence):
                    assert m[1] == cid and m[2] in r.values, (lang, kind, m[0])
                    assert format_value(r.values[m[2]], m[3])
                rest = lesson.PLACEHOLDER_RE.sub(" ", sentence)
                assert not re.search(r"\d\.\d|\de-\d", rest), (lang, kind, cid)
            assert lang == "zh" or catalogue[f"claimlesson.{cid}"] == r.lesson
