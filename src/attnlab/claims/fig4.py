"""Claims F4.1–F4.4 (§4 part 2, FIG 4: position encodings), M1 (§5: permutation equivariance)
and exercise E2 (a reversed trajectory through an encoder without position encoding).

Everything goes through `attnlab.figures.position` (its random layer, embedding and RoPE panel)
and the engine (`attnlab.nn`). "Up to rounding" is held to 1e-12 relative to the output's size:
float64 rounding is ~1e-16, so anything structural would show up orders of magnitude above it.
"""

from __future__ import annotations

import numpy as np

from attnlab.claims.base import ClaimCheck, ClaimResult, result
from attnlab.figures import position
from attnlab.nn.attention import attention
from attnlab.nn.block import BlockConfig, block_forward, init_block
from attnlab.nn.positional import sinusoidal_encoding

ROUNDING = 1e-12  # relative tolerance for "identical up to rounding"
CLEAR = 0.10  # relative difference counted as "clearly different" (10% of the output's norm)
SWEEP_LAYERS = 200  # layer seeds of F4.2's slow check
CLEAR_SHARE = 0.8  # F4.2 over layer seeds: at least this share clearly different
NOT_ROUNDING = 1e3 * ROUNDING  # … and none closer than this (orders above rounding)
SHIFTS = range(1, 11)  # F4.3: (m, n) moved together by each of these
MOVES = 0.01  # F4.3: the arrows turn, and moving n alone changes the score, by more than this
VARIES = 1.0  # F4.4: the dot products change by more than this as the offset changes
N_PERMS, N_TOKENS, N_QUERIES = 20, 6, 2  # M1: permutations of N_TOKENS tokens
N_BLOCKS, N_HEADS = 2, 2  # M1, E2: the small Pre-LN encoder
N_REACH = 10  # E2: waypoints of the reversed reach
PE_SEEN = 1e-3  # E2: with a PE, at least this relative difference (the test can tell)
CHECK_SEED = 0  # permutations and random tokens of M1, encoder weights of E2


def _relative(a: np.ndarray, b: np.ndarray) -> float:
    """max |a − b| / max |a|: how far apart two outputs are, on the scale of the first."""
    return float(np.abs(a - b).max() / np.abs(a).max())


def check_f4_1() -> ClaimResult:
    r = position.reversal("none")
    diff, rel = r["pooled_diff_max_abs"], r["pooled_diff_relative"]
    return result(
        "F4.1",
        "Without a position encoding, a trajectory and its reverse give the same "
        "pooled output of a self-attention layer",
        r"the two sets of bars coincide, up to $\sim 10^{-16}$",
        measured=f"max |difference| {diff:.1g} (relative {rel:.1g}) over the "
        f"{position.D_MODEL} outputs",
        ok=rel <= ROUNDING,
        values={"max_abs_diff": diff, "relative_diff": rel, "tol": ROUNDING}
        | {"n_waypoints": len(position.WAYPOINTS_CM), "d_model": position.D_MODEL}
        | {"layer_seed": position.LAYER_SEED},
    )


def check_f4_2() -> ClaimResult:
    sin, rope = position.reversal("sinusoidal"), position.reversal("rope")
    rel = sin["pooled_diff_relative"]
    return result(
        "F4.2",
        "With sinusoidal encoding, the trajectory and its reverse give clearly "
        "different pooled outputs",
        "the two sets of bars clearly differ",
        measured=f"relative difference {rel:.1%} (max |difference| "
        f"{sin['pooled_diff_max_abs']:.2f}); RoPE: {rope['pooled_diff_relative']:.1%}",
        ok=rel >= CLEAR,
        values={
            "relative_diff": rel,
            "max_abs_diff": sin["pooled_diff_max_abs"],
            "relative_diff_rope": rope["pooled_diff_relative"],
        }
        | {"clear": CLEAR, "layer_seed": position.LAYER_SEED},
    )


def reversal_gap(layer_seed: int) -> float:
    """‖a − b‖ / ‖a‖ for FIG 4's trajectory and its reverse, sinusoidal PE, one random layer."""
    layer = position.random_layer(np.random.default_rng(layer_seed))
    return position.reversal("sinusoidal", layer)["pooled_diff_relative"]


