"""Where a stacked training step's time goes, part by part, against the arithmetic it must do.

Issue 19 asks for ≤ 150 µs of worker CPU per learner-step (both models, evaluation and progress
message included) and reasoned from "~50 kFLOP a step". This script checks that premise on the
machine it runs on:

1. The FLOPs of a learner-step, counted from the engine's own sizes: the slot MLP's matrix
   products (a dense layer's multiply-adds per scene are its weight count: forward, ∂W, and ∂x
   for every layer but the first) times the batch. The attention model's products are a few
   per cent of these and are left out, so this is a lower bound.
2. How fast this machine does exactly those products: the MLP's eight matrix products, stacked
   as a worker stacks them (STACK_MAX learners), timed alone → GFLOP/s and µs per learner-step.
3. One stack of STACK_MAX learners trained step after step, each part timed where it runs (the
   stack's own scene stream, models and Adam, wrapped): µs per learner-step by part.

Times are the thread's CPU clock; each figure is measured in this run, so the ratios hold on any
machine. `.venv/bin/python benchmarks/step_floor.py [--steps 400]`
"""

from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict
from typing import Any

import numpy as np

from attnlab.nn.optim import Adam
from attnlab.tabletop import TrainConfig
from attnlab.tabletop.mlp import SlotMLP
from attnlab.tabletop.model import CrossAttention
from attnlab.tabletop.seed_batch import BATCH, SeedBatch
from attnlab.trainpool.worker import STACK_MAX

TARGET_US = 150.0  # issue 19, all included
ISSUE_FLOP = 50e3  # the issue's estimate of a step of both models


def mlp_flop_per_step() -> float:
    """2 × multiply-adds of the MLP's forward and backward for one learner-step of BATCH scenes."""
    sizes = SlotMLP().sizes()
    weights = [n for name, n in sizes.items() if name.startswith("W")]  # W1, W2, W3
    forward = sum(weights)  # per scene: a layer's multiply-adds are its weight count
    backward = sum(weights) + sum(weights[1:])  # ∂W for all, ∂x for all but the input layer
    return 2.0 * BATCH * (forward + backward)


def mlp_products_us(stack: int, repeat: int, dtype: type = np.float64) -> float:
    """µs per learner-step of the MLP's eight matrix products alone, `stack` learners stacked."""
    mlp, rng = SlotMLP(), np.random.default_rng(0)

    def normal(*shape: int) -> np.ndarray:
        return rng.normal(size=shape).astype(dtype)

    p = mlp.views(normal(stack, mlp.n_params))
    x = normal(stack, BATCH, p.W1.shape[1])
    h1, h2 = (normal(stack, BATCH, w.shape[2]) for w in (p.W1, p.W2))
    g, d2 = normal(stack, BATCH, p.W3.shape[2]), normal(*h2.shape)

    def products() -> None:
        np.matmul(x, p.W1), np.matmul(h1, p.W2), np.matmul(h2, p.W3)  # forward
        np.matmul(h2.swapaxes(-1, -2), g), np.matmul(g, p.W3.swapaxes(-1, -2))  # layer 3
        np.matmul(h1.swapaxes(-1, -2), d2), np.matmul(d2, p.W2.swapaxes(-1, -2))  # layer 2
        np.matmul(x.swapaxes(-1, -2), d2)  # layer 1: ∂W only

    products()
    start = time.thread_time()
    for _ in range(repeat):
        products()
    return 1e6 * (time.thread_time() - start) / (repeat * stack)


def adam_us(stack: int, repeat: int, dtype: type = np.float64) -> float:
    """µs per learner-step of the engine's Adam on both models' parameters, `stack` stacked."""
    n = CrossAttention(TrainConfig().heads).n_params + SlotMLP().n_params
    rng = np.random.default_rng(0)
    theta, grad = (rng.normal(size=(stack, n)).astype(dtype) for _ in range(2))
    adam = Adam({"theta": theta})
    adam.t = np.arange(1, stack + 1)  # rows at different steps, as in a worker's stack
    adam.step({"theta": grad})
    start = time.thread_time()
    for _ in range(repeat):
        adam.step({"theta": grad})
    return 1e6 * (time.thread_time() - start) / (repeat * stack)


