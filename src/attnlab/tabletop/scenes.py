"""Tabletop scenes for FIG 2 (§3, "hands-on training"): a sampler and the two fixed test sets.

An 80 cm × 80 cm table holds 2–5 blocks of distinct colours out of 6. A block's position is drawn
from U[0, 80] cm on each axis, the whole table as the lesson describes it, and centred for the
networks: x = [(p_x − 40)/40, (p_y − 40)/40, colour one-hot] (8 numbers per object token).
Both choices were measured (100 seeds; `tabletop/__init__.py` has the table): an earlier U[4, 76]
(a margin so no block hangs over the edge) shrank every distance by 10 %, and with it the MLP's
error at the moment attention reaches 2 cm (median 21.3 cm; 14 seeds below 20 cm); and positions
in [0, 1] or in metres, not centred, slow the attention model to a median of 375 steps.

The instruction token c is 12 numbers: the target colour one-hot, then a second colour one-hot.
The fetch task answers p_target; the vector task answers p_A − p_B with A = target and B = second
colour (for fetch the second half of c is zero). Targets are in the same units, so an error in cm
is the Euclidean distance × 40.

Both models read the same array: a row of 60 numbers holds six object slots of 8 numbers (objects
in scene order, empty slots zero) and then c. That row is the slot MLP's input as it is; the
attention model reads the first n_slots × 8 numbers as its tokens (a view, no copy) and skips the
empty slots with a mask.

Sampling is vectorised: one block of uniforms per batch (one call of the generator, shape
(B, K)), turned into scenes by array operations. A seed axis in front (S, B, K) lets a sweep build
the scenes of many seeds at once; each seed's generator draws exactly the uniforms it would draw
alone, so a seed gives the same scenes in a sweep as in a single run.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations
from typing import NamedTuple

import numpy as np

COLOURS: list[str] = ["red", "orange", "yellow", "green", "blue", "purple"]
N_COLOURS = 6
TABLE_CM = 80.0
HALF_CM = TABLE_CM / 2  # positions are centred on the table and divided by this
TOKEN_DIM = 2 + N_COLOURS  # [p_x, p_y, colour one-hot]
INSTRUCTION_DIM = 2 * N_COLOURS  # [target one-hot, second one-hot]
MAX_SLOTS = 6
MLP_INPUT_DIM = MAX_SLOTS * TOKEN_DIM + INSTRUCTION_DIM  # 48 + 12 = 60
INSTRUCTION_AT = MAX_SLOTS * TOKEN_DIM  # c starts at column 48 of a scene row
TASKS = ("fetch", "vector")

TRAIN_OBJECTS = (2, 5)  # objects per training scene (and in the first test set)
TEST_SIZE = 200
TEST_SEED = 20_240_601  # fixed: every run, every seed and every model sees the same test scenes

# All 720 orders of the six colours: a scene takes the first n colours of one order, so a single
# uniform number picks a set of distinct colours in random order.
_ORDERS = np.array(list(permutations(range(N_COLOURS))), dtype=np.intp)  # (720, 6)
_EYE = np.eye(N_COLOURS)


@lru_cache(maxsize=8)
def _tables(objects: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Look-up tables that turn a scene's random integers into its arrays in one indexing step.

    present[k]: (N,) 1 for the first objects[0] + k slots; mask[k]: True there, False elsewhere;
    colour[o, k]: (N, 6) the one-hot colours of order o with objects[0] + k objects, empty rows 0.
    """
    lo, n_slots = objects
    counts = np.arange(lo, n_slots + 1)
    present = (np.arange(n_slots) < counts[:, None]).astype(float)  # (K, N)
    mask = present > 0
    colour = _EYE[_ORDERS[:, :n_slots]][:, None] * present[None, :, :, None]  # (720, K, N, 6)
    for t in (present, mask, colour):
        t.flags.writeable = False
    return present, mask, colour


