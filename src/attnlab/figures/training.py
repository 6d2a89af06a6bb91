"""§3, FIG 2 (static parts): the display scene, model sizes, test sets and the F2.8 readout.

The live curve comes from `attnlab.tabletop.Trainer` over the training socket; this module gives
what the figure shows before (and besides) training: a display scene for the chosen number of
objects, the parameter counts of both models by named part, the sizes of the two test sets, the
gradient check of the 2-head vector model (computed when the page loads, cached per seed), the
colour names, and both untrained models' answers on the display scene.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from attnlab.params import Param
from attnlab.tabletop import COLOURS, TrainConfig, Trainer, gradient_check
from attnlab.tabletop import PARAMS as TRAIN_PARAMS
from attnlab.tabletop.engine import BATCH, EVAL_EVERY, LR
from attnlab.tabletop.mlp import SlotMLP
from attnlab.tabletop.model import D_K, D_V, CrossAttention
from attnlab.tabletop.scenes import (
    HALF_CM,
    MAX_SLOTS,
    TEST_SIZE,
    TRAIN_OBJECTS,
    sample_scenes,
)

NAME = "training"
PARAMS: tuple[Param, ...] = (
    *TRAIN_PARAMS,
    Param("n_objects", "int", 4, "objects in the display scene (6 never occurs in training)", 2, 6),
)


def display_scene(seed: int, n_objects: int, task: str) -> dict[str, Any]:
    """A reproducible scene with n_objects blocks: positions in cm, colours, target, second."""
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


def compute(*, task: str, heads: int, seed: int, n_objects: int) -> dict[str, Any]:
    """The static parts, with the models as initialised (the page trains them live)."""
    return figure_data(Trainer(TrainConfig(task=task, heads=heads, seed=seed)), n_objects)


def after_training(
    steps: int, *, task: str, heads: int, seed: int, n_objects: int
) -> dict[str, Any]:
    """The same data after `steps` steps of training: for a slide of a trained model."""
    trainer = Trainer(TrainConfig(task=task, heads=heads, seed=seed))
    trainer.advance(steps)
    return figure_data(trainer, n_objects)


def figure_data(trainer: Trainer, n_objects: int) -> dict[str, Any]:
    """FIG 2's data for `trainer` in its current state: scene, predictions, sizes, history."""
    task, heads, seed = trainer.config.task, trainer.config.heads, trainer.config.seed
    scene = display_scene(seed, n_objects, task)
    return {
        "scene": scene,
        "prediction": trainer.predict(
            scene["positions"], scene["colours"], scene["target"], scene["second"]
        ),
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