def check_f4_2_sweep() -> ClaimResult:
    rel = np.array([reversal_gap(s) for s in range(SWEEP_LAYERS)])
    share = float(np.mean(rel >= CLEAR))
    p10, med, p90 = np.percentile(rel, [10, 50, 90])
    return result(
        "F4.2",
        "With sinusoidal encoding, the trajectory and its reverse give clearly "
        "different pooled outputs, for most random layers",
        "the two sets of bars clearly differ",
        measured=f"{SWEEP_LAYERS} layer seeds: relative difference median {med:.0%} "
        f"(10–90%: {p10:.0%}–{p90:.0%}, min {rel.min():.1%}); {share:.0%} of seeds ≥ {CLEAR:.0%}",
        ok=share >= CLEAR_SHARE and float(rel.min()) > NOT_ROUNDING,
        values={
            "median": med,
            "p10": p10,
            "p90": p90,
            "min": rel.min(),
            "share_clear": share,
            "n_seeds": SWEEP_LAYERS,
        }
        | {"clear": CLEAR, "share_min": CLEAR_SHARE, "not_rounding": NOT_ROUNDING},
    )


def check_f4_3() -> ClaimResult:
    default = {p.name: p.default for p in position.PARAMS}
    q, k, m, n = default["q"], default["k"], default["m"], default["n"]
    base = position.rope_pair(q, k, m, n)
    moved = [position.rope_pair(q, k, m + s, n + s) for s in SHIFTS]
    change = max(abs(r["rope_score"] - base["rope_score"]) for r in moved)
    turned = min(float(np.linalg.norm(r["rope_q_m"] - base["rope_q_m"])) for r in moved)
    other = abs(position.rope_pair(q, k, m, n + 1)["rope_score"] - base["rope_score"])
    return result(
        "F4.3",
        "RoPE: moving both positions together turns both arrows but leaves the "
        "score q_m·k_n unchanged, since it depends only on n − m",
        r"$m$ and $n$ moved together (≥ 3 steps): $\mathbf q_m\cdot\mathbf k_n$ unchanged",
        measured=f"score {base['rope_score']:.4f}; shifts of {SHIFTS[0]}…{SHIFTS[-1]} change it "
        f"by at most {change:.1g} while q_m moves ≥ {turned:.2f}; moving n alone by 1 changes "
        f"it by {other:.3f}",
        ok=change <= ROUNDING and turned > MOVES and other > MOVES,
        values={"score": base["rope_score"], "max_change": change, "change_n_only": other}
        | {"tol": ROUNDING, "shift_min": SHIFTS[0], "shift_max": SHIFTS[-1], "m": m, "n": n}
        | {"omega": position.OMEGA_ROPE, "moves": MOVES},
    )


def check_f4_4() -> ClaimResult:
    table = position.pe_table()  # (64, 32), the figure's panel
    gram = table @ table.T  # (64, 64): PE(p)·PE(p')
    n = len(table)
    spread = max(float(np.ptp(np.diagonal(gram, offset=o))) for o in range(-(n - 1), n))
    along = np.diagonal(gram)  # offset 0: all equal to d/2
    first_row = gram[0]
    return result(
        "F4.4",
        "The dot product of two sinusoidal encodings depends only on the distance "
        "between the positions",
        r"$\mathrm{PE}(p)\cdot\mathrm{PE}(p')$ depends only on $p - p'$ "
        "($d = 32$, positions 0…63)",
        measured=f"for every offset p − p' the {n}×{n} dot products agree to {spread:.1g}; "
        f"they range over [{first_row.min():.2f}, {first_row.max():.2f}] as the offset "
        "changes",
        ok=spread <= ROUNDING * along.max() and float(np.ptp(first_row)) > VARIES,
        values={"max_spread": spread, "d_half": along.max(), "tol": ROUNDING}
        | {"n_positions": n, "varies": VARIES},
    )


def encoder(x: np.ndarray, blocks: list[dict[str, np.ndarray]]) -> np.ndarray:
    """A small Pre-LN Transformer encoder (residual, LayerNorm, MLP, no mask): x (n, d)."""
    for p in blocks:
        x, _ = block_forward(x, p, BlockConfig())
    return x


