from __future__ import annotations

import numpy as np
import pytest

from attnlab.nn.block import init_block
from attnlab.nn.cost import MASK_KINDS, generation_dot_products, total
from attnlab.nn.kv_cache import (
    CELL_STATES,
    KVCache,
    cached_step,
    cell_states,
    full_forward,
    generate,
    generation_mask,
    kv_cache_counts,
)

D, H, P, NEW = 16, 2, 6, 8


@pytest.fixture
def model(rng):
    layers = [init_block(D, H, rng) for _ in range(2)]
    return layers, rng.normal(size=(P, D))


@pytest.mark.parametrize("kind", ["causal", "block"])
def test_cached_generation_equals_full_recomputation(model, kind):
    layers, prefix = model
    cached = generate(prefix, layers, n_new=NEW, kind=kind, cached=True)
    full = generate(prefix, layers, n_new=NEW, kind=kind, cached=False)
    assert cached.emitted.shape == (NEW + 1, D)
    np.testing.assert_allclose(cached.emitted, full.emitted, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cached.inputs, full.inputs, rtol=0, atol=1e-12)


def test_cached_generation_is_wrong_for_a_bidirectional_mask(model):
    layers, prefix = model
    cached = generate(prefix, layers, n_new=NEW, kind="bidirectional", cached=True)
    full = generate(prefix, layers, n_new=NEW, kind="bidirectional", cached=False)
    # the prefill is the same pass either way; every later step reads stale keys and values
    np.testing.assert_allclose(cached.emitted[0], full.emitted[0], atol=1e-12)
    assert np.abs(cached.emitted[1:] - full.emitted[1:]).max(axis=1).min() > 1e-3


def test_bidirectional_cache_goes_stale_from_layer_two(model):
    layers, prefix = model
    run = generate(prefix, layers, n_new=NEW, kind="bidirectional", cached=True)
    _, fresh = full_forward(run.inputs, layers, generation_mask("bidirectional", P + NEW, P))
    assert np.abs(run.cache.K[0] - fresh.K[0]).max() < 1e-12  # layer 1 sees only the inputs
    assert np.abs(run.cache.K[1] - fresh.K[1]).max() > 1e-3


def test_one_token_at_a_time_equals_one_causal_pass(model, rng):
    layers, _ = model
    x = rng.normal(size=(10, D))
    mask = generation_mask("causal", 10, 0)
    cache = KVCache()
    rows = [cached_step(x[i : i + 1], layers, cache, mask[i : i + 1, : i + 1]) for i in range(10)]
    full, kv = full_forward(x, layers, mask)
    np.testing.assert_allclose(np.concatenate(rows), full, atol=1e-12)
    assert cache.length == 10 and cache.K[1].shape == (H, 10, D // H)
    np.testing.assert_allclose(cache.V[1], kv.V[1], atol=1e-12)


def test_masks():
    causal, block = generation_mask("causal", 9, 4), generation_mask("block", 9, 4)
    assert not causal[0, 1] and block[0, 3] and not block[3, 4] and block[8, 0]
    np.testing.assert_array_equal(block, causal | np.pad(np.ones((4, 4), bool), (0, 5)))
    assert generation_mask("bidirectional", 9, 4).all()
    with pytest.raises(ValueError, match="mask"):
        generation_mask("sliding", 9, 4)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kind", "cached", "expected"),
    [
        ("causal", True, 105),
        ("causal", False, 525),
        ("block", True, 120),
        ("block", False, 660),
        ("bidirectional", False, 960),
        ("bidirectional", True, 120),
    ],
)
def test_the_lesson_counts(kind, cached, expected):
    counts = kv_cache_counts(kind, cached=cached, n_prefix=P, n_new=NEW)
    assert list(counts) == ["prefill"] + [f"a{s}" for s in range(1, NEW + 1)]
    assert total(counts) == expected


@pytest.mark.parametrize("kind", MASK_KINDS)
@pytest.mark.parametrize("cached", [True, False])
def test_cell_counts_equal_the_closed_forms(kind, cached):
    for n_prefix, n_new in [(1, 0), (1, 20), (3, 5), (10, 2)]:
        counted = kv_cache_counts(kind, cached=cached, n_prefix=n_prefix, n_new=n_new)
        closed = generation_dot_products(n_prefix=n_prefix, n_new=n_new, mask=kind, cached=cached)
        assert total(counted) == total(closed)
        assert counted["prefill"] == closed["prefill"]


@pytest.mark.parametrize("kind", MASK_KINDS)
@pytest.mark.parametrize("cached", [True, False])
def test_cell_states_agree_with_the_counts(kind, cached):
    counts = list(kv_cache_counts(kind, cached=cached, n_prefix=P, n_new=NEW).values())
    mask = generation_mask(kind, P + NEW, P)
    for step in range(NEW + 1):
        states = cell_states(kind, cached=cached, step=step, n_prefix=P, n_new=NEW)
        assert set(np.unique(states)) <= set(CELL_STATES)
        assert (states == "computed").sum() == counts[step]
        length = P + step
        assert (states[length:] == "future").all() and (states[:, length:] == "future").all()
        assert ((states == "masked") == (~mask & (states != "future"))).all()
        stale = (states == "stale").sum()
        if kind == "bidirectional" and cached and step > 0:
            assert stale > 0 and not (states[length - 1] == "stale").any()  # the new row is fresh
        else:
            assert stale == 0
