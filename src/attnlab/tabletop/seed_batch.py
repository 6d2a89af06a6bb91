"""Training both FIG 2 models for a batch of seeds at once, under `Trainer` and sweeps.

Every step draws 32 fresh scenes per seed from that seed's own generator; the cross-attention
model and the slot MLP both train on exactly those scenes (L = ½‖ŷ − y‖², mean over the batch,
Adam lr 0.01). Every 25 steps (and at step 0) both models are evaluated on both fixed test sets,
and the attention model's mean weight on the target (fetch) or on A and on B (vector) is recorded
per head, averaged over the 2–5-object test set.

All seeds share one parameter array (S, n_attn + n_mlp) and one Adam state; the kernels carry a
seed axis. A seed's numbers never depend on which other seeds are in the batch: every operation
either acts element-wise or within one seed's slice, so seed s trained alone (S = 1, as
`attnlab train --seed s` does) and seed s inside a sweep give the same curve.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from attnlab.nn.optim import Adam
from attnlab.tabletop.mlp import SlotMLP
from attnlab.tabletop.model import CrossAttention
from attnlab.tabletop.scenes import HALF_CM, Scenes, SceneStream, StackedStream, fixed_test_sets

BATCH = 32
LR = 0.01
EVAL_EVERY = 25
INIT_SCHEME = "xavier"  # of the attention weights; see tabletop/__init__.py for why
ERROR_KEYS = ("attn_err_cm", "attn_err6_cm", "mlp_err_cm", "mlp_err6_cm")


def seed_streams(seed: int) -> list[np.random.Generator]:
    """Three independent generators from one seed: attention init, MLP init, scenes."""
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3)]


def _error_cm(y_hat: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Mean Euclidean distance over the scenes, in cm, per seed: (S, B, 2) → (S,)."""
    d = y_hat - y
    return np.sqrt(np.einsum("sbi,sbi->sb", d, d)).mean(axis=-1) * HALF_CM


def evaluate(
    attn: CrossAttention, mlp: SlotMLP, params_a: Any, params_m: Any, task: str
) -> tuple[np.ndarray, np.ndarray]:
    """Both models of S seeds on both fixed test sets: errors (S, 4) in ERROR_KEYS order, and
    the attention model's mean weight per head on the target, (S, H) — vector: (S, H, 2), on A
    and on B — over the 2–5-object set."""
    errors = np.zeros((params_a[0].shape[0], 4))
    for j, sc in enumerate(fixed_test_sets(task)):
        y_a, cache = attn.forward(params_a, sc.x[None], sc.c[None], sc.mask[None])
        y_m, _ = mlp.forward(params_m, sc.rows[None])
        errors[:, j] = _error_cm(y_a, sc.y[None])
        errors[:, 2 + j] = _error_cm(y_m, sc.y[None])
        if j == 0:
            weights = _weights_on(cache.alpha, sc, task)
    return errors, weights


def _weights_on(alpha: np.ndarray, sc: Scenes, task: str) -> np.ndarray:
    """Mean weight per head on the target, (S, H); vector: on A and on B, (S, H, 2).

    The mean runs over the last, contiguous axis, so its rounding is the same whatever the
    number of seeds in the batch (a seed's numbers must not depend on its neighbours).
    """
    per_head = alpha.transpose(0, 2, 1, 3)  # (S, H, B, N)
    scene = np.arange(sc.size)
    on_t = np.ascontiguousarray(per_head[:, :, scene, sc.target]).mean(axis=-1)  # (S, H)
    if task == "fetch":
        return on_t
    on_s = np.ascontiguousarray(per_head[:, :, scene, sc.second]).mean(axis=-1)
    return np.stack([on_t, on_s], axis=-1)


