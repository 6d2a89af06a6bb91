"""What packing a figure's answer with gzip costs, by level: CPU µs and bytes (issue 19).

Each figure's answer at its defaults, as the routes send it (`figure_json`), packed at levels
1, 6 and 9 (`figure_answers.pack`); the best of a few rounds on the thread's CPU clock. Printed
per figure and in total, with each level's time and bytes as a ratio of level 6 (the
GZipMiddleware's level for the rest of the app), measured in the same run.

    .venv/bin/python benchmarks/figure_gzip.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import os
import time

from attnlab.figures import figure_json, figure_modules
from attnlab.web.figure_answers import ANSWER_GZIP_LEVEL
from attnlab.web.revalidate import pack

LEVELS = (1, 6, 9)


def cost_us(body: bytes, level: int, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.thread_time()
        pack(body, level)
        best = min(best, time.thread_time() - t0)
    return 1e6 * best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    if not 1 <= args.rounds <= 1000:
        raise SystemExit("bounded: 1–1000 rounds")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'figure':<10} {'bytes':>7}" + "".join(f"   level {lv}: µs, bytes" for lv in LEVELS))
    totals = {lv: [0.0, 0] for lv in LEVELS}
    for name in figure_modules():
        body = figure_json(name, {}, "json")
        row = f"{name:<10} {len(body):>7}"
        for lv in LEVELS:
            us, size = cost_us(body, lv, args.rounds), len(pack(body, lv))
            totals[lv][0] += us
            totals[lv][1] += size
            row += f"   {us:>8.0f} {size:>9}"
        print(row)
    ref_us, ref_bytes = totals[6]
    for lv in LEVELS:
        us, size = totals[lv]
        print(f"level {lv}: {us:.0f} µs, {size} bytes in all = {us / ref_us:.2f}× the time and "
              f"{size / ref_bytes:.2f}× the bytes of level 6")  # fmt: skip
    print(f"the figure routes pack at level {ANSWER_GZIP_LEVEL}")


if __name__ == "__main__":
    main()
