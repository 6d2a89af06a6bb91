"""Would training readers' sessions together raise the server's capacity? Measured, not assumed.

Sessions with the same task and heads could step in lock-step as one `SeedBatch` over a seed
axis (as `attnlab train --sweep` does). This compares, for S sessions at the watch pace
(8 steps a frame), S separate one-seed trainers stepped in turn against one S-seed batch,
in seed-steps per second on one core, alternating the two (3 rounds each, medians), so a busy
spell of the machine hits both alike. The server keeps separate sessions unless the batch wins
clearly (a ratio well above 1 on a quiet machine).

    .venv/bin/python benchmarks/train_batching.py [--frames 60] [--rounds 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from attnlab.tabletop import TrainConfig, Trainer
from attnlab.tabletop.seed_batch import SeedBatch

STEPS_PER_FRAME = 8  # 200 steps/s at 25 frames/s


def separate(task: str, heads: int, sessions: int, frames: int) -> float:
    trainers = [Trainer(TrainConfig(task=task, heads=heads, seed=s)) for s in range(sessions)]
    t0 = time.perf_counter()
    for _ in range(frames):
        for tr in trainers:
            tr.advance(STEPS_PER_FRAME)
    return sessions * frames * STEPS_PER_FRAME / (time.perf_counter() - t0)


def batched(task: str, heads: int, sessions: int, frames: int) -> float:
    batch = SeedBatch(task, heads, list(range(sessions)))
    t0 = time.perf_counter()
    for _ in range(frames):
        batch.advance(STEPS_PER_FRAME)
    return sessions * frames * STEPS_PER_FRAME / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{'task':<7}{'heads':>6}{'S':>5}{'separate':>11}{'batched':>10}{'ratio':>7}")
    for task, heads in (("fetch", 1), ("vector", 2)):
        for sessions in (1, 4, 16, 40):
            sep, bat = [], []
            for _ in range(args.rounds):
                sep.append(separate(task, heads, sessions, args.frames))
                bat.append(batched(task, heads, sessions, args.frames))
            s, b = float(np.median(sep)), float(np.median(bat))
            print(f"{task:<7}{heads:>6}{sessions:>5}{s:>11.0f}{b:>10.0f}{b / s:>7.2f}")
    print("(seed-steps per second on one core; ratio = batched / separate)")


if __name__ == "__main__":
    main()
