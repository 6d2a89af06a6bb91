"""How long each figure takes to compute, against the page's 50 ms budget per update.

For every registered figure that imports, times `attnlab.figures.compute_figure` (validation,
computation and plain-data conversion: what the web API does per request) over a grid of valid
settings: the defaults, every parameter at its bounds and each of its choices with the rest at
their defaults, all-maximum corners (depth 24, d_k 1024, 16 cameras …) and random settings.
Prints p50 / p99 per figure and their ratio to the budget; the first (cold) call is reported
apart, since figures cache what does not depend on the settings.

    .venv/bin/python benchmarks/figure_speed.py [--repeats 5] [--random 20] [--seed 0]
"""

from __future__ import annotations

import argparse
import importlib
import time
from typing import Any

import numpy as np

from attnlab.figures import MODULES, compute_figure
from attnlab.params import Param

BUDGET_MS = 50.0


def _values(p: Param) -> list[Any]:
    """The values of one setting worth timing: its bounds or every choice."""
    if p.kind == "bool":
        return [False, True]
    if p.kind == "choice":
        return list(p.choices)
    if p.kind in ("int", "float") and p.lo is not None and p.hi is not None:
        cast = int if p.kind == "int" else float
        return sorted({cast(p.lo), cast(p.hi), p.default})
    return [p.default]  # vectors: the default layout


def _random_value(p: Param, rng: np.random.Generator) -> Any:
    vals = _values(p)
    if p.lo is None or p.hi is None:
        return vals[int(rng.integers(len(vals)))]
    if p.kind == "int":
        return int(rng.integers(int(p.lo), int(p.hi) + 1))
    if p.kind == "float":
        return float(rng.uniform(p.lo, p.hi))
    if p.kind == "vector":
        return [float(x) for x in rng.uniform(p.lo, p.hi, size=p.length)]
    return vals[int(rng.integers(len(vals)))]


def settings_grid(params: tuple[Param, ...], n_random: int, rng: np.random.Generator) -> list[dict]:
    """Defaults; one setting moved at a time; all-high and all-low corners; random settings."""
    grid: list[dict] = [{}]
    for p in params:
        grid += [{p.name: v} for v in _values(p) if v != p.default]
    for pick in (-1, 0):  # every setting at its last (largest) value, then its first
        grid.append({p.name: _values(p)[pick] for p in params})
    for p in params:  # the largest corner with each choice
        if p.kind == "choice":
            top = {q.name: _values(q)[-1] for q in params if q.kind in ("int", "float")}
            grid += [{**top, p.name: c} for c in p.choices]
    grid += [{p.name: _random_value(p, rng) for p in params} for _ in range(n_random)]
    return grid


def _short(settings: dict) -> str:
    """Settings for one line of output: floats to 3 digits, long vectors elided."""

    def one(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.3g}"
        if isinstance(v, list):
            return "[" + ",".join(one(x) for x in v[:2]) + (",…]" if len(v) > 2 else "]")
        return str(v)

    return " ".join(f"{k}={one(v)}" for k, v in settings.items()) or "(defaults)"


def time_figure(name: str, grid: list[dict], repeats: int) -> tuple[float, list[float], dict]:
    """(cold call ms, every timed call in ms, the slowest settings)."""
    t0 = time.perf_counter()
    compute_figure(name, grid[0])
    cold = (time.perf_counter() - t0) * 1e3
    times: list[float] = []
    worst: tuple[float, dict] = (0.0, {})
    for settings in grid:
        for _ in range(repeats):
            t0 = time.perf_counter()
            compute_figure(name, settings)
            ms = (time.perf_counter() - t0) * 1e3
            times.append(ms)
            worst = max(worst, (ms, settings), key=lambda w: w[0])
    return cold, times, worst[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="timed calls per setting")
    ap.add_argument("--random", type=int, default=20, help="random settings per figure")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random settings")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    header = f"{'figure':<10} {'settings':>8} {'cold ms':>8} {'p50 ms':>8} {'p99 ms':>8} "
    print(header + f"{'p99/budget':>10}  slowest settings")
    over = 0
    for name, module_name in MODULES.items():
        try:
            module = importlib.import_module(f"attnlab.figures.{module_name}")
        except ModuleNotFoundError as err:
            if err.name != f"attnlab.figures.{module_name}":
                raise
            print(f"{name:<10} (not written yet, skipped)")
            continue
        grid = settings_grid(module.PARAMS, args.random, rng)
        cold, times, slowest = time_figure(name, grid, args.repeats)
        p50, p99 = np.percentile(times, [50, 99])
        over += p99 > BUDGET_MS
        flag = "" if p99 <= BUDGET_MS else "  OVER BUDGET"
        print(
            f"{name:<10} {len(grid):>8} {cold:>8.1f} {p50:>8.2f} {p99:>8.2f} "
            f"{p99 / BUDGET_MS:>10.2f}  {_short(slowest)}{flag}"
        )
    print(f"budget {BUDGET_MS:.0f} ms per update; {over} figure(s) over it at p99")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