class Scenes(NamedTuple):
    """A batch of scenes, laid out for both models; leading axes (..., B) are a batch (of seeds).

    rows:    (..., B, 60) six object slots × 8 then the instruction c (the MLP's input).
    mask:    (..., B, n_slots) bool, True where a slot holds an object, False where it is empty
             (attnlab.nn's convention: True = may attend; an empty slot gets weight exactly 0).
    y:       (..., B, 2) the answer in table units (p / 40 after centring).
    target:  (..., B) slot of the target object (A in the vector task).
    second:  (..., B) slot of the second object (B in the vector task).
    n_slots: how many slots the attention model reads (5 in training, 6 for the 6-object set).
    """

    rows: np.ndarray
    mask: np.ndarray
    y: np.ndarray
    target: np.ndarray
    second: np.ndarray
    n_slots: int

    @property
    def x(self) -> np.ndarray:
        """Object tokens, (..., B, n_slots, 8): a view into `rows`."""
        lead = self.rows.shape[:-1]
        return self.rows[..., : self.n_slots * TOKEN_DIM].reshape(*lead, self.n_slots, TOKEN_DIM)

    @property
    def c(self) -> np.ndarray:
        """Instruction tokens, (..., B, 12): a view into `rows`."""
        return self.rows[..., INSTRUCTION_AT:]

    @property
    def size(self) -> int:
        return int(self.rows.shape[-2])


def uniforms_per_scene(n_slots: int) -> int:
    """How many U[0, 1) numbers one scene consumes: colours, positions, count, target, second."""
    return 1 + 2 * n_slots + 3


def scenes_from_uniforms(u: np.ndarray, *, task: str, objects: tuple[int, int]) -> Scenes:
    """Turn uniforms (..., B, K) into scenes with objects[0]..objects[1] objects each.

    Columns of u: [colour order, 2 × n_slots positions, object count, target, second].
    Written for speed (this runs every training step): integers come from the uniforms by
    scaling and truncation, and tables replace one-hot construction.
    """
    lo, n_slots = objects
    lead = u.shape[:-1]
    u = u.reshape(-1, u.shape[-1])  # scenes flat: (S·B, K)
    m = u.shape[0]
    present, mask, colour = _tables(objects)
    order = (u[:, 0] * len(_ORDERS)).astype(np.intp)
    k = 1 + 2 * n_slots
    extra = (u[:, k] * (n_slots - lo + 1)).astype(np.intp)  # objects beyond the minimum
    n = extra + lo
    target = (u[:, k + 1] * n).astype(np.intp)
    second = (u[:, k + 2] * (n - 1)).astype(np.intp)
    second += second >= target  # any object but the target
    # p = 80 u cm, U[0, 80], centred and scaled: (p − 40)/40 = 2u − 1
    p = (u[:, 1:k] * (TABLE_CM / HALF_CM) - 1.0).reshape(m, -1, 2)
    p *= present[extra][:, :, None]  # empty slots hold zeros
    rows = np.zeros((m, MLP_INPUT_DIM))
    x = rows[:, : n_slots * TOKEN_DIM].reshape(m, n_slots, TOKEN_DIM)
    x[:, :, :2] = p
    x[:, :, 2:] = colour[order, extra]
    scene = np.arange(m)
    rows[scene, INSTRUCTION_AT + _ORDERS[order, target]] = 1.0
    y = p[scene, target]
    if task == "vector":
        rows[scene, INSTRUCTION_AT + N_COLOURS + _ORDERS[order, second]] = 1.0
        y -= p[scene, second]
    return Scenes(
        rows.reshape(*lead, MLP_INPUT_DIM),
        mask[extra].reshape(*lead, n_slots),
        y.reshape(*lead, 2),
        target.reshape(lead),
        second.reshape(lead),
        n_slots,
    )


def sample_scenes(
    rng: np.random.Generator, batch: int, *, task: str, objects: tuple[int, int] = TRAIN_OBJECTS
) -> Scenes:
    """`batch` fresh random scenes (one generator call)."""
    u = rng.random((batch, uniforms_per_scene(objects[1])))
    return scenes_from_uniforms(u, task=task, objects=objects)


class SceneStream:
    """Fresh training scenes for S seeds: `next()` gives (S, batch, ...) scenes per step.

    Scenes are built `chunk` steps at a time: a dozen array operations on 25 × 32 scenes cost
    about as much as on 32, so this makes sampling nearly free per step. It does not change which
    scenes a seed sees: drawing (25, B, K) uniforms at once yields the same numbers, in the same
    order, as 25 draws of (B, K).
    """

    def __init__(
        self,
        rngs: list[np.random.Generator],
        batch: int,
        *,
        task: str,
        objects: tuple[int, int] = TRAIN_OBJECTS,
        chunk: int = 25,
    ) -> None:
        self.rngs, self.task, self.objects = rngs, task, objects
        self._u = np.zeros((len(rngs), chunk, batch, uniforms_per_scene(objects[1])))
        self._i = chunk
        self._chunk: Scenes | None = None

    def next(self) -> Scenes:
        if self._i == self._u.shape[1]:
            for rng, u in zip(self.rngs, self._u, strict=True):
                rng.random(out=u)
            self._chunk = scenes_from_uniforms(self._u, task=self.task, objects=self.objects)
            self._i = 0
        ch, i = self._chunk, self._i
        self._i += 1
        return Scenes(
            ch.rows[:, i], ch.mask[:, i], ch.y[:, i], ch.target[:, i], ch.second[:, i], ch.n_slots
        )


