"""§3, FIG 2 (static parts): the display scene, model sizes, test sets and the F2.8 readout.

The live curve comes from `attnlab.tabletop.Trainer` over the training socket; this module gives
what the figure shows before (and besides) training: a display scene for the chosen number of
objects, the parameter counts of both models by named part, the sizes of the two test sets, the
gradient check of the 2-head vector model (computed when the page loads, cached per seed), the
colour names, and both untrained models' answers on the display scene.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from attnlab.params import Param
from attnlab.tabletop import COLOURS, TrainConfig, Trainer, gradient_check
from attnlab.tabletop import PARAMS as TRAIN_PARAMS
from attnlab.tabletop.mlp import SlotMLP
from attnlab.tabletop.model import D_K, D_V, CrossAttention
from attnlab.tabletop.scenes import (
    HALF_CM,
    MAX_SLOTS,
    N_COLOURS,
    TABLE_CM,
    TEST_SIZE,
    TRAIN_OBJECTS,
    sample_scenes,
)
from attnlab.tabletop.seed_batch import (
    BATCH,
    ERROR_KEYS,
    EVAL_EVERY,
    INIT_SCHEME,
    LR,
    evaluate,
    seed_streams,
)
from attnlab.tabletop.trainer import PACES, THRESHOLDS_CM, WATCH_PACE

NAME = "training"
PARAMS: tuple[Param, ...] = (
    *TRAIN_PARAMS,
    Param("n_objects", "int", 4, "objects in the display scene (6 never occurs in training)", 2, 6),
)

# The page's display scene, kept in its URL and sent over the training socket, never here. Its
# six slots have these colours (indices into COLOURS), in order: the default four blocks are
# green, blue, red, yellow; orange only appears with six blocks.
SLOT_COLOURS = (3, 4, 0, 2, 5, 1)
DEFAULT_POSITIONS = (20.0, 58.0, 58.0, 66.0, 62.0, 24.0, 26.0, 22.0, 42.0, 44.0, 70.0, 48.0)
VIEW_PARAMS: tuple[Param, ...] = (
    Param("pace", "choice", WATCH_PACE, "steps per second the page asks; 0 = as fast as it goes",
          choices=PACES),
    Param("target", "int", 3, "the colour to fetch (A)", lo=0, hi=N_COLOURS - 1),
    Param("second", "int", 4, "the second colour (B, vector task)", lo=0, hi=N_COLOURS - 1),
    Param("pos", "vector", DEFAULT_POSITIONS, "the display blocks as x1,y1,…,x6,y6 in cm",
          lo=0.0, hi=TABLE_CM, length=2 * MAX_SLOTS),
)  # fmt: skip
# What the view needs before the first answer: the table, the colours of the slots, the Step
# button's size (one evaluation interval of the trainer) and the errors whose first crossing the
# readouts name.
CONSTANTS = {"table_cm": TABLE_CM, "colours": COLOURS, "slot_colours": SLOT_COLOURS,
             "eval_every": EVAL_EVERY, "thresholds_cm": THRESHOLDS_CM}  # fmt: skip


def display_scene(seed: int, n_objects: int, task: str) -> dict[str, Any]:
    """A reproducible scene with n_objects blocks: positions in cm, colours, target, second."""
    return dict(_display_scene(seed, n_objects, task))


@lru_cache(maxsize=64)
def _display_scene(seed: int, n_objects: int, task: str) -> dict[str, Any]:
    """`display_scene`, drawn once per seed, size and task (callers get a copy of the dict)."""
    rng = np.random.default_rng([seed, n_objects])
    sc = sample_scenes(rng, 1, task=task, objects=(n_objects, n_objects))
    x = sc.x[0]  # (n, 8)
    colours = x[:, 2:].argmax(axis=1)
    target, second = int(sc.target[0]), int(sc.second[0])
    truth = sc.y[0] * HALF_CM + (HALF_CM if task == "fetch" else 0.0)
    return {
        "positions": (x[:, :2] * HALF_CM + HALF_CM).tolist(),
        "colours": colours.tolist(),
        "target": int(colours[target]),
        "second": int(colours[second]),
        "truth": truth.tolist(),
    }


def _sizes(parts: dict[str, int]) -> dict[str, Any]:
    return {"parts": parts, "total": sum(parts.values())}


class Untrained:
    """Both models of one seed as initialised, computed directly (no trainer: no scene stream,
    no Adam state, no training buffers) — what `figure_data` reads of a trainer at step 0.

    The weights are drawn from the seed's streams as the trainer draws them, and the step-0
    record is the trainer's evaluation (tests/figures/test_training.py checks both are equal).
    """

    def __init__(self, config: TrainConfig) -> None:
        self.config = config
        self.attn, self.mlp = CrossAttention(config.heads), SlotMLP()
        rng_attn, rng_mlp, _ = seed_streams(config.seed)  # the scene stream is never drawn
        theta = np.concatenate(
            [self.attn.init(rng_attn, scheme=INIT_SCHEME), self.mlp.init(rng_mlp)]
        )
        self.params_a = self.attn.views(theta[None, : self.attn.n_params])  # a batch of 1 seed
        self.params_m = self.mlp.views(theta[None, self.attn.n_params :])
        self.history = [self._record()]
        self._display = None  # Trainer.predict's kept display scene

    def _record(self) -> dict[str, Any]:
        """The step-0 record: the trainer's own evaluation, on the weights as initialised."""
        errors, weights = evaluate(self.attn, self.mlp, self.params_a, self.params_m,
                                   self.config.task)  # fmt: skip
        record = {"step": 0, **{k: float(e) for k, e in zip(ERROR_KEYS, errors[0], strict=True)}}
        return {**record, "head_weight": weights[0].tolist(), "attn_loss": None, "mlp_loss": None}

    # Trainer.predict and colour_match read only `config` and the weights in `_batch`: the same code
    # answers.
    predict = Trainer.predict
    _display_scene = Trainer._display_scene
    colour_match = Trainer.colour_match

    @property
    def _batch(self) -> Untrained:
        return self


