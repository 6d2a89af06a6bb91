"""The colour-match table: what FIG 2's attention model has learned to look for (F2.10).

The spec's insight is that the keys end up encoding colour alone. The table makes that visible.
Put one block of colour b at the table's centre, where its position part is 0, so its token is
x = [0, 0, e_b]. Under the instruction c, head h scores it

    s_h(c, b) = (c W_Q^h) · (x W_K^h) / √d_k = c · G_h[:, b],
    G_h = W_Q^h (W_K^h[2:])ᵀ / √d_k,                       (12 × 6)

because only the colour rows of W_K meet a centred block. c is one-hot in its halves: fetch "a"
is e_a, and vector "A = a, B = a′" is e_a + e_{6+a′}. The score is therefore a sum of one row
from each half of G:

    fetch:  s_h(a, b) = G_h[a, b]
    vector: s_h(a, a′, b) = G_h[a, b] + G_h[6 + a′, b]

So the table is G, cut into the part that the instruction's first colour (the target, or A) adds
and, for the vector task, the part that B adds. Softmax is blind to a constant added to a row, so
what matters in a row is where its maximum sits. For fetch the maximum lands on the diagonal: the
head scores the block whose colour was asked for highest. With two heads on the vector task, one
head's maximum follows A and the other's follows B.
"""

from __future__ import annotations

from itertools import permutations

import numpy as np

from attnlab.tabletop.model import SCALE, AttentionParams
from attnlab.tabletop.scenes import N_COLOURS

# every instruction of the vector task, as (A, B) colour pairs: 30 ordered pairs of distinct colours
VECTOR_INSTRUCTIONS = tuple(permutations(range(N_COLOURS), 2))


def colour_match(params: AttentionParams, task: str, seed_index: int = 0) -> np.ndarray:
    """G of one seed, cut into parts: (H, P, 6, 6) = [head, part, instruction colour, block colour].

    P = 1 for fetch (the target's half; the other half of c is always 0 there, so it never trains)
    and 2 for vector (A's half, then B's).
    """
    W_Q = params.W_Q[seed_index]  # (H, 12, d_k)
    keys = params.W_K[seed_index][:, 2:, :]  # (H, 6, d_k): the key of a centred block per colour
    G = np.matmul(W_Q, keys.swapaxes(-1, -2)) * SCALE  # (H, 12, 6)
    parts = 1 if task == "fetch" else 2
    return G[:, : parts * N_COLOURS].reshape(G.shape[0], parts, N_COLOURS, N_COLOURS)


def instruction_scores(table: np.ndarray) -> np.ndarray:
    """Every head's scores of a centred block of each colour, under every instruction.

    table (H, P, 6, 6) → fetch (H, 6, 6): [head, target, block]; vector (H, 30, 6):
    [head, (A, B) in VECTOR_INSTRUCTIONS order, block] = A's row plus B's row.
    """
    if table.shape[1] == 1:
        return table[:, 0]
    a, b = (np.array(col) for col in zip(*VECTOR_INSTRUCTIONS, strict=True))
    return table[:, 0, a] + table[:, 1, b]


def peak_shares(table: np.ndarray) -> np.ndarray:
    """Per head, the share of instructions whose highest-scored colour is the target's (fetch,
    (H, 1)) or A's and B's (vector, (H, 2))."""
    peaks = instruction_scores(table).argmax(axis=-1)  # (H, instructions)
    if table.shape[1] == 1:
        return (peaks == np.arange(N_COLOURS)).mean(axis=-1, keepdims=True)
    a, b = (np.array(col) for col in zip(*VECTOR_INSTRUCTIONS, strict=True))
    return np.stack([(peaks == a).mean(axis=-1), (peaks == b).mean(axis=-1)], axis=-1)


def scores_under(table: np.ndarray, target: int, second: int | None = None) -> np.ndarray:
    """Every head's scores of a centred block of each colour under one instruction, (H, 6):
    the target's row (fetch), or A's row plus B's row (vector)."""
    scores = table[:, 0, target]
    return scores if table.shape[1] == 1 else scores + table[:, 1, second]
