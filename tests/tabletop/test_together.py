"""Readers' models trained together in one stack take exactly the path each takes alone."""

from __future__ import annotations

import numpy as np
import pytest

from attnlab.tabletop.seed_batch import KeptStacks, SeedBatch, train_together


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


def test_kept_stacks_give_each_member_the_numbers_it_gets_alone():
    """A stack kept between chunks, reused, refilled with other members, or stale after a member
    trained elsewhere: every member still takes the path it takes alone, to the bit."""
    seeds = [3, 9, 14, 21]
    kept = KeptStacks(size=2)
    together = [SeedBatch("fetch", 1, [s]) for s in seeds]
    alone = [SeedBatch("fetch", 1, [s]) for s in seeds]
    chunks = [([0, 1, 2], 8), ([0, 1, 2], 8), ([1, 2, 3], 8), ([0, 1, 2], 8), ([0, 1, 2], 30)]
    for rows, n in chunks:
        train_together([together[i] for i in rows], n, kept)
        for i in rows:
            alone[i].advance(n)
    together[1].advance(5)  # trained outside the kept stack: its stack is stale
    alone[1].advance(5)
    train_together(together[:3], 8, kept)
    for i in range(3):
        alone[i].advance(8)
    for a, b in zip(together, alone, strict=True):
        np.testing.assert_array_equal(a.theta, b.theta)
        np.testing.assert_array_equal(a._adam.m["theta"], b._adam.m["theta"])
        for x, y in zip(_history(a)[1:], _history(b)[1:], strict=True):
            np.testing.assert_array_equal(x, y)


def test_a_kept_stack_is_reused_only_while_its_members_are_where_it_left_them():
    kept = KeptStacks()
    members = [SeedBatch("fetch", 1, [s]) for s in (1, 2)]
    train_together(members, 3, kept)
    first = kept.stack(members)
    kept.keep(first, members)
    assert kept.stack(members) is first  # untouched since: the same stack
    kept.keep(first, members)
    members[0].advance(1)
    again = kept.stack(members)
    np.testing.assert_array_equal(again.theta, np.concatenate([m.theta for m in members]))


def test_members_in_step_share_their_stacked_chunks_and_keep_their_own_scenes():
    """Members at the same place in their scene chunks read views of one stacked chunk; each
    still sees its own scenes, across chunk boundaries, and continues alone afterwards."""
    together = [SeedBatch("vector", 2, [s]) for s in (5, 6, 7)]
    alone = [SeedBatch("vector", 2, [s]) for s in (5, 6, 7)]
    kept = KeptStacks()
    for n in (8, 8, 8, 8, 30):  # 62 steps: over two chunk boundaries (every 25 steps)
        train_together(together, n, kept)
    together[0].advance(13)
    for b, n in zip(alone, (75, 62, 62), strict=True):
        b.advance(n)
    for a, b in zip(together, alone, strict=True):
        np.testing.assert_array_equal(a.theta, b.theta)
        np.testing.assert_array_equal(np.stack(a.losses), np.stack(b.losses))