class StackedStream:
    """Several seeds' own streams read as one: `next()` stacks their next scenes on the seed axis.

    Each stream draws what it would draw alone, whatever it is stacked with, and stays usable
    alone afterwards (a reader who leaves a stack continues its own stream). While the streams
    stand at the same place in their chunks (readers who started together), their chunks are
    stacked once and each step is a view into that (stacking five arrays a step took a tenth of
    a stack of 8's step, on the thread's CPU clock); else each step's scenes are stacked as
    they come.
    """

    def __init__(self, streams: list[SceneStream]) -> None:
        self.streams = streams
        self._stacked: Scenes | None = None
        self._of: list[Scenes | None] = []  # the chunks `_stacked` was made of (held: no id reuse)

    def next(self) -> Scenes:
        first = self.streams[0]
        if any(s._i != first._i for s in self.streams):
            return _stack([s.next() for s in self.streams])
        i = first._i % first._u.shape[1]  # 0 when every stream draws its next chunk now
        for s in self.streams:
            if i == 0:
                s.next()  # draws the chunk (its first step is read from the stack below)
            else:
                s._i += 1
        chunks = [s._chunk for s in self.streams]
        if self._stacked is None or any(a is not b for a, b in zip(chunks, self._of, strict=True)):
            self._stacked, self._of = _stack(chunks), chunks  # type: ignore[arg-type]
        ch = self._stacked
        return Scenes(
            ch.rows[:, i], ch.mask[:, i], ch.y[:, i], ch.target[:, i], ch.second[:, i], ch.n_slots
        )


def _stack(parts: list[Scenes]) -> Scenes:
    """Scenes of several streams, one after the other on the seed axis."""
    fields = zip(*(p[:5] for p in parts), strict=True)  # rows, mask, y, target, second
    return Scenes(*(np.concatenate(f) for f in fields), parts[0].n_slots)


@lru_cache(maxsize=4)
def fixed_test_sets(task: str) -> tuple[Scenes, Scenes]:
    """The two fixed test sets: 200 scenes with 2–5 objects, 200 with 6 (never seen in training).

    Same scenes for both tasks (only the instruction and the answer differ); cached, read-only.
    """
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    rng_a, rng_b = (np.random.default_rng(s) for s in np.random.SeedSequence(TEST_SEED).spawn(2))
    sets = (
        sample_scenes(rng_a, TEST_SIZE, task=task, objects=TRAIN_OBJECTS),
        sample_scenes(rng_b, TEST_SIZE, task=task, objects=(MAX_SLOTS, MAX_SLOTS)),
    )
    for s in sets:
        for a in (s.rows, s.mask, s.y, s.target, s.second):
            a.flags.writeable = False
    return sets


def scene_from_objects(
    positions_cm: np.ndarray, colours: np.ndarray, target: int, second: int, *, task: str
) -> Scenes:
    """One scene given by hand (the display scene of FIG 2): n objects in the order given.

    `target` and `second` are colours; both must be on the table (second only for vector).
    """
    n = len(colours)
    p = (np.asarray(positions_cm, dtype=float) - HALF_CM) / HALF_CM  # (n, 2)
    rows = np.zeros((1, MLP_INPUT_DIM))
    x = rows[0, : n * TOKEN_DIM].reshape(n, TOKEN_DIM)
    x[:, :2] = p
    x[:, 2:] = _EYE[np.asarray(colours, dtype=np.intp)]
    t = int(np.flatnonzero(np.asarray(colours) == target)[0])
    rows[0, INSTRUCTION_AT + target] = 1.0
    y = p[t]
    s = t
    if task == "vector":
        s = int(np.flatnonzero(np.asarray(colours) == second)[0])
        rows[0, INSTRUCTION_AT + N_COLOURS + second] = 1.0
        y = p[t] - p[s]
    mask = np.ones((1, n), dtype=bool)
    return Scenes(rows, mask, y[None], np.array([t]), np.array([s]), n)
