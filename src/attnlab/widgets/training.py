"""FIG 2 as a widget: both models train in the kernel, in a thread, while the notebook stays free.

    w = training(task="fetch", heads=1, seed=9)
    w.train(1500)          # returns at once; the view draws the curves as they come
    w.wait(); w.history    # the records of `attnlab train --json` (step, errors in cm, …)
    w.pause()              # stops a run; the model is kept
    w.parameters()         # the trained weights by name, for inspection

The view is the page's FIG 2 and speaks the page's training-socket messages (config, scene,
start, pause, step, reset → state, progress, done, error) over the widget's comm; they are read
by the socket's own models (`attnlab.web.training_messages`) and served by the worker's
`TrainingSession`, with the server's limits (`WebSettings`): the same steps, pace and checks.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import numpy as np

from attnlab.figures.training import figure_data
from attnlab.params import validate
from attnlab.plain import plain
from attnlab.tabletop import TrainConfig
from attnlab.tabletop.trainer import STEPS
from attnlab.trainpool.session import TrainingSession
from attnlab.web.config import WebSettings
from attnlab.web.inputs import InputError
from attnlab.web.training_messages import START_PARAMS, parse_message, scene_of
from attnlab.widgets.assets import TRAINING_CHANNEL, bundle
from attnlab.widgets.base import FigureWidget

LIMITS = WebSettings()  # max_steps, max_step_n, frame_s: the server's, so a run is the same
UNPACED_CHUNK = 100  # steps between looks at the stop flag when unpaced (~30 ms)


class _Run(threading.Thread):
    """One run towards `goal` steps at `pace` steps/s (0: as fast as it goes), stoppable."""

    def __init__(self, widget: TrainingWidget, goal: int, pace: int) -> None:
        super().__init__(name="attnlab-training", daemon=True)
        self.widget, self.goal, self.pace = widget, goal, pace
        self.stop = threading.Event()

    def run(self) -> None:
        w, s = self.widget, self.widget.session
        records: list[dict[str, Any]] = []
        due = sent = time.monotonic()
        while not self.stop.is_set():
            with w.lock:
                left = self.goal - s.step
                if left <= 0:
                    break
                per_frame = (
                    max(1, round(self.pace * LIMITS.frame_s)) if self.pace else UNPACED_CHUNK
                )
                with np.errstate(all="ignore"):
                    records += s.train(min(left, per_frame))
            if self.pace:
                due += LIMITS.frame_s
                self.stop.wait(max(0.0, due - time.monotonic()))
            if self.pace or time.monotonic() - sent >= LIMITS.frame_s:
                w.tell(s.progress(records))
                records, sent = [], time.monotonic()
        with w.lock:
            if records:
                w.tell(s.progress(records))
            if s.step >= s.max_steps:
                w.tell({"type": "done", "reason": "step_limit"})
            w.tell(s.state(running=False))


class TrainingWidget(FigureWidget):
    FIGURE = "training"
    _esm = bundle("training")

    def __init__(self, *, lang: str = "en", **settings: Any) -> None:
        self.lock = threading.RLock()  # the trainer is used by the run's thread and the comm's
        self._run: _Run | None = None
        self.session = TrainingSession(
            TrainConfig(), max_steps=LIMITS.max_steps, max_step_n=LIMITS.max_step_n
        )
        super().__init__(lang=lang, **settings)

    # ---- the learner's side ------------------------------------------------------------------

    def train(self, steps: int = 1500, *, pace: int = 0) -> TrainingWidget:
        """Train `steps` more steps in a kernel thread (pace: steps/s, 0 = unpaced); returns now."""
        checked = validate((STEPS, *START_PARAMS), {"steps": steps, "pace": pace}, "json")
        self._start(checked["steps"], checked["pace"])
        return self

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the run ends (or `timeout` s pass); whether it has ended."""
        run = self._run
        if run is not None:
            run.join(timeout)
        return run is None or not run.is_alive()

    def pause(self) -> None:
        """Stop the run after the step it is in; the model and its history are kept."""
        run = self._run
        if run is not None:
            run.stop.set()
            run.join()

    @property
    def history(self) -> list[dict[str, Any]]:
        """Every record so far (step 0, then every 25 steps), as `attnlab train --json` has them."""
        with self.lock:
            return [dict(r) for r in self.session.trainer.history]

    @property
    def trainer(self) -> Any:
        """The `attnlab.tabletop.Trainer` itself (`predict`, `summary`, `seed_batch`)."""
        return self.session.trainer

    def parameters(self) -> dict[str, dict[str, np.ndarray]]:
        """Copies of both models' weights by name: {"attention": {"W_Q": …}, "mlp": {…}}."""
        with self.lock:
            batch = self.session.trainer.seed_batch
            return {
                "attention": {k: np.array(v[0]) for k, v in batch.params_a._asdict().items()},
                "mlp": {k: np.array(v[0]) for k, v in batch.params_m._asdict().items()},
            }

    def close(self) -> None:
        self.pause()
        super().close()

    # ---- settings and the static fallback ------------------------------------------------------

    def compute(self, settings: Any) -> dict[str, Any]:
        config = TrainConfig(task=settings["task"], heads=settings["heads"], seed=settings["seed"])
        if config != self.session.config:  # a new run from step 0
            self.pause()
            with self.lock:
                self.session.configure(config)
            self._greet()
        return super().compute(settings)

    def drawn(self) -> dict[str, Any]:
        """FIG 2's data for the model as trained so far (its curve, its answers)."""
        with self.lock:
            data = figure_data(self.session.trainer, self.settings["n_objects"])
        return plain({**self.data, **data})

    # ---- the view's messages (the page's training socket, over the comm) ------------------------

    def tell(self, message: dict[str, Any]) -> None:
        self.send({"channel": TRAINING_CHANNEL, "message": plain(message)})

    def _greet(self) -> None:
        with self.lock:
            running = self._run is not None and self._run.is_alive()
            self.tell(self.session.state(running=running))
            self.tell(self.session.full_progress())

    def on_view_message(self, channel: Any, message: dict[str, Any]) -> None:
        if channel != TRAINING_CHANNEL:
            return super().on_view_message(channel, message)
        try:
            msg = parse_message(json.dumps(message), max_step_n=LIMITS.max_step_n)
            self._handle(msg)
        except InputError as err:
            self.tell({"type": "error", "code": "invalid", "message": err.msg})
        return None

    def _handle(self, msg: Any) -> None:
        if msg.type == "config":
            config = {"task": msg.task, "heads": msg.heads, "seed": msg.seed}
            if TrainConfig(**config) == self.session.config:
                self._greet()  # a (new) view of this run: what it is so far
            else:
                self.settings = config
        elif msg.type == "scene":
            with self.lock:
                self.session.scene = scene_of(msg, self.session.config.task)
                if self._run is None or not self._run.is_alive():
                    self.tell(self.session.progress([]))
        elif msg.type == "start":
            self._start(None, msg.pace)
        elif msg.type == "step":
            self._start(msg.n, 0)
        elif msg.type == "pause":
            self.pause()
        elif msg.type == "reset":
            self.pause()
            with self.lock:
                self.session.reset()
            self._greet()

    def _start(self, steps: int | None, pace: int) -> None:
        with self.lock:
            s = self.session
            goal = s.max_steps if steps is None else min(s.step + steps, s.max_steps)
            if s.step >= s.max_steps:
                self.tell({"type": "done", "reason": "step_limit"})
                self.tell(s.state(running=False))
                return
            run = self._run
            if run is not None and run.is_alive() and not run.stop.is_set():
                run.goal, run.pace = goal, pace  # the same run, a new goal or pace
            else:
                self._run = _Run(self, goal, pace)
                self._run.start()
            self.tell(s.state(running=True))


def training(
    task: str = "fetch",
    heads: int = 1,
    seed: int | None = None,
    *,
    lang: str = "en",
    **settings: Any,
) -> TrainingWidget:
    """FIG 2 (§3): the cross-attention model and the slot MLP, trained here by `train(n)`."""
    if seed is not None:
        settings["seed"] = seed
    return TrainingWidget(lang=lang, task=task, heads=heads, **settings)


__all__ = ["TrainingWidget", "training"]