@lru_cache(maxsize=32)
def _untrained(task: str, heads: int, seed: int) -> Untrained:
    """Both models of a seed as initialised, made once per seed (read, never changed)."""
    return Untrained(TrainConfig(task=task, heads=heads, seed=seed))


def compute(*, task: str, heads: int, seed: int, n_objects: int) -> dict[str, Any]:
    """The static parts, with the models as initialised (the page trains them live)."""
    return figure_data(_untrained(task, heads, seed), n_objects)


def after_training(
    steps: int, *, task: str, heads: int, seed: int, n_objects: int
) -> dict[str, Any]:
    """The same data after `steps` steps of training: for a slide of a trained model."""
    trainer = Trainer(TrainConfig(task=task, heads=heads, seed=seed))
    trainer.advance(steps)
    return figure_data(trainer, n_objects)


def figure_data(trainer: Trainer | Untrained, n_objects: int) -> dict[str, Any]:
    """FIG 2's data for `trainer` in its current state: scene, predictions, sizes, history."""
    task, heads, seed = trainer.config.task, trainer.config.heads, trainer.config.seed
    scene = display_scene(seed, n_objects, task)
    return {
        "scene": scene,
        "prediction": trainer.predict(
            scene["positions"], scene["colours"], scene["target"], scene["second"]
        ),
        "colour_match": trainer.colour_match(scene["target"], scene["second"]),
        "params": {
            "attention": _sizes(CrossAttention(heads).sizes()),
            "attention_one_head": _sizes(CrossAttention(1).sizes()),
            "mlp": _sizes(SlotMLP().sizes()),
        },
        "test_sets": {
            "objects_2_5": TEST_SIZE,
            "objects_6": TEST_SIZE,
            "train_objects": list(TRAIN_OBJECTS),
            "max_objects": MAX_SLOTS,
        },
        "gradcheck": gradient_check(seed),
        "colours": COLOURS,
        "training": {"batch": BATCH, "lr": LR, "eval_every": EVAL_EVERY, "d_k": D_K, "d_v": D_V},
        "history": trainer.history,
    }
