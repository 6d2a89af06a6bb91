"""§4 part 2, FIG 4: position encodings, and what happens without one.

Four panels:
- the sinusoidal table PE (d = 32, positions 0…63);
- the similarity PE(p)·PE(p')/(d/2) of one position p to all others: it peaks at p' = p and only
  shifts with p, because the dot product depends only on p − p';
- RoPE on one 2-D pair (ω = 0.35 rad per position): q rotated to position m, k to position n;
  the score q_m·k_n depends only on n − m;
- a 6-waypoint reaching trajectory through one random self-attention layer (d = 8, fixed seed),
  mean-pooled over tokens, for the trajectory and its reverse. Without a position encoding the
  layer sees a set, so both orders give the same pooled output up to rounding (M1).

How a waypoint becomes a token: its (x, y) on the 80 cm table is centred and scaled to [−1, 1],
then lifted to d = 8 by a fixed random linear layer, x_t = u_t W_E + b_E, as a policy's input
layer would. Sinusoidal PE adds PE(t) to x_t; RoPE rotates q_t and k_t by t·ω_i with the usual
frequencies ω_i = 10000^(−2i/d).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from attnlab.nn.attention import attention
from attnlab.nn.positional import rope_rotate, sinusoidal_encoding, sinusoidal_frequencies
from attnlab.params import Param
from attnlab.plain import Encoded
from attnlab.tabletop.scenes import TABLE_CM

NAME = "position"

D_PE = 32  # width of the sinusoidal table panel
N_POSITIONS = 64
OMEGA_ROPE = 0.35  # rad per position, the RoPE panel's single pair
D_MODEL = 8  # width of the trajectory layer
LAYER_SEED = 0
# A reach from the gripper's home corner to a cup, bending on the way (cm).
WAYPOINTS_CM = ((10.0, 10.0), (17.0, 25.0), (27.0, 37.0), (39.0, 46.0), (51.0, 52.0), (62.0, 55.0))
PE_CHOICES = ("none", "sinusoidal", "rope")

PARAMS: tuple[Param, ...] = (
    Param("p", "int", 20, "position compared with all others", lo=0, hi=N_POSITIONS - 1),
    Param("q", "vector", (1.0, 0.2), "RoPE panel: the query pair q", lo=-2.0, hi=2.0, length=2),
    Param("k", "vector", (0.4, 0.9), "RoPE panel: the key pair k", lo=-2.0, hi=2.0, length=2),
    Param("m", "int", 3, "RoPE panel: position of the query", lo=0, hi=N_POSITIONS - 1),
    Param("n", "int", 7, "RoPE panel: position of the key", lo=0, hi=N_POSITIONS - 1),
    Param("pe", "choice", "none", "position encoding of the trajectory layer",
          choices=PE_CHOICES),
)  # fmt: skip
# Kept in the page's URL, never sent here: whether the reversed trajectory's bars are shown (the
# answer always has both orders), and how many times in a row "m, n + 1" moved both RoPE
# positions with q and k untouched (the lesson's try-it "rope-shift" reads it).
VIEW_PARAMS: tuple[Param, ...] = (
    Param("reversed", "bool", False, "show the reversed trajectory's bars"),
    Param("shift", "int", 0, "moves of m and n together in a row", lo=0, hi=N_POSITIONS - 1),
)
CONSTANTS = {"table_cm": TABLE_CM, "n_positions": N_POSITIONS, "d_pe": D_PE}


@dataclass(frozen=True)
class Layer:
    """One random self-attention layer with its input embedding; row-vector convention.

    W_E (2, d), b_E (d,): waypoint → token. W_Q, W_K, W_V (d, d).
    """

    W_E: np.ndarray
    b_E: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray


def random_layer(rng: np.random.Generator, d: int = D_MODEL) -> Layer:
    """Draw a layer. W_Q and W_K have std 1 rather than the usual 1/√d.

    Why: reversing the order can only change the pooled output through the attention pattern
    (if every token averaged all values uniformly, the pooled output would forget the order, PE
    or not). With std 1/√d the untrained layer's weights are flatter and, with sinusoidal PE, the
    two orders differ by 8% at LAYER_SEED (median 21% over 200 seeds); with std 1 the pattern is
    sharper: 16% at LAYER_SEED, median 34% (the slow check of claim F4.2 sweeps the seeds).
    """
    return Layer(
        W_E=rng.standard_normal((2, d)),
        b_E=rng.standard_normal(d),
        W_Q=rng.standard_normal((d, d)),
        W_K=rng.standard_normal((d, d)),
        W_V=rng.standard_normal((d, d)) / math.sqrt(d),
    )


@lru_cache(maxsize=1)
def default_layer() -> Layer:
    return random_layer(np.random.default_rng(LAYER_SEED))


def embed(waypoints_cm: np.ndarray, layer: Layer) -> np.ndarray:
    """Waypoints (n, 2) in cm → tokens (n, d): centre/scale to [−1, 1], then x = u W_E + b_E."""
    u = (np.asarray(waypoints_cm, dtype=float) - TABLE_CM / 2) / (TABLE_CM / 2)
    return u @ layer.W_E + layer.b_E


def self_attention_layer(x: np.ndarray, layer: Layer, pe: str) -> np.ndarray:
    """One self-attention layer over tokens x (n, d) in the given order → outputs (n, d)."""
    n, d = x.shape
    positions = np.arange(n)
    if pe == "sinusoidal":
        x = x + sinusoidal_encoding(n, d)
    q, k, v = x @ layer.W_Q, x @ layer.W_K, x @ layer.W_V  # (n, d) each
    if pe == "rope":
        omega = sinusoidal_frequencies(d)
        q, k = rope_rotate(q, positions, omega), rope_rotate(k, positions, omega)
    out, _ = attention(q, k, v, scale=True)
    return out


def pooled_output(waypoints_cm: np.ndarray, layer: Layer, pe: str) -> np.ndarray:
    """Mean over tokens of the layer's output, shape (d,): the trajectory's summary."""
    return self_attention_layer(embed(waypoints_cm, layer), layer, pe).mean(axis=0)


def reversal(pe: str, layer: Layer | None = None) -> dict[str, Any]:
    """Pooled outputs for WAYPOINTS_CM and its reverse, and how far apart they are.

    relative = ‖a − b‖ / ‖a‖ (Euclidean norms of the 8-number outputs).
    """
    layer = layer or default_layer()
    path = np.array(WAYPOINTS_CM)
    a = pooled_output(path, layer, pe)
    b = pooled_output(path[::-1], layer, pe)
    return {
        "waypoints": path,
        "pooled_original": a,
        "pooled_reversed": b,
        "pooled_diff_max_abs": float(np.abs(a - b).max()),
        "pooled_diff_relative": float(np.linalg.norm(a - b) / np.linalg.norm(a)),
    }


def rope_pair(q: Sequence[float], k: Sequence[float], m: int, n: int) -> dict[str, Any]:
    """The RoPE panel: q rotated by m·ω, k by n·ω (one pair, ω = OMEGA_ROPE), and q_m·k_n."""
    q_m = rope_rotate(np.asarray(q, dtype=float)[None, :], np.array([m]), OMEGA_ROPE)[0]
    k_n = rope_rotate(np.asarray(k, dtype=float)[None, :], np.array([n]), OMEGA_ROPE)[0]
    return {
        "rope_omega": OMEGA_ROPE,
        "rope_angle_m": m * OMEGA_ROPE,
        "rope_angle_n": n * OMEGA_ROPE,
        "rope_q_m": q_m,
        "rope_k_n": k_n,
        "rope_score": float(q_m @ k_n),
        "rope_score_unrotated": float(np.dot(q, k)),
    }


def pe_table() -> np.ndarray:
    """The table panel's sinusoidal PE, shape (N_POSITIONS, D_PE): row p is PE(p)."""
    return sinusoidal_encoding(N_POSITIONS, D_PE)


@lru_cache(maxsize=1)
def _table() -> tuple[np.ndarray, Encoded]:
    """The PE table (read-only) and its JSON text: 2,048 numbers no setting changes, written
    once (cProfile: writing them was most of a FIG 4 request)."""
    table = pe_table()
    table.flags.writeable = False
    return table, Encoded(table)


@lru_cache(maxsize=len(PE_CHOICES))
def _reversal(pe: str) -> dict[str, Encoded]:
    """`reversal(pe)` at the default layer, written once per encoding."""
    return {key: Encoded(value) for key, value in reversal(pe).items()}


def compute(
    *, p: int, q: Sequence[float], k: Sequence[float], m: int, n: int, pe: str
) -> dict[str, Any]:
    """FIG 4's data: PE table (positions × dims), similarity row, RoPE pair, trajectory."""
    table, table_text = _table()  # (64, 32)
    return {
        "d_pe": D_PE,
        "d_model": D_MODEL,
        "pe_table": table_text,  # pe_table[p][j]: position p, dimension j
        "similarity": table @ table[p] / (D_PE / 2),  # (64,)
        **rope_pair(q, k, m, n),
        **_reversal(pe),
    }
