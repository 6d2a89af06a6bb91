"""FlashAttention's idea: softmax attention over tiles of keys, never holding the n × n scores.

Full attention computes every score s_ij = q_i·k_j/√d_k, then each row's softmax, then A V. The
tiled version reads the keys and values one tile of `tile` keys at a time and keeps, per query
row i, three running quantities over the keys seen so far:

    m_i  the largest score so far                       (for a safe exp, as in any softmax)
    ℓ_i  Σ_j exp(s_ij − m_i)                            (the softmax's denominator, shifted by m_i)
    O_i  Σ_j exp(s_ij − m_i) v_j                        (the numerator: an unnormalised output)

When a new tile raises the maximum from m to m', every term summed so far was shifted by the old
m, so ℓ and O are multiplied by exp(m − m') ≤ 1 before the new tile's terms are added. After the
last tile O_i / ℓ_i is exactly softmax(s_i) V, only the order of the additions differs. The
largest block of scores ever held is one tile's: (rows, tile) ≤ n × tile instead of n × n.

Queries are cut into tiles of the same size. With a causal mask, the block of query tile I and key
tile J lies wholly above the diagonal when J > I (every key comes after every query) and is
skipped: T(T + 1)/2 of the T² blocks are computed (T = ⌈n / tile⌉). Under that mask key tile J
is needed only by the rows from J·tile on, one contiguous slice.

The backward pass (FlashAttention-2's) recomputes each tile's probabilities from the stored
log-sum-exp L_i = m_i + log ℓ_i, so it too never holds more than one tile of scores.
Shapes: q (n, d_k), k (n_k, d_k), v (n_k, d_v); one head (loop or vectorise heads outside).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from attnlab.nn.ops import Array

__all__ = [
    "CELL_STATES",
    "FlashRun",
    "TileStep",
    "cell_states",
    "flash_attention",
    "flash_backward",
    "n_tiles",
]

# What a score cell (query i, key j) is after `step` key tiles have arrived (FIG 8).
CELL_STATES = ("held", "dropped", "pending", "skipped", "masked")


def n_tiles(n: int, tile: int) -> int:
    """T = ⌈n / tile⌉: the last tile is narrower when tile does not divide n."""
    if tile < 1 or n < 1:
        raise ValueError(f"n and tile must be at least 1, got n={n}, tile={tile}")
    return -(-n // tile)


@dataclass(frozen=True)
class TileStep:
    """The state after key tile `keys` (start, stop) has been folded in.

    rows: the first query row that read this tile (0 without a mask; under the causal mask the
    rows above are in blocks wholly above the diagonal, skipped); blocks: query tiles computed;
    scores_held: entries of the score block (n − rows, width) held during this step.
    m, ell (n,), o (n, d_v): per row the running max, running sum and normalised partial output
    O/ℓ over the keys so far (m = −inf, ℓ = 0, o = 0 for a row that has seen no key yet);
    rescale (n,): the factor exp(m_old − m_new) applied to ℓ and O (1 for rows not touched).
    """

    keys: tuple[int, int]
    rows: int
    blocks: int
    scores_held: int
    m: Array
    ell: Array
    o: Array
    rescale: Array


@dataclass(frozen=True)
class FlashRun:
    """out (n, d_v); lse (n,) the log-sum-exp of each row's scores (what the backward keeps);
    steps: one TileStep per key tile when traced; blocks_computed out of blocks_total (T²)."""

    out: Array
    lse: Array
    blocks_computed: int
    blocks_total: int
    peak_scores_held: int
    steps: list[TileStep] = field(default_factory=list)


def _check(q: Array, k: Array, v: Array, causal: bool) -> tuple[Array, Array, Array]:
    q, k, v = (np.asarray(a, dtype=float) for a in (q, k, v))
    if q.ndim != 2 or k.ndim != 2 or v.ndim != 2:
        raise ValueError("q, k and v must be 2-D (one head): (n, d_k), (n_k, d_k), (n_k, d_v)")
    if q.shape[1] != k.shape[1] or k.shape[0] != v.shape[0]:
        raise ValueError(f"shapes do not fit: q {q.shape}, k {k.shape}, v {v.shape}")
    if causal and q.shape[0] != k.shape[0]:
        raise ValueError("a causal mask needs as many queries as keys")
    return q, k, v


def _first_row(causal: bool, j0: int) -> int:
    """The first query row that needs the key tile starting at j0: query tiles are as wide as key
    tiles, so under the causal mask the tiles above j0's are wholly above the diagonal."""
    return j0 if causal else 0


def _tile_scores(
    q: Array, k: Array, r0: int, keys: tuple[int, int], c: float, causal: bool
) -> Array:
    """(n − r0, w) scores of query rows r0… against key tile `keys`, forward and backward alike;
    under the causal mask the diagonal block is partly masked: key j is read by rows i ≥ j."""
    j0, j1 = keys
    s = (q[r0:] @ k[j0:j1].T) * c
    if causal:
        i, j = np.ogrid[r0 : q.shape[0], j0:j1]
        s = np.where(j <= i, s, -np.inf)
    return s


