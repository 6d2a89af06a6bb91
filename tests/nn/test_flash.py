from __future__ import annotations

import numpy as np
import pytest

from attnlab.nn.attention import attention, attention_backward, attention_forward, causal_mask
from attnlab.nn.flash import CELL_STATES, cell_states, flash_attention, flash_backward, n_tiles

N, D_K, D_V = 11, 5, 3  # 11 is prime: most tile sizes leave a narrower last tile


@pytest.fixture
def qkv(rng):
    return rng.normal(size=(N, D_K)) * 2, rng.normal(size=(N, D_K)) * 2, rng.normal(size=(N, D_V))


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("tile", range(1, N + 1))
def test_tiled_equals_full_attention_for_every_tile_size(qkv, tile, causal):
    q, k, v = qkv
    full, weights = attention(q, k, v, mask=causal_mask(N) if causal else None)
    run = flash_attention(q, k, v, tile=tile, causal=causal)
    np.testing.assert_allclose(run.out, full, rtol=0, atol=1e-12)
    # the stored log-sum-exp is the softmax's own normaliser: exp(s − L) gives back the weights
    s = q @ k.T / np.sqrt(D_K)
    with np.errstate(under="ignore"):
        again = np.exp(s - run.lse[:, None]) * (causal_mask(N) if causal else 1)
    np.testing.assert_allclose(again, weights, rtol=0, atol=1e-12)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("tile", [1, 3, 4, N])
def test_tiled_backward_equals_full_backward(qkv, rng, tile, causal):
    q, k, v = qkv
    dout = rng.normal(size=(N, D_V))
    _, _, cache = attention_forward(q, k, v, mask=causal_mask(N) if causal else None)
    expected = attention_backward(dout, cache)
    run = flash_attention(q, k, v, tile=tile, causal=causal)
    got = flash_backward(dout, q, k, v, run, tile=tile, causal=causal)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=0, atol=1e-12)


def test_more_keys_than_queries_without_a_mask(rng):
    q, k, v = rng.normal(size=(3, 4)), rng.normal(size=(10, 4)), rng.normal(size=(10, 2))
    full, _ = attention(q, k, v)
    for tile in range(1, 11):
        np.testing.assert_allclose(flash_attention(q, k, v, tile=tile).out, full, atol=1e-12)


@pytest.mark.parametrize("n", [8, 11, 12])
@pytest.mark.parametrize("tile", [1, 2, 3, 4, 5])
def test_causal_mask_skips_the_tiles_above_the_diagonal(rng, n, tile):
    q, k, v = rng.normal(size=(n, 4)), rng.normal(size=(n, 4)), rng.normal(size=(n, 2))
    T = n_tiles(n, tile)
    assert int(np.ceil(n / tile)) == T
    plain = flash_attention(q, k, v, tile=tile)
    causal = flash_attention(q, k, v, tile=tile, causal=True, trace=True)
    assert plain.blocks_computed == plain.blocks_total == T * T
    assert causal.blocks_total == T * T
    assert causal.blocks_computed == T * (T + 1) // 2
    # counted independently: a block (I, J) is needed iff some key in J may be read by a row in I
    mask = causal_mask(n)
    needed = sum(
        mask[qi * tile : (qi + 1) * tile, kj * tile : (kj + 1) * tile].any()
        for qi in range(T)
        for kj in range(T)
    )
    assert causal.blocks_computed == needed
    assert [s.blocks for s in causal.steps] == [T - J for J in range(T)]


@pytest.mark.parametrize("causal", [False, True])
def test_no_more_than_n_by_tile_scores_are_held(qkv, causal):
    q, k, v = qkv
    for tile in range(1, N + 1):
        run = flash_attention(q, k, v, tile=tile, causal=causal, trace=True)
        assert run.peak_scores_held == N * tile  # the first tile: every row reads it
        assert max(s.scores_held for s in run.steps) == N * tile
        assert all(s.scores_held <= N * tile for s in run.steps)


def test_the_trace_is_the_softmax_over_the_keys_seen_so_far(qkv):
    q, k, v = qkv
    run = flash_attention(q, k, v, tile=3, trace=True)
    s = q @ k.T / np.sqrt(D_K)
    for step in run.steps:
        stop = step.keys[1]
        seen = s[:, :stop]
        np.testing.assert_allclose(step.m, seen.max(axis=1), rtol=0, atol=1e-12)
        np.testing.assert_allclose(step.ell, np.exp(seen - step.m[:, None]).sum(axis=1), atol=1e-12)
        partial, _ = attention(q, k[:stop], v[:stop])
        np.testing.assert_allclose(step.o, partial, rtol=0, atol=1e-12)
    # the rescale factor is below 1 exactly where a new tile raised the maximum
    for before, after in zip(run.steps, run.steps[1:], strict=False):
        grew = after.m > before.m
        np.testing.assert_allclose(after.rescale, np.exp(before.m - after.m), atol=1e-15)
        assert np.array_equal(after.rescale < 1, grew)
    np.testing.assert_array_equal(run.steps[0].rescale, 0.0)  # nothing to rescale at first


def test_causal_rows_not_reached_keep_their_state(qkv):
    q, k, v = qkv
    run = flash_attention(q, k, v, tile=4, causal=True, trace=True)
    second = run.steps[1]  # keys 4–7: rows 0–3 skip it
    assert second.rows == 4
    np.testing.assert_array_equal(second.m[:4], run.steps[0].m[:4])
    np.testing.assert_array_equal(second.rescale[:4], 1.0)


def test_bad_shapes_and_tiles_are_refused(qkv):
    q, k, v = qkv
    with pytest.raises(ValueError, match="tile must be at least 1"):
        flash_attention(q, k, v, tile=0)
    with pytest.raises(ValueError, match="shapes do not fit"):
        flash_attention(q, k[:, :2], v, tile=2)
    with pytest.raises(ValueError, match="causal mask needs as many queries"):
        flash_attention(q[:3], k, v, tile=2, causal=True)
    with pytest.raises(ValueError, match="2-D"):
        flash_attention(q[None], k, v, tile=2)


@pytest.mark.parametrize("causal", [False, True])
def test_cell_states_follow_the_tiles_read(qkv, causal):
    q, k, v = qkv
    tile = 4
    run = flash_attention(q, k, v, tile=tile, causal=causal, trace=True)
    for step, info in enumerate(run.steps, start=1):
        cells = cell_states(N, tile, causal=causal, step=step)
        assert set(np.unique(cells)) <= set(CELL_STATES)
        held = (cells == "held") | (cells == "masked") & (np.arange(N)[None, :] // tile == step - 1)
        assert held.sum() == info.scores_held  # what the engine held is what the grid shows
        j0, j1 = info.keys
        assert not np.isin(cells[:, :j0], ["pending", "held"]).any()  # earlier tiles: done
        assert not np.isin(cells[:, j1:], ["held", "dropped"]).any()  # later tiles: not yet
    assert ((cell_states(N, tile, causal=causal, step=0) == "skipped").sum() > 0) == causal
    if causal:
        allowed = causal_mask(N)
        cells = cell_states(N, tile, causal=True, step=len(run.steps))
        assert not ((cells == "held") | (cells == "dropped"))[~allowed].any()
        assert ((cells == "held") | (cells == "dropped"))[allowed].all()
