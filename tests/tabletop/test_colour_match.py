"""The colour-match table (tabletop/colour_match.py) against the model written out plainly."""

from __future__ import annotations

import numpy as np
import pytest

from attnlab.nn.attention import attention
from attnlab.tabletop import TrainConfig, Trainer
from attnlab.tabletop.colour_match import (
    VECTOR_INSTRUCTIONS,
    colour_match,
    instruction_scores,
    peak_shares,
    scores_under,
)
from attnlab.tabletop.model import D_K
from attnlab.tabletop.scenes import N_COLOURS, TOKEN_DIM


def _score_of_a_centred_block(trainer: Trainer, h: int, c: np.ndarray, colour: int) -> float:
    """q · k / √d_k the long way: the instruction's query, a centred block's key."""
    W_Q, W_K, *_ = (p[0] for p in trainer.seed_batch.params_a)
    x = np.zeros(TOKEN_DIM)
    x[2 + colour] = 1.0  # position (0, 0): the table's centre, after centring
    return float((c @ W_Q[h]) @ (x @ W_K[h]) / np.sqrt(D_K))


def _instruction(a: int, b: int | None = None) -> np.ndarray:
    c = np.zeros(2 * N_COLOURS)
    c[a] = 1.0
    if b is not None:
        c[N_COLOURS + b] = 1.0
    return c


@pytest.mark.parametrize(("task", "heads"), [("fetch", 1), ("fetch", 4), ("vector", 2)])
def test_every_entry_is_the_score_of_a_centred_block(task, heads):
    trainer = Trainer(TrainConfig(task=task, heads=heads, seed=3))
    trainer.advance(50)
    scores = instruction_scores(colour_match(trainer.seed_batch.params_a, task))
    instructions = (
        [(a, None) for a in range(N_COLOURS)] if task == "fetch" else list(VECTOR_INSTRUCTIONS)
    )
    assert scores.shape == (heads, len(instructions), N_COLOURS)
    for h in range(heads):
        for i, (a, b) in enumerate(instructions):
            for colour in range(N_COLOURS):
                want = _score_of_a_centred_block(trainer, h, _instruction(a, b), colour)
                assert scores[h, i, colour] == pytest.approx(want, abs=1e-12)


def test_the_weights_of_a_centred_table_follow_the_scores():
    """Softmax over blocks at the centre is the engine's attention on those scores."""
    trainer = Trainer(TrainConfig(task="fetch", heads=1, seed=9))
    trainer.advance(300)
    W_Q, W_K, *_ = (p[0] for p in trainer.seed_batch.params_a)
    x = np.zeros((N_COLOURS, TOKEN_DIM))
    x[:, 2:] = np.eye(N_COLOURS)  # one centred block of every colour
    table = colour_match(trainer.seed_batch.params_a, "fetch")[0, 0]
    for a in range(N_COLOURS):
        q = _instruction(a) @ W_Q[0]
        _, alpha = attention(q[None], x @ W_K[0], x @ W_K[0])
        e = np.exp(table[a] - table[a].max())
        np.testing.assert_allclose(alpha[0], e / e.sum(), atol=1e-12)


def test_peak_shares_read_where_each_row_peaks():
    diagonal = np.eye(N_COLOURS)[None, None]  # one head, fetch: every row peaks on the diagonal
    assert peak_shares(diagonal).tolist() == [[1.0]]
    assert peak_shares(np.roll(diagonal, 1, axis=-1)).tolist() == [[0.0]]
    # vector, two heads: head 0 follows A (its A part is the identity), head 1 follows B
    eye, zero = np.eye(N_COLOURS), np.zeros((N_COLOURS, N_COLOURS))
    table = np.array([[eye, zero], [zero, eye]])
    assert peak_shares(table).tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_training_fetch_makes_the_table_diagonal():
    """The untrained table peaks anywhere; after 600 steps every row peaks on its colour."""
    trainer = Trainer(TrainConfig(task="fetch", heads=1, seed=9))
    before = peak_shares(colour_match(trainer.seed_batch.params_a, "fetch"))[0, 0]
    trainer.advance(600)
    after = peak_shares(colour_match(trainer.seed_batch.params_a, "fetch"))[0, 0]
    assert before < 1 and after == 1
    readout = trainer.colour_match()  # what the page receives
    assert np.asarray(readout["table"]).shape == (1, 1, N_COLOURS, N_COLOURS)
    assert readout["peaks"] == [[1.0]]


def test_the_scores_under_one_instruction_are_its_row_of_every_instruction():
    trainer = Trainer(TrainConfig(task="vector", heads=2, seed=4))
    trainer.advance(100)
    table = colour_match(trainer.seed_batch.params_a, "vector")
    every = instruction_scores(table)
    for i, (a, b) in enumerate(VECTOR_INSTRUCTIONS):
        np.testing.assert_array_equal(scores_under(table, a, b), every[:, i])
    readout = trainer.colour_match(2, 5)
    assert readout["scores"] == every[:, VECTOR_INSTRUCTIONS.index((2, 5))].tolist()
    assert readout["row_peaks"] == table.argmax(axis=-1).tolist()
    assert readout["score_peaks"] == np.argmax(readout["scores"], axis=-1).tolist()
