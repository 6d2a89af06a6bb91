"""Readers' models trained together in one stack take exactly the path each takes alone."""

from __future__ import annotations

import numpy as np
import pytest

from attnlab.tabletop.seed_batch import SeedBatch, train_together


def _history(b: SeedBatch) -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray]:
    return b.eval_steps, np.stack(b.errors), np.stack(b.head_weight), np.stack(b.losses)


@pytest.mark.parametrize(("task", "heads"), [("fetch", 1), ("vector", 2)])
def test_a_stack_of_members_at_different_steps_matches_each_trained_alone(task, heads):
    seeds, head_start = [3, 9, 14], [0, 7, 31]  # members stand at different steps
    together = [SeedBatch(task, heads, [s]) for s in seeds]
    alone = [SeedBatch(task, heads, [s]) for s in seeds]
    for a, b, k in zip(together, alone, head_start, strict=True):
        a.advance(k), b.advance(k)
    for n in (11, 1, 40):  # chunks that cross multiples of 25 at different places per member
        added = train_together(together, n)
        assert added == [b.advance(n) for b in alone]
    for a, b in zip(together, alone, strict=True):
        assert a.step == b.step
        np.testing.assert_array_equal(a.theta, b.theta)  # bit for bit
        np.testing.assert_array_equal(a._adam.v["theta"], b._adam.v["theta"])
        steps_a, *arrays_a = _history(a)
        steps_b, *arrays_b = _history(b)
        assert steps_a == steps_b
        for x, y in zip(arrays_a, arrays_b, strict=True):
            np.testing.assert_array_equal(x, y)


def test_a_member_trains_on_alone_after_leaving_a_stack():
    a, b = SeedBatch("fetch", 1, [1]), SeedBatch("fetch", 1, [1])
    other = SeedBatch("fetch", 1, [2])
    train_together([a, other], 30)
    a.advance(20)
    b.advance(50)
    np.testing.assert_array_equal(a.theta, b.theta)
    np.testing.assert_array_equal(np.stack(a.errors), np.stack(b.errors))


def test_only_one_seed_batches_of_one_kind_stack():
    with pytest.raises(ValueError):
        SeedBatch.stacked([SeedBatch("fetch", 1, [1]), SeedBatch("fetch", 2, [2])])
    with pytest.raises(ValueError):
        SeedBatch.stacked([SeedBatch("fetch", 1, [1, 2])])
