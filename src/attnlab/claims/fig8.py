"""FIG 8's claims (F8.1–F8.3, shared/CLAIMS-beyond.md): FlashAttention's online softmax over
tiles of keys gives full attention's output, holds n × tile scores, and under a causal mask skips
the blocks above the diagonal.

Every check runs the engine (`nn.flash.flash_attention`) on FIG 8's inputs at the figure's largest
n, for every tile size from 1 to n, against `nn.attention` (an independent implementation); the
memory claim is also measured at a longer sequence, where the saving is the point. There the
engine's own count of the scores it held is not taken on trust: tracemalloc (NumPy reports every
array buffer to it) measures the most memory the forward pass allocated at once, so a tiled
version that also builds the n × n matrix, even for a moment, fails.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from attnlab.claims.base import ClaimCheck, ClaimResult, result
from attnlab.figures import flash as fig
from attnlab.nn.attention import attention, causal_mask
from attnlab.nn.flash import flash_attention, n_tiles

N = fig.N_MAX  # every tile size 1 … N is checked
TOL = 1e-12  # tiled and full outputs this close are equal: float64 rounding only
LONG_N, LONG_TILE = 1024, 64  # F8.2 at a length where n × n is large (16 score blocks)
BLOCKS_MAX = 6  # F8.2: peak allocation of the forward, in n × tile float64 blocks (~4 measured)
FLOAT_BYTES = 8
SHOWN_TILE = 4  # the tile size the results quote (the figure's default)


def _worst_difference(causal: bool) -> tuple[float, int]:
    """(largest |tiled − full| over every tile size, the tile size where it occurs)."""
    q, k, v = fig.inputs(N)
    full, _ = attention(q, k, v, mask=causal_mask(N) if causal else None)
    diffs = [
        float(np.abs(flash_attention(q, k, v, tile=t, causal=causal).out - full).max())
        for t in range(1, N + 1)
    ]
    worst = int(np.argmax(diffs))
    return diffs[worst], worst + 1


def _equal_to_full() -> ClaimResult:
    plain, plain_tile = _worst_difference(causal=False)
    masked, masked_tile = _worst_difference(causal=True)
    ok = max(plain, masked) < TOL
    return result(
        "F8.1",
        "Online softmax over tiles of keys gives exactly full softmax attention's "
        "output, for every tile size, with and without a causal mask.",
        "tiled = full to < 1e-12 for every tile size, with and without a causal mask",
        measured=f"n = {N}, tile sizes 1–{N}: largest |tiled − full| {plain:.1e} without a mask "
        f"(tile {plain_tile}), {masked:.1e} with the causal mask (tile {masked_tile})",
        ok=ok,
        values={
            "n": N,
            "tile_max": N,
            "tol": TOL,
            "max_diff_plain": plain,
            "max_diff_causal": masked,
            "worst_tile_plain": plain_tile,
            "worst_tile_causal": masked_tile,
        },
    )


def _inputs(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """FIG 8's inputs, or random ones past its n."""
    if n <= fig.N_MAX:
        return fig.inputs(n)
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((n, fig.D_K)), rng.standard_normal((n, fig.D_K))
    return q, k, rng.standard_normal((n, fig.D_V))


def _peak(n: int, tile: int) -> int:
    """The largest score block the engine says it held (what FIG 8 shows)."""
    return flash_attention(*_inputs(n), tile=tile).peak_scores_held


def peak_allocated(fn: Callable[[], Any]) -> int:
    """Bytes fn() had allocated at its peak, beyond what was allocated before it ran (its inputs
    and everything else are not counted; a temporary freed at once is). tracemalloc sees every
    thread: the claims are measured one at a time, in the measuring child (claims.runner)."""
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        if started:
            tracemalloc.stop()


def _memory() -> ClaimResult:
    every = all(_peak(N, t) == N * t for t in range(1, N + 1))
    peak = _peak(LONG_N, LONG_TILE)
    q, k, v = _inputs(LONG_N)
    held = peak_allocated(lambda: flash_attention(q, k, v, tile=LONG_TILE))
    blocks = held / (FLOAT_BYTES * LONG_N * LONG_TILE)  # in n × tile float64 score blocks
    full = LONG_N * LONG_N
    ok = every and peak == LONG_N * LONG_TILE and blocks <= BLOCKS_MAX
    return result(
        "F8.2",
        "The largest block of scores the tiled version holds at once is n × tile, "
        "where plain attention stores the whole n × n matrix.",
        "the largest block of scores held at once is n × tile instead of n × n",
        measured=f"n = {LONG_N}, tile {LONG_TILE}: {peak:,} scores held at most, against "
        f"{full:,} ({full // peak}× fewer); the forward allocated {held / 2**20:.2f} MiB at its "
        f"peak ({blocks:.1f} score blocks of n × tile; the n × n matrix alone is "
        f"{full // (LONG_N * LONG_TILE)}); n = {N}: n × tile for every tile size "
        f"{'yes' if every else 'NO'}",
        ok=ok,
        values={
            "n": LONG_N,
            "tile": LONG_TILE,
            "peak": peak,
            "full": full,
            "ratio": full // peak,
            "n_small": N,
            "every_tile": every,
            "allocated_mib": held / 2**20,
            "allocated_blocks": blocks,
            "blocks_max": BLOCKS_MAX,
            "full_blocks": full // (LONG_N * LONG_TILE),
        },
    )


def _blocks(tile: int) -> tuple[int, int, int]:
    """(T, blocks computed, blocks in all) with the causal mask at n = N."""
    q, k, v = fig.inputs(N)
    run = flash_attention(q, k, v, tile=tile, causal=True)
    return n_tiles(N, tile), run.blocks_computed, run.blocks_total


def _skipped_tiles() -> ClaimResult:
    counts = [_blocks(t) for t in range(1, N + 1)]
    every = all(done == T * (T + 1) // 2 and total == T * T for T, done, total in counts)
    T, done, total = counts[SHOWN_TILE - 1]
    return result(
        "F8.3",
        "With a causal mask, blocks of scores wholly above the diagonal are never "
        "computed: T(T + 1)/2 of the T² blocks are.",
        "tiles wholly above the diagonal are skipped: T(T + 1)/2 of T² tiles",
        measured=f"n = {N}, tile {SHOWN_TILE}: T = {T}, {done} of {total} blocks computed; "
        f"T(T + 1)/2 of T² for every tile size 1–{N}: {'yes' if every else 'NO'}",
        ok=every,
        values={
            "n": N,
            "tile": SHOWN_TILE,
            "tiles": T,
            "computed": done,
            "total": total,
            "tile_max": N,
            "every_tile": every,
        },
    )


CHECKS: tuple[ClaimCheck, ...] = (
    ClaimCheck("F8.1", _equal_to_full),
    ClaimCheck("F8.2", _memory),
    ClaimCheck("F8.3", _skipped_tiles),
)
