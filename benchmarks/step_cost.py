"""Where a training step's CPU goes in a worker: one learner alone, 8 and STACK_MAX stacked.

A learner at the watch pace (200 steps/s, a frame every 40 ms) trains 8 steps a frame and gets
one progress message a frame. This runs the worker's own calls in this process, frame after
frame, on the thread's CPU clock (other programs on the machine change it much less than wall
time), and splits a step's cost into: the two models' training steps, the evaluations (every
25 steps), the stack's upkeep, and the progress message (the display-scene prediction, the
colour-match table and JSON). The issue's target is 150 µs a step, all included.

    .venv/bin/python benchmarks/step_cost.py [--frames 200]
"""

from __future__ import annotations

import argparse
import json
import os
import time

from attnlab.tabletop import TrainConfig
from attnlab.tabletop.seed_batch import EVAL_EVERY, KeptStacks, evaluate
from attnlab.trainpool.session import TrainingSession, train_stacked
from attnlab.trainpool.worker import STACK_MAX

STEPS_PER_FRAME = 8  # 200 steps/s × 0.04 s
TARGET_US = 150.0


def cpu_us(fn, *args) -> tuple[float, object]:
    start = time.thread_time()
    out = fn(*args)
    return 1e6 * (time.thread_time() - start), out


def message_text(session: TrainingSession, records: list) -> str:
    """A progress message as the worker writes it."""
    return json.dumps(session.progress(records), allow_nan=False, separators=(",", ":"))


def per_step(stack: int, frames: int) -> dict[str, float]:
    """µs per learner-step, by part, for `stack` learners trained together frame after frame."""
    sessions = [
        TrainingSession(TrainConfig(seed=s), max_steps=10**6, max_step_n=1) for s in range(stack)
    ]
    kept = KeptStacks()
    train_stacked(sessions, STEPS_PER_FRAME, kept)  # warm
    trained = message = 0.0
    for _ in range(frames):
        us, records = cpu_us(train_stacked, sessions, STEPS_PER_FRAME, kept)
        trained += us
        for session, recs in zip(sessions, records, strict=True):
            message += cpu_us(message_text, session, recs)[0]
    b = sessions[0].trainer.seed_batch
    evaluation = sum(cpu_us(evaluate, b.attn, b.mlp, b.params_a, b.params_m, b.task)[0]
                     for _ in range(20)) / 20  # fmt: skip
    steps = frames * STEPS_PER_FRAME * stack
    eval_share = evaluation / EVAL_EVERY
    return {
        "train (both models, stack upkeep)": trained / steps - eval_share,
        "evaluation (every 25 steps)": eval_share,
        "progress message (one a frame)": message / steps,
        "total": (trained + message) / steps,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    args = parser.parse_args()
    if not 10 <= args.frames <= 5000:
        raise SystemExit("bounded: 10–5000 frames")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    stacks = (1, 8, STACK_MAX)
    rows = {k: per_step(k, args.frames) for k in stacks}
    print(f"\nCPU µs per learner-step at the watch pace ({STEPS_PER_FRAME} steps a frame)")
    print(f"{'part':<36} {'alone':>8}" + "".join(f"{f'{k} stacked':>12}" for k in stacks[1:]))
    for part in rows[1]:
        print(f"{part:<36}" + "".join(f"{rows[k][part]:>{8 if k == 1 else 12}.0f}" for k in stacks))
    print(f"target: ≤ {TARGET_US:.0f} µs a step, all included")


if __name__ == "__main__":
    main()
