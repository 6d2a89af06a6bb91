"""Live training of FIG 2 (§3): one seed's run, consumed by `attnlab train` and the web socket.

The trainer never touches a UI: `advance(n)` trains and returns the progress records it produced,
`run(steps)` yields them one by one. A record (every 25 steps, and at step 0) is plain data:

    {"step", "attn_err_cm", "attn_err6_cm", "mlp_err_cm", "mlp_err6_cm", "head_weight",
     "attn_loss", "mlp_loss"}

errors in cm on the 2–5-object and the 6-object test sets; `head_weight` per head: the mean
weight on the target (fetch) or [w_A, w_B] (vector) over the 2–5-object test set; losses: the mean
training loss since the previous record (None at step 0).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from attnlab.params import Param, ParamError, validate
from attnlab.tabletop.colour_match import colour_match, peak_shares, scores_under
from attnlab.tabletop.model import attend
from attnlab.tabletop.scenes import HALF_CM, MAX_SLOTS, N_COLOURS, TABLE_CM, TASKS, Scenes
from attnlab.tabletop.scenes import scene_from_objects as _scene
from attnlab.tabletop.seed_batch import (
    ERROR_KEYS,
    EVAL_EVERY,
    KeptStacks,
    SeedBatch,
    train_together,
)

# Seed 9 sits at the median of a 100-seed sweep on both tasks (fetch: below 2 cm at 225 steps;
# vector, 2 heads: below 3 cm at 375), and its MLP at that step (23.5 cm) at the MLP's median;
# see the sweep numbers in tabletop/__init__.py.
DEFAULT_SEED = 9
MAX_SEED = 1_000_000
MAX_STEPS = 20_000
THRESHOLDS_CM = (3, 2, 1)

PARAMS: tuple[Param, ...] = (
    Param("task", "choice", "fetch", "fetch: p_target; vector: p_A − p_B", choices=TASKS),
    Param(
        "heads", "choice", 1, "attention heads, each with its own W_Q, W_K, W_V", choices=(1, 2, 4)
    ),
    Param(
        "seed", "int", DEFAULT_SEED, "seed of the initial weights and the scene stream", 0, MAX_SEED
    ),
)
STEPS = Param("steps", "int", 1500, "training steps", 0, MAX_STEPS)
# Steps per second a reader's page asks for. The engine trains thousands a second: unpaced, the
# curve is over before the eye can follow it, so the page watches at WATCH_PACE (step ~225 goes
# by in about a second); 0 = as fast as the machine goes. The server's capacity counts in it.
WATCH_PACE = 200
PACES = (50, WATCH_PACE, 0)


@dataclass(frozen=True)
class TrainConfig:
    """What to train: validated on construction (ParamError names the bad setting)."""

    task: str = "fetch"
    heads: int = 1
    seed: int = DEFAULT_SEED

    def __post_init__(self) -> None:
        checked = validate(PARAMS, {"task": self.task, "heads": self.heads, "seed": self.seed})
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def record_of(batch: SeedBatch, k: int, i: int = 0) -> dict[str, Any]:
    """Row k of seed i's history as a plain record."""
    errors = batch.errors[k][i]
    losses = batch.losses[k][i]
    rec: dict[str, Any] = {"step": batch.eval_steps[k]}
    rec.update({key: float(e) for key, e in zip(ERROR_KEYS, errors, strict=True)})
    rec["head_weight"] = batch.head_weight[k][i].tolist()
    rec["attn_loss"] = None if np.isnan(losses[0]) else float(losses[0])
    rec["mlp_loss"] = None if np.isnan(losses[1]) else float(losses[1])
    return rec