class SeedBatch:
    """Both models of FIG 2 for S seeds, trained in lock-step on each seed's own scenes.

    History (one row per evaluation, at steps 0, 25, 50, …):
      eval_steps: list of steps;  errors[k]: (S, 4) in the order of ERROR_KEYS;
      head_weight[k]: (S, H) for fetch, (S, H, 2) for vector ([w_A, w_B] per head);
      losses[k]: (S, 2) mean training loss of (attention, MLP) since the previous row (NaN at 0).
    """

    def __init__(
        self, task: str, heads: int, seeds: Sequence[int], *, init: str = INIT_SCHEME
    ) -> None:
        self.task, self.heads, self.seeds = task, heads, list(seeds)
        self.attn, self.mlp = CrossAttention(heads), SlotMLP()
        n_a, n_s = self.attn.n_params, len(self.seeds)
        self.theta = np.zeros((n_s, n_a + self.mlp.n_params))
        rngs = []
        for i, seed in enumerate(self.seeds):
            rng_attn, rng_mlp, rng_data = seed_streams(seed)
            self.theta[i, :n_a] = self.attn.init(rng_attn, scheme=init)
            self.theta[i, n_a:] = self.mlp.init(rng_mlp)
            rngs.append(rng_data)
        self._build(SceneStream(rngs, BATCH, task=task))
        self.step = 0
        self.eval_steps: list[int] = []
        self.errors: list[np.ndarray] = []
        self.head_weight: list[np.ndarray] = []
        self.losses: list[np.ndarray] = []
        self._evaluate()

    def _build(self, scenes: SceneStream | StackedStream) -> None:
        """The working parts around `self.theta`: gradient buffer, named views, Adam, losses."""
        n_a = self.attn.n_params
        self.grad = np.zeros_like(self.theta)
        self._scenes = scenes
        # named views, made once: each model reads its part of theta and writes its gradient
        # into its part of one flat buffer, which one Adam update then consumes
        self.params_a = self.attn.views(self.theta[:, :n_a])
        self.params_m = self.mlp.views(self.theta[:, n_a:])
        self._grads_a = self.attn.views(self.grad[:, :n_a])
        self._grads_m = self.mlp.views(self.grad[:, n_a:])
        self._adam = Adam({"theta": self.theta}, lr=LR)  # one update for every seed
        self._loss_sum = np.zeros((len(self.seeds), 2))

    @classmethod
    def stacked(cls, members: Sequence[SeedBatch]) -> SeedBatch:
        """One batch holding the rows of one-seed batches of one task and head count.

        Each row keeps its own scene stream and Adam count, so a member trained in the stack
        takes the path it would take alone (see the seed axis above); `unstack` writes the rows
        back. The stack only trains: evaluation and history stay with the members.
        """
        cls.check_stackable(members)
        first = members[0]
        out = cls.__new__(cls)
        out.task, out.heads, out.seeds = first.task, first.heads, [m.seeds[0] for m in members]
        out.attn, out.mlp, out.step = first.attn, first.mlp, 0
        out.theta = np.zeros((len(members), out.attn.n_params + out.mlp.n_params))
        out._build(StackedStream([m._scenes for m in members]))
        out.restack(members)
        return out

    @staticmethod
    def check_stackable(members: Sequence[SeedBatch]) -> None:
        """ValueError unless `members` are one-seed batches of one task and head count."""
        first = members[0]
        if any(
            m.theta.shape[0] != 1 or (m.task, m.heads) != (first.task, first.heads) for m in members
        ):
            raise ValueError("a stack is made of one-seed batches of one task and head count")

    def restack(self, members: Sequence[SeedBatch]) -> None:
        """Fill this stack with the rows of `members` (as many as it has rows, of its task and
        head count), as `stacked` does, in the buffers it already has."""
        self.seeds = [m.seeds[0] for m in members]
        self._scenes = StackedStream([m._scenes for m in members])
        np.concatenate([m.theta for m in members], out=self.theta)
        np.concatenate([m._adam.m["theta"] for m in members], out=self._adam.m["theta"])
        np.concatenate([m._adam.v["theta"] for m in members], out=self._adam.v["theta"])
        self._adam.t = np.array([m._adam.t for m in members])
        np.concatenate([m._loss_sum for m in members], out=self._loss_sum)

    def unstack(self, members: Sequence[SeedBatch], rows: Sequence[int] | None = None) -> None:
        """Write the stack's rows (all, or those listed) back into its members."""
        for i in range(len(members)) if rows is None else rows:
            m = members[i]
            m.theta[:] = self.theta[i]  # in place: the member's views stay valid
            m._adam.m["theta"][:] = self._adam.m["theta"][i]
            m._adam.v["theta"][:] = self._adam.v["theta"][i]
            m._adam.t = int(self._adam.t[i])
            m._loss_sum[:] = self._loss_sum[i]

    def train_step(self) -> None:
        """One step of both models on the same fresh scenes."""
        sc = self._scenes.next()
        y_a, cache_a = self.attn.forward(self.params_a, sc.x, sc.c, sc.mask)
        y_m, cache_m = self.mlp.forward(self.params_m, sc.rows)
        r_a, r_m = y_a - sc.y, y_m - sc.y  # (S, B, 2)
        self._loss_sum[:, 0] += np.einsum("sbi,sbi->s", r_a, r_a)
        self._loss_sum[:, 1] += np.einsum("sbi,sbi->s", r_m, r_m)
        r_a *= 1.0 / BATCH  # ∂L/∂ŷ for L = ½‖ŷ − y‖², mean over the batch
        r_m *= 1.0 / BATCH
        self.attn.backward(r_a, cache_a, self.params_a, self._grads_a)
        self.mlp.backward(r_m, cache_m, self.params_m, self._grads_m)
        self._adam.step({"theta": self.grad})
        self.step += 1

    def advance(self, n: int) -> int:
        """Train n steps, evaluating at each multiple of 25; returns how many rows were added."""
        before = len(self.eval_steps)
        # A softmax tail or an Adam moment of a dead ReLU unit may sink below the smallest
        # double; rounding it to 0 is the right answer, not an error.
        with np.errstate(under="ignore"):
            for _ in range(n):
                self.train_step()
                if self.step % EVAL_EVERY == 0:
                    self._evaluate()
        return len(self.eval_steps) - before

    def _evaluate(self) -> None:
        errors, weights = evaluate(self.attn, self.mlp, self.params_a, self.params_m, self.task)
        n_steps = self.step - (self.eval_steps[-1] if self.eval_steps else 0)
        if n_steps:
            self.losses.append(self._loss_sum / (2 * BATCH * n_steps))
        else:
            self.losses.append(np.full_like(self._loss_sum, np.nan))
        self._loss_sum[:] = 0.0
        self.eval_steps.append(self.step)
        self.errors.append(errors)
        self.head_weight.append(weights)

    def _after_stacked_steps(self, k: int) -> None:
        """k steps were taken in a stack; evaluate if they reached a multiple of 25."""
        self.step += k
        if self.step % EVAL_EVERY == 0:
            self._evaluate()

    def error_curves(self) -> np.ndarray:
        """(S, n_rows, 4) test errors in cm, ERROR_KEYS order."""
        return np.stack(self.errors, axis=1)

    def first_below(self, cm: float) -> list[int | None]:
        """Per seed: the first evaluated step whose 2–5-object attention error is below cm."""
        curve = self.error_curves()[:, :, 0]
        out: list[int | None] = []
        for row in curve:
            hit = np.flatnonzero(row < cm)
            out.append(int(self.eval_steps[hit[0]]) if hit.size else None)
        return out


