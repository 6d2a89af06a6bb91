"""KV-head sharing and Perceiver latents in the cost counters (F7.6, F7.7)."""

from __future__ import annotations

import pytest

from attnlab.nn.cost import (
    MODEL_PRESETS,
    ModelSize,
    kv_cache_bytes,
    kv_heads_of,
    latent_crossover_tokens,
    latent_layer_flops,
    layer_flops,
    total,
)

SEVEN_B = MODEL_PRESETS["7b"]


def test_gqa_with_8_of_32_heads_keeps_a_quarter_of_the_cache() -> None:
    full = total(kv_cache_bytes(1000, SEVEN_B, 2))
    gqa = total(kv_cache_bytes(1000, SEVEN_B, 2, kv_heads=8))
    assert full == 2 * 32 * 1000 * 4096 * 2
    assert gqa * 4 == full
    assert total(kv_cache_bytes(1000, SEVEN_B, 2, kv_heads=1)) * 32 == full


def test_the_sharing_names_give_their_kv_heads() -> None:
    assert [kv_heads_of(SEVEN_B, s, 8) for s in ("mha", "gqa", "mqa")] == [32, 8, 1]
    small = MODEL_PRESETS["small"]
    assert [kv_heads_of(small, s, 2) for s in ("mha", "gqa", "mqa")] == [8, 2, 1]


@pytest.mark.parametrize(("sharing", "heads"), [("gqa", 3), ("gqa", 64), ("gqa", 0), ("xqa", 1)])
def test_kv_heads_that_cannot_be_shared_are_refused(sharing, heads) -> None:
    with pytest.raises(ValueError):
        kv_heads_of(SEVEN_B, sharing, heads)


def test_a_model_without_heads_counts_as_one_head() -> None:
    size = ModelSize("t", n_layers=2, d=10)
    assert size.n_heads == 1 and size.d_head == 10
    assert total(kv_cache_bytes(3, size, 2)) == 2 * 2 * 3 * 10 * 2


def test_a_latent_layer_is_linear_in_n_and_is_the_plain_layer_at_m_equal_n() -> None:
    d, m = 64, 16
    a, b = latent_layer_flops(1000, m, d), latent_layer_flops(2000, m, d)
    assert b["attention"] == 2 * a["attention"] == 2 * 4 * 1000 * m * d
    assert b["mlp"] == a["mlp"]  # the MLP runs on the latents only
    for n in (1, 7, 300):
        assert latent_layer_flops(n, n, d) == layer_flops(n, d)


def test_the_latent_crossover_is_the_first_n_where_attention_reaches_the_linear_parts() -> None:
    d = 512
    assert latent_crossover_tokens(d, d) is None and latent_crossover_tokens(64, d) is None
    for m in (513, 1024, 4096, 10**6):
        n = latent_crossover_tokens(m, d)
        at, before = latent_layer_flops(n, m, d), latent_layer_flops(n - 1, m, d)
        assert at["attention"] >= at["projections"] + at["mlp"]
        assert before["attention"] < before["projections"] + before["mlp"]
    assert 5 * d < latent_crossover_tokens(10**9, d) <= 5 * d + 1  # many latents: toward 5d
