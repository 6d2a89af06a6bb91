from __future__ import annotations

import pytest

from attnlab.nn.cost import (
    MODEL_PRESETS,
    ModelSize,
    attention_share,
    crossover_tokens,
    generation_dot_products,
    kv_cache_bytes,
    layer_flops,
    model_flops,
    patch_numbers,
    token_counts,
    total,
)


@pytest.mark.parametrize(("n", "d"), [(1, 1), (196, 768), (3137, 512), (200_000, 4096)])
def test_layer_flops_parts_match_the_closed_forms(n, d):
    parts = layer_flops(n, d)
    assert parts["projections"] + parts["mlp"] == 24 * n * d * d
    assert parts["attention"] == 4 * n * n * d
    assert total(parts) == 24 * n * d * d + 4 * n * n * d
    # the share formula n / (n + 6d) is the ratio of the parts
    assert attention_share(n, d) == pytest.approx(parts["attention"] / total(parts), rel=1e-12)


def test_parts_cross_at_six_d():
    for size in MODEL_PRESETS.values():
        n = crossover_tokens(size.d)
        parts = layer_flops(n, size.d)
        assert parts["projections"] + parts["mlp"] == parts["attention"]
        assert attention_share(n, size.d) == 0.5
        below = layer_flops(n - 1, size.d)
        assert below["attention"] < below["projections"] + below["mlp"]
    assert (crossover_tokens(512), crossover_tokens(4096)) == (3072, 24576)


def test_model_flops_is_layers_times_a_layer():
    size = ModelSize("t", n_layers=7, d=64)
    whole = model_flops(100, size)
    assert total(whole) == 7 * total(layer_flops(100, 64))
    # exact integers even where float64 would round (beyond 2⁵³)
    big = total(model_flops(200_001, MODEL_PRESETS["7b"]))
    assert big > 2**53 and big == 32 * (24 * 200_001 * 4096**2 + 4 * 200_001**2 * 4096)


def test_kv_cache_bytes():
    size = MODEL_PRESETS["small"]
    parts = kv_cache_bytes(3137, size)
    assert parts["keys"] == parts["values"]
    assert total(parts) == 2 * 6 * 3137 * 512 * 2
    assert total(kv_cache_bytes(10, size, bytes_per_number=4)) == 2 * 6 * 10 * 512 * 4


def test_token_counts():
    parts = token_counts(cameras=4, patch=8, frames=1, actions=0)
    assert parts == {"image": 3136, "proprio": 1, "actions": 0}
    for cameras, patch, frames, actions in [(1, 16, 1, 0), (3, 14, 5, 50), (16, 32, 16, 256)]:
        n = total(token_counts(cameras=cameras, patch=patch, frames=frames, actions=actions))
        assert n == cameras * (224 // patch) ** 2 * frames + frames + actions
    with pytest.raises(ValueError, match="patch 10"):
        token_counts(cameras=1, patch=10, frames=1, actions=0)  # 224 is not a multiple of 10
    assert patch_numbers(16) == 768


def test_generation_counts():
    def count(mask, cached):
        return total(generation_dot_products(n_prefix=6, n_new=8, mask=mask, cached=cached))

    assert (count("causal", True), count("causal", False)) == (105, 525)
    assert (count("block", True), count("block", False)) == (120, 660)
    assert count("bidirectional", False) == 960
    # M2: generating n tokens from one, the counts are Σt², Σt(t+1)/2 and Σt
    n = 50
    parts = generation_dot_products(n_prefix=1, n_new=n - 1, mask="bidirectional", cached=False)
    assert total(parts) == n * (n + 1) * (2 * n + 1) // 6
    parts = generation_dot_products(n_prefix=1, n_new=n - 1, mask="causal", cached=False)
    assert total(parts) == n * (n + 1) * (n + 2) // 6
    parts = generation_dot_products(n_prefix=1, n_new=n - 1, mask="causal", cached=True)
    assert total(parts) == n * (n + 1) // 2
    with pytest.raises(ValueError, match="mask"):
        generation_dot_products(n_prefix=1, n_new=1, mask="sliding", cached=True)  # type: ignore[arg-type]
