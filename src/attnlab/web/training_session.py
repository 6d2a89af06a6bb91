"""One reader's live training run (FIG 2): a trainer, a display scene, and frames of steps.

The socket (`training_socket.py`) decides *when* to train; this class does the training, in a
worker thread, one frame at a time: as many steps as fit in the frame, then one progress message
with the history records those steps produced and the model's prediction for the display scene.
Steps run in chunks, and a cancel flag is checked between chunks, so a closed socket or a pause
stops the work within a fraction of a frame.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from attnlab.plain import plain
from attnlab.web.training_messages import DEFAULT_SCENE, Scene, scene_fits

TrainerFactory = Callable[[str, int, int], Any]

# A chunk of steps lasts at most this share of a frame and this long: the cancel flag is
# checked at least 4 times a frame, and at least every 20 ms whatever the frame.
_CHUNK_SHARE = 0.25
_CHUNK_MAX_S = 0.02


def real_trainer(task: str, heads: int, seed: int) -> Any:
    """The FIG 2 trainer of `attnlab.tabletop` (imported late: the server starts without it)."""
    from attnlab.tabletop import TrainConfig, Trainer

    return Trainer(TrainConfig(task=task, heads=heads, seed=seed))


class TrainingSession:
    """Trainer + scene behind one socket. Every trainer call holds `_lock` (one at a time)."""

    def __init__(self, *, factory: TrainerFactory, config: dict[str, Any], max_steps: int) -> None:
        self._factory = factory
        self._lock = threading.Lock()
        self.max_steps = max_steps
        self.scene: Scene = DEFAULT_SCENE
        self.config = dict(config)
        self.trainer = factory(config["task"], config["heads"], config["seed"])
        self._seconds_per_step = 1e-3  # a first guess; each chunk refines it

    @property
    def step(self) -> int:
        return int(self.trainer.step)

    def configure(self, config: dict[str, Any]) -> None:
        """A new trainer (step 0) for `config`; the scene is kept if it fits the new task."""
        trainer = self._factory(config["task"], config["heads"], config["seed"])
        with self._lock:
            self.trainer, self.config = trainer, dict(config)
            if not scene_fits(self.scene, config["task"]):
                self.scene = DEFAULT_SCENE

    def reset(self) -> None:
        self.configure(self.config)

    def set_scene(self, scene: Scene) -> None:
        with self._lock:
            self.scene = scene

    def frame(self, goal: int, seconds: float, cancel: threading.Event) -> dict[str, Any]:
        """Train towards step `goal` for about `seconds`; the progress message of this frame."""
        deadline = time.perf_counter() + seconds
        records: list[dict[str, Any]] = []
        with self._lock:
            goal, first = min(goal, self.max_steps), self.trainer.step
            while not cancel.is_set() and self.trainer.step < goal:
                left = deadline - time.perf_counter()
                if self.trainer.step > first and left < 0.5 * self._seconds_per_step:
                    break  # one more step would overrun the frame
                budget = min(left, _CHUNK_SHARE * seconds, _CHUNK_MAX_S)
                n = max(1, min(goal - self.trainer.step, int(budget / self._seconds_per_step)))
                t0 = time.perf_counter()
                records.extend(self.trainer.advance(n))
                per_step = (time.perf_counter() - t0) / n
                self._seconds_per_step = 0.5 * self._seconds_per_step + 0.5 * per_step
            return self._progress(records)

    def progress(self, *, full_history: bool = False) -> dict[str, Any]:
        """A progress message without training: after a new scene, config or reset."""
        with self._lock:
            return self._progress(list(self.trainer.history) if full_history else [])

    def _progress(self, records: list[dict[str, Any]]) -> dict[str, Any]:
        s = self.scene
        prediction = self.trainer.predict(
            [list(p) for p in s.positions], list(s.colours), s.target, s.second
        )
        return {
            "type": "progress",
            "step": self.step,
            "records": plain(records),
            "prediction": plain(prediction),
            "scene": s.to_dict(),
        }

    def state(self, *, running: bool) -> dict[str, Any]:
        return {
            "type": "state",
            "config": dict(self.config),
            "step": self.step,
            "running": running,
            "max_steps": self.max_steps,
        }