def cell_states(n: int, tile: int, *, causal: bool, step: int) -> Array:
    """(n, n) array of CELL_STATES names once key tiles 1 … `step` have been read.

    held: a score of the tile read at `step`, in memory now; dropped: computed for an earlier
    tile and no longer kept (only m, ℓ and O remember it); pending: in a tile still to come;
    skipped: in a block wholly above the diagonal (causal), never computed; masked: inside a
    computed diagonal block but j > i, so its weight is 0.
    """
    i, j = np.indices((n, n))
    tile_of_key = j // tile + 1  # the step at which key j arrives (1-based)
    out = np.full((n, n), "pending", dtype=object)
    out[tile_of_key < step] = "dropped"
    out[tile_of_key == step] = "held"
    if causal:
        first = _first_row(causal, (j // tile) * tile)  # (n, n) first row that reads key j
        out[(j > i) & (i >= first)] = "masked"
        out[i < first] = "skipped"
    return out


def flash_attention(
    q: Array, k: Array, v: Array, *, tile: int, causal: bool = False, trace: bool = False
) -> FlashRun:
    """softmax(q kᵀ/√d_k + M) v, one tile of keys at a time (see the module's docstring)."""
    q, k, v = _check(q, k, v, causal)
    (n, d_k), n_k, d_v = q.shape, k.shape[0], v.shape[1]
    c = 1.0 / np.sqrt(d_k)
    T, T_q = n_tiles(n_k, tile), n_tiles(n, tile)
    m = np.full(n, -np.inf)  # (n,) running max
    ell = np.zeros(n)  # (n,) ℓ, running sum of exp(s − m)
    acc = np.zeros((n, d_v))  # (n, d_v) O, the running unnormalised output
    steps, blocks, peak = [], 0, 0
    for j0 in range(0, n_k, tile):
        j1 = min(j0 + tile, n_k)
        r0 = _first_row(causal, j0)
        s = _tile_scores(q, k, r0, (j0, j1), c, causal)  # (n − r0, w): the only scores held now
        m_new = np.maximum(m[r0:], s.max(axis=1))  # (n − r0,) every row has an allowed key here
        with np.errstate(under="ignore"):  # exp of a very negative number is 0: correct
            alpha = np.exp(m[r0:] - m_new)  # (n − r0,) rescales the old sums: ≤ 1, 0 at first
            p = np.exp(s - m_new[:, None])  # (n − r0, w) this tile's shifted exponentials
            ell[r0:] = alpha * ell[r0:] + p.sum(axis=1)
            acc[r0:] = alpha[:, None] * acc[r0:] + p @ v[j0:j1]
        m[r0:] = m_new
        blocks += T_q - r0 // tile
        peak = max(peak, s.size)
        if trace:
            rescale = np.ones(n)
            rescale[r0:] = alpha
            o = np.divide(acc, ell[:, None], out=np.zeros_like(acc), where=ell[:, None] > 0)
            steps.append(TileStep((j0, j1), r0, T_q - r0 // tile, s.size, m.copy(), ell.copy(),
                                  o, rescale))  # fmt: skip
    return FlashRun(acc / ell[:, None], m + np.log(ell), blocks, T_q * T, peak, steps)


def flash_backward(
    dout: Array, q: Array, k: Array, v: Array, run: FlashRun, *, tile: int, causal: bool = False
) -> tuple[Array, Array, Array]:
    """(dq, dk, dv) from dout (n, d_v), tile by tile, recomputing each tile's weights.

    P_ij = exp(s_ij − L_i) is the softmax weight (L the stored log-sum-exp). With
    D_i = Σ_c dout_ic out_ic: dV_J = P_Jᵀ dout, dS = P ∘ (dout V_Jᵀ − D), dQ += c dS K_J,
    dK_J = c dSᵀ Q (the softmax backward of nn.attention, one tile at a time).
    """
    q, k, v = _check(q, k, v, causal)
    c = 1.0 / np.sqrt(q.shape[1])
    D = (dout * run.out).sum(axis=1)  # (n,)
    dq, dk, dv = np.zeros_like(q), np.zeros_like(k), np.zeros_like(v)
    for j0 in range(0, k.shape[0], tile):
        j1 = min(j0 + tile, k.shape[0])
        r0 = _first_row(causal, j0)
        s = _tile_scores(q, k, r0, (j0, j1), c, causal)  # (n − r0, w)
        with np.errstate(under="ignore"):
            p = np.exp(s - run.lse[r0:, None])  # (n − r0, w) the softmax weights of this tile
            dv[j0:j1] = p.T @ dout[r0:]
            ds = p * (dout[r0:] @ v[j0:j1].T - D[r0:, None]) * c  # (n − r0, w)
        dq[r0:] += ds @ k[j0:j1]
        dk[j0:j1] = ds.T @ q[r0:]
    return dq, dk, dv