class KeptStacks:
    """The last few stacks built, kept for the next chunk of the same members (a worker's).

    Building a stack costs more than the 8 steps a paced chunk trains (its buffers are half a
    megabyte, fresh pages each time: cProfile showed `stacked` as the worker's largest cost). A
    kept stack is reused only when it still holds exactly what its members hold: the same
    batch objects, each at the step it was written back at. Only training moves a member's
    state, and every step counts, so equal steps mean equal weights, Adam moments and losses
    (a reset or a new config makes a new batch object). At most `size` are kept.
    """

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._kept: dict[tuple[int, ...], tuple[SeedBatch, list[SeedBatch], list[int]]] = {}

    def stack(self, members: Sequence[SeedBatch]) -> SeedBatch:
        """A stack of `members`: the kept one if it is still theirs; else a kept stack of their
        kind and size, refilled; else a new one."""
        kept = self._kept.pop(tuple(map(id, members)), None)
        if kept is not None:
            stack, held, steps = kept
            same = all(a is b for a, b in zip(held, members, strict=True))
            if same and steps == [m.step for m in members]:
                return stack
            self._kept[tuple(map(id, held))] = kept  # stale, but its buffers can be refilled
        kind = (members[0].task, members[0].heads, len(members))
        for key, (stack, _, _) in self._kept.items():
            if (stack.task, stack.heads, len(stack.seeds)) == kind:
                del self._kept[key]
                SeedBatch.check_stackable(members)
                stack.restack(members)
                return stack
        return SeedBatch.stacked(members)

    def keep(self, stack: SeedBatch, members: Sequence[SeedBatch]) -> None:
        """`stack` was just written back into `members`: keep it (dropping the oldest)."""
        self._kept[tuple(map(id, members))] = (stack, list(members), [m.step for m in members])
        while len(self._kept) > self.size:
            del self._kept[next(iter(self._kept))]


def train_together(
    members: Sequence[SeedBatch], n: int, kept: KeptStacks | None = None
) -> list[int]:
    """n steps for each one-seed batch, stacked into one batch; history rows added per member.

    Readers training the same task and head count at once share the stacked NumPy calls: on
    FIG 2's small models a step costs its calls more than its arithmetic. Members may stand at
    different steps: the stack stops wherever a member reaches a multiple of 25, writes that
    member back and evaluates it, so every member records at its own steps as it would alone.
    `kept`: where the stack is kept for the members' next chunk (see `KeptStacks`).
    """
    if len(members) == 1:
        return [members[0].advance(n)]
    before = [len(m.eval_steps) for m in members]
    stack = kept.stack(members) if kept is not None else SeedBatch.stacked(members)
    left = n
    with np.errstate(under="ignore"):  # as in `advance`
        while left:
            k = min(left, *(EVAL_EVERY - m.step % EVAL_EVERY for m in members))
            for _ in range(k):
                stack.train_step()
            left -= k
            for i, m in enumerate(members):
                if (m.step + k) % EVAL_EVERY == 0:
                    stack.unstack(members, [i])  # its weights and losses, to evaluate
                    stack._loss_sum[i] = 0.0  # the member's evaluation reset its own
                m._after_stacked_steps(k)
    stack.unstack(members)
    if kept is not None:
        kept.keep(stack, members)
    return [len(m.eval_steps) - b for m, b in zip(members, before, strict=True)]
