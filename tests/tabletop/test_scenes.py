"""The tabletop sampler and test sets (tabletop/scenes.py, FIG 2)."""

from __future__ import annotations

import numpy as np
import pytest

from attnlab.tabletop.scenes import (
    COLOURS,
    HALF_CM,
    MAX_SLOTS,
    MLP_INPUT_DIM,
    TEST_SIZE,
    SceneStream,
    fixed_test_sets,
    sample_scenes,
    scene_from_objects,
    scenes_from_uniforms,
    uniforms_per_scene,
)


def _objects(sc):
    """Per scene: number of objects, positions in cm (n, 2), colour ids (n,)."""
    out = []
    for b in range(sc.size):
        present = sc.mask[b]
        x = sc.x[b][present]
        out.append((int(present.sum()), x[:, :2] * HALF_CM + HALF_CM, x[:, 2:].argmax(axis=1)))
    return out


@pytest.mark.parametrize("task", ["fetch", "vector"])
def test_sampled_scenes_follow_the_lesson(rng, task):
    sc = sample_scenes(rng, 500, task=task)
    assert sc.rows.shape == (500, MLP_INPUT_DIM) and sc.n_slots == 5
    counts, spots = [], []
    for b, (n, p, colours) in enumerate(_objects(sc)):
        counts.append(n)
        spots.append(p)
        assert 2 <= n <= 5
        assert np.all((p >= 0) & (p <= 80)), "on the 80 × 80 cm table"
        assert len(set(colours.tolist())) == n, "distinct colours"
        t, s = sc.target[b], sc.second[b]
        assert t < n and s < n and t != s
        np.testing.assert_array_equal(sc.x[b, n:], 0.0)  # empty slots zero
        np.testing.assert_array_equal(sc.rows[b, 40:48], 0.0)  # the sixth slot too
        c = sc.c[b]
        assert c[:6].argmax() == colours[t] and c[:6].sum() == 1
        want = p[t] if task == "fetch" else p[t] - p[s]
        if task == "fetch":
            assert c[6:].sum() == 0, "fetch has no second colour"
            want = want - HALF_CM
        else:
            assert c[6:].argmax() == colours[s] and c[6:].sum() == 1
        np.testing.assert_allclose(sc.y[b] * HALF_CM, want, atol=1e-12)
    assert set(counts) == {2, 3, 4, 5}
    spots = np.concatenate(spots)  # ~1750 blocks: U[0, 80] reaches within 2 cm of every edge
    assert spots.min() < 2 and spots.max() > 78
    assert np.abs(spots.mean(axis=0) - 40).max() < 2  # … and is centred on the table


def test_target_is_not_always_in_the_same_slot(rng):
    sc = sample_scenes(rng, 2000, task="fetch")
    share = np.bincount(sc.target, minlength=5) / sc.size
    assert share[0] < 0.45 and share[4] > 0.03  # uniform over the objects present


def test_the_mask_is_true_on_the_filled_slots(rng):
    sc = sample_scenes(rng, 100, task="fetch")
    filled = np.abs(sc.x).sum(axis=-1) > 0
    assert sc.mask.dtype == bool
    np.testing.assert_array_equal(sc.mask, filled)


def test_seed_axis_gives_each_seed_its_own_scenes(rng):
    u = rng.random((3, 32, uniforms_per_scene(5)))
    together = scenes_from_uniforms(u, task="vector", objects=(2, 5))
    for i in range(3):
        alone = scenes_from_uniforms(u[i], task="vector", objects=(2, 5))
        np.testing.assert_array_equal(together.rows[i], alone.rows)
        np.testing.assert_array_equal(together.y[i], alone.y)
        np.testing.assert_array_equal(together.mask[i], alone.mask)


def test_stream_in_chunks_equals_one_draw_per_step():
    stream = SceneStream([np.random.default_rng(7)], 32, task="fetch", chunk=25)
    rng = np.random.default_rng(7)
    for _ in range(60):  # crosses two chunk boundaries
        a = stream.next()
        b = sample_scenes(rng, 32, task="fetch")
        np.testing.assert_array_equal(a.rows[0], b.rows)
        np.testing.assert_array_equal(a.y[0], b.y)


def test_test_sets_are_fixed_and_read_only():
    small, six = fixed_test_sets("fetch")
    assert small.size == six.size == TEST_SIZE
    assert six.n_slots == MAX_SLOTS and np.all(six.mask), "6 objects in every scene"
    assert {n for n, _, _ in _objects(small)} == {2, 3, 4, 5}
    assert fixed_test_sets("fetch")[0] is small
    again = fixed_test_sets.__wrapped__("fetch")[0]
    np.testing.assert_array_equal(again.rows, small.rows)
    with pytest.raises(ValueError):
        small.rows[0, 0] = 1.0
    vec = fixed_test_sets("vector")[0]
    np.testing.assert_array_equal(vec.x, small.x)  # same scenes, other instruction and answer
    with pytest.raises(ValueError, match="task"):
        fixed_test_sets("juggle")


def test_scene_from_objects_matches_the_layout():
    sc = scene_from_objects(
        np.array([[10.0, 20.0], [70.0, 60.0], [40.0, 40.0]]), [5, 0, 2], 0, 5, task="vector"
    )
    assert sc.n_slots == 3 and sc.x.shape == (1, 3, 8)
    np.testing.assert_allclose(sc.y[0] * HALF_CM, [60.0, 40.0])
    assert sc.c[0, 0] == 1 and sc.c[0, 6 + 5] == 1
    assert len(COLOURS) == 6