def check_m1() -> ClaimResult:
    rng = np.random.default_rng(CHECK_SEED)
    layer = position.default_layer()
    x = position.embed(rng.uniform(0, position.TABLE_CM, (N_TOKENS, 2)), layer)  # (6, 8) tokens
    y = rng.standard_normal((N_QUERIES, position.D_MODEL))  # query tokens from elsewhere
    blocks = [init_block(position.D_MODEL, N_HEADS, rng) for _ in range(N_BLOCKS)]
    perms = [rng.permutation(len(x)) for _ in range(N_PERMS)]
    self_out = position.self_attention_layer(x, layer, "none")

    def cross(tokens: np.ndarray) -> np.ndarray:  # the queries y read from the tokens
        return attention(y @ layer.W_Q, tokens @ layer.W_K, tokens @ layer.W_V)[0]

    pooled = encoder(x, blocks).mean(axis=0)
    err_self = max(
        _relative(self_out[p], position.self_attention_layer(x[p], layer, "none")) for p in perms
    )
    err_cross = max(_relative(cross(x), cross(x[p])) for p in perms)
    err_pool = max(_relative(pooled, encoder(x[p], blocks).mean(axis=0)) for p in perms)
    return result(
        "M1",
        "Without a mask, self-attention is permutation-equivariant, cross-attention's "
        "output ignores the order of the keys, and a mean-pooled Transformer is invariant",
        r"$\mathrm{Attn}(PX) = P\,\mathrm{Attn}(X)$; $\mathrm{Attn}(Y \leftarrow PX) = "
        r"\mathrm{Attn}(Y \leftarrow X)$; no PE + mean pool: invariant",
        measured=f"{N_PERMS} permutations of {N_TOKENS} tokens: self {err_self:.1g}, cross "
        f"{err_cross:.1g}, {N_BLOCKS}-block encoder pooled {err_pool:.1g} (relative)",
        ok=max(err_self, err_cross, err_pool) <= ROUNDING,
        values={
            "self_attention": err_self,
            "cross_attention": err_cross,
            "encoder_pooled": err_pool,
        }
        | {"tol": ROUNDING, "n_perms": N_PERMS, "n_tokens": N_TOKENS, "n_blocks": N_BLOCKS},
    )


def reach(n_points: int) -> np.ndarray:
    """FIG 4's reach resampled to n_points waypoints (cm), shape (n_points, 2)."""
    path = np.array(position.WAYPOINTS_CM)
    t = np.linspace(0, len(path) - 1, n_points)
    return np.stack([np.interp(t, np.arange(len(path)), path[:, i]) for i in range(2)], axis=1)


def check_e2() -> ClaimResult:
    layer = position.default_layer()
    rng = np.random.default_rng(CHECK_SEED)
    blocks = [init_block(position.D_MODEL, N_HEADS, rng) for _ in range(N_BLOCKS)]
    x = position.embed(reach(N_REACH), layer)  # (10, 8)
    pe = sinusoidal_encoding(len(x), position.D_MODEL)

    def pooled(tokens: np.ndarray, add_pe: bool) -> np.ndarray:
        return encoder(tokens + pe if add_pe else tokens, blocks).mean(axis=0)

    same = _relative(pooled(x, False), pooled(x[::-1], False))
    differ = _relative(pooled(x, True), pooled(x[::-1], True))
    return result(
        "E2",
        f"Exercise 2: reversing {N_REACH} waypoints leaves the mean-pooled output of an "
        "encoder without position encoding unchanged; adding one breaks the tie",
        r"exactly the same vector (differences $\sim 10^{-16}$); a position encoding "
        "is needed",
        measured=f"no PE: relative difference {same:.1g}; sinusoidal PE: {differ:.1%}",
        ok=same <= ROUNDING and differ >= PE_SEEN,
        values={"relative_diff_no_pe": same, "relative_diff_sinusoidal": differ}
        | {"n_blocks": N_BLOCKS, "d_model": position.D_MODEL, "n_heads": N_HEADS}
        | {"n_waypoints": N_REACH, "tol": ROUNDING, "pe_seen": PE_SEEN},
    )


CHECKS: tuple[ClaimCheck, ...] = (
    ClaimCheck("F4.1", check_f4_1),
    ClaimCheck("F4.2", check_f4_2),
    ClaimCheck("F4.2", check_f4_2_sweep, slow=True),
    ClaimCheck("F4.3", check_f4_3),
    ClaimCheck("F4.4", check_f4_4),
    ClaimCheck("M1", check_m1),
    ClaimCheck("E2", check_e2),
)
