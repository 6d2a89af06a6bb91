"""One reader's FIG 2 run inside a worker process: a trainer, its config and its display scene.

The worker (`worker.py`) decides when and how much to train; a session only trains `n` steps,
tells how long a step takes, and writes the socket's messages (state, progress) as plain data.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from attnlab.tabletop import TrainConfig, Trainer
from attnlab.tabletop.seed_batch import KeptStacks
from attnlab.tabletop.trainer import advance_together
from attnlab.trainpool.scene import DEFAULT_SCENE, Scene

TrainerFactory = Callable[[TrainConfig], Any]


def real_trainer(config: TrainConfig) -> Trainer:
    return Trainer(config)


class TrainingSession:
    """Trainer + config + scene; `train(n)` returns the history records those steps made."""

    def __init__(
        self,
        config: TrainConfig,
        *,
        max_steps: int,
        max_step_n: int,
        factory: TrainerFactory = real_trainer,
    ) -> None:
        self._factory = factory
        self.max_steps = max_steps
        self.max_step_n = max_step_n  # the largest {"type": "step", "n"}: the page reads it here
        self.scene: Scene = DEFAULT_SCENE
        self.config = config
        self.trainer = factory(config)
        # CPU seconds a step takes (a first guess; each `train` refines it): CPU, not wall
        # time, so a machine busy with other programs does not shrink the chunks
        self.seconds_per_step = 1e-3

    @property
    def step(self) -> int:
        return int(self.trainer.step)

    def configure(self, config: TrainConfig) -> None:
        """A new trainer (step 0) for `config`; the scene is kept if it fits the new task."""
        self.trainer, self.config = self._factory(config), config
        if not self.scene.fits(config.task):
            self.scene = DEFAULT_SCENE

    def reset(self) -> None:
        self.configure(self.config)

    def train(self, n: int) -> list[dict[str, Any]]:
        """n more steps (never past max_steps); the records they produced."""
        n = max(0, min(n, self.max_steps - self.step))
        if n == 0:
            return []
        t0 = time.thread_time()
        records = self.trainer.advance(n)
        self._timed(time.thread_time() - t0, n)
        return records

    def _timed(self, seconds: float, n: int) -> None:
        self.seconds_per_step = 0.5 * self.seconds_per_step + 0.5 * seconds / n

    @property
    def stack_key(self) -> tuple[str, int] | None:
        """Sessions with one key can train stacked: real trainers of one task and head count."""
        return (self.config.task, self.config.heads) if isinstance(self.trainer, Trainer) else None

    def progress(self, records: list[dict[str, Any]]) -> dict[str, Any]:
        """A progress message: these records, the model's answer on the display scene and its
        colour-match table.

        Every part is plain already (the records, `predict` and `colour_match` are made of
        `tolist()` and float()), so `plain()` is not run over it: it was a quarter of a message's
        cost and changed nothing (tests/trainpool/test_session.py). A NaN is still refused, by
        the worker's `json.dumps(allow_nan=False)`.
        """
        s = self.scene
        prediction = self.trainer.predict(
            [list(p) for p in s.positions], list(s.colours), s.target, s.second
        )
        return {
            "type": "progress",
            "step": self.step,
            "records": records,
            "prediction": prediction,
            "colour_match": self.trainer.colour_match(s.target, s.second),
            "scene": s.to_dict(),
        }

    def full_progress(self) -> dict[str, Any]:
        """The whole history so far (on open, config and reset: it replaces what is drawn)."""
        return self.progress(list(self.trainer.history))

    def state(self, *, running: bool) -> dict[str, Any]:
        return {
            "type": "state",
            "config": self.config.to_dict(),
            "step": self.step,
            "running": running,
            "max_steps": self.max_steps,
            "max_step_n": self.max_step_n,
        }


def train_stacked(
    sessions: list[TrainingSession], n: int, kept: KeptStacks | None = None
) -> list[list[dict[str, Any]]]:
    """n steps for each session (same `stack_key`, each at least n from its limit), stacked
    (in a stack `kept` from their last chunk together, when it still fits).

    Each session's `seconds_per_step` learns its share of the stacked chunk's time.
    """
    if len(sessions) == 1:
        return [sessions[0].train(n)]
    if n <= 0:
        return [[] for _ in sessions]
    t0 = time.thread_time()
    records = advance_together([s.trainer for s in sessions], n, kept)
    for s in sessions:
        s._timed((time.thread_time() - t0) / len(sessions), n)
    return records
