"""FIG 7's data beyond the spec: KV sharing, latents (the page and the export read these)."""

from __future__ import annotations

import pytest

from attnlab.export import tokens as export_tokens
from attnlab.figures import ParamError, compute_figure


def test_the_defaults_keep_full_multi_head_attention_and_no_latents() -> None:
    d = compute_figure("tokens")
    assert d["kv"]["sharing"] == "mha" and d["kv"]["fraction"] == 1
    assert d["kv_cache_bytes"]["total"] == d["kv"]["bytes_mha"]
    assert d["latent"] is None


@pytest.mark.parametrize(("model", "kv", "heads", "h_kv"), [
    ("7b", "gqa", 8, 8), ("7b", "mqa", 8, 1), ("small", "gqa", 2, 2), ("small", "mha", 2, 8),
])  # fmt: skip
def test_kv_sharing_scales_the_cache(model, kv, heads, h_kv) -> None:
    d = compute_figure("tokens", {"model": model, "kv": kv, "kv_heads": heads})
    n_heads = d["model_size"]["n_heads"]
    assert d["kv"]["kv_heads"] == h_kv and d["kv"]["queries_per_kv_head"] == n_heads // h_kv
    assert d["kv_cache_bytes"]["total"] * n_heads == d["kv"]["bytes_mha"] * h_kv


def test_latents_add_a_layer_whose_attention_is_linear_in_n() -> None:
    d = compute_figure("tokens", {"latents": 256, "cameras": 4, "patch": 8})
    lat, n = d["latent"], d["n"]
    assert lat["m"] == 256 and lat["layer_flops"]["attention"] == 4 * n * 256 * 512
    assert lat["point"]["attention"] == lat["layer_flops"]["attention"]
    assert len(lat["curve"]["attention"]) == len(d["curve"]["n"])
    assert lat["crossover_n"] is None and lat["attention_share"] < 0.5 < d["attention_share"]
    assert compute_figure("tokens", {"latents": 4096})["latent"]["crossover_n"] == 2926


@pytest.mark.parametrize("raw", [{"kv": "gqa8"}, {"kv_heads": 3}, {"latents": 100}])
def test_settings_outside_their_choices_are_refused(raw) -> None:
    with pytest.raises(ParamError):
        compute_figure("tokens", raw)


def test_the_export_notes_the_options_only_when_set() -> None:
    assert export_tokens._beyond(compute_figure("tokens")) == []
    notes = export_tokens._beyond(compute_figure("tokens", {"model": "7b", "kv": "gqa",
                                                             "latents": 64}))  # fmt: skip
    assert notes[0].startswith("GQA: 8 of 32 KV heads") and "×0.25" in notes[0]
    assert notes[1].startswith("64 latents") and "never reaches half" in notes[1]