def summarise(history: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """First steps below 3, 2, 1 cm (attention, 2–5 objects; None if never) and the last record.

    `mlp_err_at_2cm`: the MLP's error at the moment the attention model first went below 2 cm.
    """
    out: dict[str, Any] = {"step": history[-1]["step"] if history else 0}
    for cm in THRESHOLDS_CM:
        hit = next((r for r in history if r["attn_err_cm"] < cm), None)
        out[f"first_below_{cm}cm"] = hit["step"] if hit else None
        if cm == 2:
            out["mlp_err_at_2cm"] = hit["mlp_err_cm"] if hit else None
    out["final"] = {k: v for k, v in history[-1].items() if k != "step"} if history else None
    return out


class Trainer:
    """Both FIG 2 models for one seed: `advance`, `run`, `history`, `predict`, `summary`."""

    def __init__(self, config: TrainConfig | None = None) -> None:
        self.config = config or TrainConfig()
        self._batch = SeedBatch(self.config.task, self.config.heads, [self.config.seed])
        self.history: list[dict[str, Any]] = [record_of(self._batch, 0)]
        self._display: tuple[Any, Scenes] | None = None  # (its key, the scene `predict` read)

    @property
    def step(self) -> int:
        return self._batch.step

    @property
    def seed_batch(self) -> SeedBatch:
        """The seed batch underneath (one seed): models, parameter views, raw history."""
        return self._batch

    def advance(self, n: int) -> list[dict[str, Any]]:
        """Train n more steps; the records produced at the multiples of 25 crossed."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 0 <= n <= MAX_STEPS:
            raise ParamError("steps", f"expected an integer in [0, {MAX_STEPS}], got {n!r}")
        return self._recorded(self._batch.advance(int(n)))

    def _recorded(self, added: int) -> list[dict[str, Any]]:
        """The last `added` rows of the seed batch's history as records, appended to `history`."""
        start = len(self._batch.eval_steps) - added
        new = [record_of(self._batch, k) for k in range(start, start + added)]
        self.history.extend(new)
        return new

    def run(self, steps: int) -> Iterator[dict[str, Any]]:
        """Train `steps` more steps, yielding each record as it is produced."""
        end = self.step + steps
        while self.step < end:
            to_record = EVAL_EVERY - self.step % EVAL_EVERY
            yield from self.advance(min(to_record, end - self.step))

    def summary(self) -> dict[str, Any]:
        return summarise(self.history)

    def colour_match(self, target: int | None = None, second: int | None = None) -> dict[str, Any]:
        """The model's colour-match table now (`tabletop.colour_match`), as plain lists.

        "table": (H, P, 6, 6) a centred block's score per part, instruction colour, block colour;
        "row_peaks": (H, P, 6) the block colour each row scores highest;
        "peaks": (H, P) per head, the share of instructions whose highest-scored colour is the
        target's (fetch, P = 1) or A's and B's (vector, P = 2);
        "scores": (H, 6) given an instruction (target; and second, vector): its scores per head,
        and "score_peaks": (H,) the block colour each head scores highest under it.
        """
        table = colour_match(self._batch.params_a, self.config.task)
        out: dict[str, Any] = {
            "table": table.tolist(),
            "row_peaks": table.argmax(axis=-1).tolist(),
            "peaks": peak_shares(table).tolist(),
        }
        if target is not None:
            scores = scores_under(table, target, second)
            out["scores"], out["score_peaks"] = scores.tolist(), scores.argmax(axis=-1).tolist()
        return out

    def predict(
        self, positions_cm: Any, colours: Any, target: int, second: int | None = None
    ) -> dict[str, Any]:
        """Both models on one scene given in cm: {"attn", "mlp", "truth", "weights"}.

        Fetch answers a position [x, y] in cm; vector a displacement p_A − p_B in cm. `weights`
        holds, per head, the attention weight of each object in the order given. `second` is
        ignored for fetch.
        """
        task = self.config.task
        sc = self._display_scene(positions_cm, colours, target, second)
        y_attn, alpha = attend(self._batch.params_a, sc.x[0], sc.c[0])
        y_mlp, _ = self._batch.mlp.forward(self._batch.params_m, sc.rows[None])
        offset = HALF_CM if task == "fetch" else 0.0  # positions are centred, vectors are not
        return {
            "attn": (y_attn * HALF_CM + offset).tolist(),
            "mlp": (y_mlp[0, 0] * HALF_CM + offset).tolist(),
            "truth": (sc.y[0] * HALF_CM + offset).tolist(),
            "weights": alpha.tolist(),
        }

    def _display_scene(self, positions_cm: Any, colours: Any, target: Any, second: Any) -> Scenes:
        """The scene checked and encoded, once while it stays the same: a training page asks
        for the same display scene every frame (a quarter of a progress message's cost)."""
        key = _scene_key(positions_cm, colours, target, second)
        if key is not None and self._display is not None and self._display[0] == key:
            return self._display[1]
        p, cols = _check_scene(positions_cm, colours, target, second, self.config.task)
        second_colour = -1 if second is None else second
        sc = _scene(p, cols, target, second_colour, task=self.config.task)
        self._display = None if key is None else (key, sc)
        return sc


def _scene_key(positions_cm: Any, colours: Any, target: Any, second: Any) -> Any:
    """A hashable key equal only for a scene given with the same values of the same types (1.0
    is not the colour 1, True not the target 1), or None when it cannot be made."""
    try:
        cols = tuple(colours)
        key = (
            tuple(tuple(p) for p in positions_cm),
            cols,
            tuple(map(type, cols)),
            (type(target), target),
            (type(second), second),
        )
        hash(key)
    except TypeError:
        return None
    return key


def advance_together(
    trainers: Sequence[Trainer], n: int, kept: KeptStacks | None = None
) -> list[list[dict[str, Any]]]:
    """n more steps for each trainer (one task and head count), stacked into one batch.

    Each trainer's records are exactly those `advance(n)` would give it alone
    (`seed_batch.train_together`); only the NumPy calls are shared. `kept`: stacks kept
    between chunks (`seed_batch.KeptStacks`).
    """
    if not 0 <= n <= MAX_STEPS:
        raise ParamError("steps", f"expected an integer in [0, {MAX_STEPS}], got {n!r}")
    added = train_together([t.seed_batch for t in trainers], n, kept)
    return [t._recorded(k) for t, k in zip(trainers, added, strict=True)]


def _check_scene(
    positions_cm: Any, colours: Any, target: Any, second: Any, task: str
) -> tuple[np.ndarray, np.ndarray]:
    """Validate a hand-made scene; ParamError names the offending field."""
    try:
        p = np.asarray(positions_cm, dtype=float)
        cols = np.asarray(colours)
    except (TypeError, ValueError):
        raise ParamError("positions", "expected a list of [x, y] pairs in cm") from None
    n = len(cols) if cols.ndim == 1 else -1
    if not 1 <= n <= MAX_SLOTS or p.shape != (n, 2):
        raise ParamError("positions", f"expected 1 to {MAX_SLOTS} [x, y] pairs, one per colour")
    if not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > TABLE_CM:
        raise ParamError("positions", f"every coordinate must lie in [0, {TABLE_CM:g}] cm")
    if cols.dtype.kind not in "iu" or cols.min() < 0 or cols.max() >= N_COLOURS:
        raise ParamError("colours", f"expected integers in [0, {N_COLOURS - 1}]")
    if len(set(cols.tolist())) != n:
        raise ParamError("colours", "the colours on the table must be distinct")
    if not _is_int(target) or target not in cols.tolist():
        raise ParamError("target", "the target colour must be one of the objects on the table")
    if task == "vector" and (
        not _is_int(second) or second not in cols.tolist() or second == target
    ):
        raise ParamError("second", "colour B must be on the table and differ from the target")
    return p, cols


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)