class Timed:
    """`inner` with the named methods timed into `spent[label]` (thread CPU seconds)."""

    def __init__(self, inner: Any, label: str, spent: dict[str, float], *methods: str) -> None:
        self._inner, self._label, self._spent, self._methods = inner, label, spent, methods

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name not in self._methods:
            return attr

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.thread_time()
            try:
                return attr(*args, **kwargs)
            finally:
                self._spent[f"{self._label} {name}"] += time.thread_time() - start

        return timed


def parts_us(stack: int, steps: int) -> dict[str, float]:
    """µs per learner-step by part, for `stack` learners of the page's default FIG 2 stacked."""
    c = TrainConfig()
    members = [SeedBatch(c.task, c.heads, [c.seed + i]) for i in range(stack)]
    batch = SeedBatch.stacked(members)
    spent: dict[str, float] = defaultdict(float)
    batch.attn = Timed(batch.attn, "attention", spent, "forward", "backward")
    batch.mlp = Timed(batch.mlp, "MLP", spent, "forward", "backward")
    batch._scenes = Timed(batch._scenes, "scenes", spent, "next")
    batch._adam = Timed(batch._adam, "Adam", spent, "step")
    with np.errstate(under="ignore"):  # as SeedBatch.advance
        for _ in range(20):
            batch.train_step()
        spent.clear()
        start = time.thread_time()
        for _ in range(steps):
            batch.train_step()
        whole = time.thread_time() - start
    out = {k: 1e6 * v / (steps * stack) for k, v in sorted(spent.items())}
    out["the rest (losses, ∂L/∂ŷ)"] = 1e6 * whole / (steps * stack) - sum(out.values())
    out["train step, both models"] = 1e6 * whole / (steps * stack)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    args = parser.parse_args()
    if not 50 <= args.steps <= 20_000:
        raise SystemExit("bounded: 50–20000 steps")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    flop = mlp_flop_per_step()
    products = mlp_products_us(STACK_MAX, args.steps)
    print(f"\nthe slot MLP's products, one learner-step of {BATCH} scenes: {flop / 1e6:.2f} MFLOP "
          f"({flop / ISSUE_FLOP:.0f}× the issue's 50 kFLOP for both models)")  # fmt: skip
    print(f"  this machine, {STACK_MAX} stacked: {products:.1f} µs a learner-step "
          f"= {flop / products / 1e3:.1f} GFLOP/s")  # fmt: skip
    parts = parts_us(STACK_MAX, args.steps)
    print(f"\nCPU µs per learner-step, {STACK_MAX} learners stacked ({args.steps} steps)")
    for name, us in parts.items():
        print(f"  {name:<32} {us:7.1f}")
    train = parts["train step, both models"]
    print(f"\n  the MLP's products alone are {products / TARGET_US:.0%} of the {TARGET_US:.0f} µs "
          f"target; the training step alone is {train / TARGET_US:.2f}× it, before its "
          f"evaluations and progress messages (benchmarks/step_cost.py)")  # fmt: skip
    print("\nwhat float32 would change (the engine is float64: every number shown is as it is)")
    print(f"  {'':<32} {'float64':>8} {'float32':>8}")
    for name, fn in (("MLP's products", mlp_products_us), ("Adam", adam_us)):
        us = [fn(STACK_MAX, args.steps, dtype) for dtype in (np.float64, np.float32)]
        print(f"  {name:<32} {us[0]:8.1f} {us[1]:8.1f}  µs a learner-step ({us[1] / us[0]:.2f}×)")


if __name__ == "__main__":
    main()
