"""FIG 2 (§3, "hands-on training"): a cross-attention model learns to fetch from a table.

    from attnlab.tabletop import Trainer, TrainConfig
    tr = Trainer(TrainConfig(task="fetch", heads=1, seed=35))
    for record in tr.run(1500): ...            # every 25 steps: errors, head weights, losses
    tr.summary()                                # first steps below 3 / 2 / 1 cm, final errors

Modules, one idea each: `scenes` (the table, the sampler, the fixed test sets), `model` (the
cross-attention model, fused forward/backward), `mlp` (the slot-MLP baseline), `engine` (both
models for a batch of seeds, one `attnlab.nn.Adam` over all their parameters), `trainer` (one
seed, as the CLI and the page use it), `sweep` (many seeds over both cores) and `gradcheck` (F2.8).

Choices measured here (100-seed sweeps, seeds 0–99, 1500 steps; `attnlab train --sweep 100`):
- Attention weights start Xavier-normal (variance 2/(fan_in + fan_out)), biases 0. Against
  N(0, 1/fan_in) it failed as often on the 2-head vector task (4/100 seeds each, the same seeds
  mostly: both heads settle on one object) and lands closer to the lesson's step counts: fetch
  below 2 cm at a median of 225 steps (10th–90th percentile 200–275; fan-in: 200, 175–225),
  vector with 2 heads below 3 cm at 375 (275–575; fan-in: 325, 250–588; lesson: 425, 350–550).
- Default seed 35: it sits at those medians on both tasks (225 and 375 steps), not at a lucky
  edge; the one-head vector run stays near 28 cm like every other seed.
"""

from __future__ import annotations

from attnlab.tabletop.gradcheck import gradient_check
from attnlab.tabletop.scenes import COLOURS
from attnlab.tabletop.sweep import SweepResult, sweep
from attnlab.tabletop.trainer import DEFAULT_SEED, MAX_STEPS, PARAMS, TrainConfig, Trainer

__all__ = [
    "COLOURS",
    "DEFAULT_SEED",
    "MAX_STEPS",
    "PARAMS",
    "SweepResult",
    "TrainConfig",
    "Trainer",
    "gradient_check",
    "sweep",
]
