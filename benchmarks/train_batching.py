"""Does training readers' sessions stacked raise the server's capacity? Measured, not assumed.

A worker stacks the due sessions of one task and head count (up to 8) and trains them as one
batch on the seed axis (`seed_batch.train_together`: each keeps its own numbers). For S sessions
at the watch pace (8 steps a frame), standing at different steps as readers who pressed Train at
different moments do, this compares S separate one-seed trainers stepped in turn, the stack the
server uses, and — as the ceiling — one S-seed lock-step batch (`attnlab train --sweep`), in
seed-steps per CPU second of this process (CPU time, not wall time: other work on the machine
slows both alike less). The three alternate, 3 rounds each, medians.

    .venv/bin/python benchmarks/train_batching.py [--frames 40] [--rounds 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from attnlab.tabletop import TrainConfig, Trainer
from attnlab.tabletop.seed_batch import SeedBatch
from attnlab.tabletop.trainer import advance_together

STEPS_PER_FRAME = 8  # 200 steps/s at 25 frames/s
STACK_MAX = 8  # as the worker (trainpool/worker.py)


def _trainers(task: str, heads: int, sessions: int) -> list[Trainer]:
    trainers = [Trainer(TrainConfig(task=task, heads=heads, seed=s)) for s in range(sessions)]
    for i, tr in enumerate(trainers):
        tr.advance(3 * i % 25)  # readers stand at different steps
    return trainers


def separate(task: str, heads: int, sessions: int, frames: int) -> float:
    trainers = _trainers(task, heads, sessions)
    t0 = time.process_time()
    for _ in range(frames):
        for tr in trainers:
            tr.advance(STEPS_PER_FRAME)
    return sessions * frames * STEPS_PER_FRAME / (time.process_time() - t0)


def stacked(task: str, heads: int, sessions: int, frames: int) -> float:
    trainers = _trainers(task, heads, sessions)
    stacks = [trainers[i : i + STACK_MAX] for i in range(0, sessions, STACK_MAX)]
    t0 = time.process_time()
    for _ in range(frames):
        for stack in stacks:
            advance_together(stack, STEPS_PER_FRAME)
    return sessions * frames * STEPS_PER_FRAME / (time.process_time() - t0)


def lock_step(task: str, heads: int, sessions: int, frames: int) -> float:
    batch = SeedBatch(task, heads, list(range(sessions)))
    t0 = time.process_time()
    for _ in range(frames):
        batch.advance(STEPS_PER_FRAME)
    return sessions * frames * STEPS_PER_FRAME / (time.process_time() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    ways = {"separate": separate, "stacked": stacked, "lock-step": lock_step}
    print(f"{'task':<7}{'heads':>6}{'S':>4}" + "".join(f"{w:>11}" for w in ways) + "  stacked/sep")
    for task, heads in (("fetch", 1), ("vector", 2)):
        for sessions in (1, 4, 8, 20):
            got: dict[str, list[float]] = {w: [] for w in ways}
            for _ in range(args.rounds):
                for name, way in ways.items():
                    got[name].append(way(task, heads, sessions, args.frames))
            med = {w: float(np.median(v)) for w, v in got.items()}
            cells = "".join(f"{med[w]:>11.0f}" for w in ways)
            print(
                f"{task:<7}{heads:>6}{sessions:>4}{cells}{med['stacked'] / med['separate']:>12.2f}"
            )
    print("(seed-steps per CPU second; stacked = what the server does)")


if __name__ == "__main__":
    main()
