"""The training runs FIG 2's claims share (fig2.py, fig2_inside.py): cached, each trained once.

`trained` is a configuration's run at the default seed, `swept` its sweep over seeds 0–99 (the
page invites changing the seed, so a claim must hold for the seeds a reader picks, not for one).
"""

from __future__ import annotations

from functools import lru_cache

from attnlab.tabletop import DEFAULT_SEED, SweepResult, TrainConfig, Trainer, sweep

STEPS = 1500
SWEEP_SEEDS = tuple(range(100))


@lru_cache(maxsize=8)
def trained(task: str, heads: int, seed: int = DEFAULT_SEED, steps: int | None = None) -> Trainer:
    """The run of a configuration after `steps` steps, STEPS by default (cached: the checks
    share it)."""
    tr = Trainer(TrainConfig(task=task, heads=heads, seed=seed))
    tr.advance(STEPS if steps is None else steps)
    return tr


@lru_cache(maxsize=6)
def swept(
    task: str, heads: int, seeds: tuple[int, ...] | None = None, steps: int | None = None
) -> SweepResult:
    """Every seed of `seeds` (SWEEP_SEEDS by default) trained for `steps` (STEPS by default)
    steps, on both cores. The defaults are read when called, so a test can shrink them."""
    seeds = SWEEP_SEEDS if seeds is None else seeds
    return sweep(task, heads, seeds, STEPS if steps is None else steps)
