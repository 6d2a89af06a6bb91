"""One attention layer, timed on this machine (FIG 7, F7.8): seconds, beside its FLOP count.

A FLOP count says what a layer must compute; a clock says what this machine makes of it. We
time attention's two products and its softmax (4n²d FLOPs, `cost.layer_flops`) with the plain
engine (`attnlab.nn.attention`, one head at a time, so one n × n block of weights is held) and
with FIG 8's tiled version (`attnlab.nn.flash`); and we time one large matrix product, the
machine's best case, so the page can say how far from it attention runs.

This runs in the server, so it is bounded: n is rounded down to a fixed grid of powers of two
and to what fits a FLOP budget; each (model, n) is measured once, one at a time, and kept. The
grid is small, so the cache is bounded and no request can make the server measure again.
"""

from __future__ import annotations

import os
import platform
import threading
import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from attnlab.nn.attention import attention
from attnlab.nn.cost import MODEL_PRESETS, ModelSize, layer_flops
from attnlab.nn.flash import flash_attention
from attnlab.nn.ops import Array

__all__ = [
    "MATMUL_N",
    "MAX_FLOPS",
    "TILED_ATTENTION",
    "TIMED_N",
    "machine",
    "matmul_rate",
    "time_attention",
    "timed_n",
]

TIMED_N = (64, 128, 256, 512, 1024, 2048)  # the only token counts ever timed
MAX_FLOPS = 1.1e9  # no timed layer above this: small model ≤ 512 tokens, 7B class ≤ 256
MATMUL_N = 1024  # the reference product: (1024 × 1024) @ (1024 × 1024), 2.1 GFLOP
RUNS = 2  # best of RUNS: the first run also pays for page faults and cold caches
SECOND_RUN_S = 0.5  # ...unless the first took longer than this (a busy machine): one run then
_LOCK = threading.Lock()  # one measurement at a time: two would slow each other down

TILE = 64  # keys per tile for the tiled version


def tiled_attention(q: Array, k: Array, v: Array) -> Array:
    """FIG 8's tiled attention (`attnlab.nn.flash`) head by head: (H, n, d_h) each → (H, n, d_h)."""
    return np.stack([flash_attention(q[h], k[h], v[h], tile=TILE).out for h in range(len(q))])


TILED_ATTENTION = tiled_attention  # what `_measure` times beside the plain version (tests swap it)


def timed_n(n: int, size: ModelSize) -> int:
    """The n actually timed for a request at n: the largest grid point ≤ n within the budget."""
    fits = [m for m in TIMED_N if layer_flops(m, size.d)["attention"] <= MAX_FLOPS]
    return max([m for m in fits if m <= n], default=fits[0])


def _best_of(run: Callable[[], Any]) -> tuple[Any, float]:
    """run()'s result and its best time over RUNS runs (one if it is slow)."""
    best, out = float("inf"), None
    for _ in range(RUNS):
        start = time.perf_counter()
        out = run()
        best = min(best, time.perf_counter() - start)
        if best > SECOND_RUN_S:
            break
    return out, best


def _plain(q: Array, k: Array, v: Array) -> Array:
    """Plain attention, head by head: q, k, v (H, n, d_h) → (H, n, d_h)."""
    return np.stack([attention(q[h], k[h], v[h])[0] for h in range(q.shape[0])])


def _rate(flops: int, seconds: float, reference: float) -> dict[str, float]:
    gflops = flops / seconds / 1e9
    return {"seconds": seconds, "gflops": gflops, "of_matmul": gflops / reference}


@lru_cache(maxsize=1)
def matmul_rate() -> dict[str, float]:
    """The machine's matrix-multiply rate in GFLOP/s: float64, MATMUL_N³ MACs, best of RUNS."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, MATMUL_N, MATMUL_N))
    with _LOCK:
        _, seconds = _best_of(lambda: a @ b)
    return {"n": MATMUL_N, "seconds": seconds, "gflops": 2 * MATMUL_N**3 / seconds / 1e9}


@lru_cache(maxsize=len(TIMED_N) * len(MODEL_PRESETS))  # every (model, n) of the grid, no more
def _measure(model: str, n: int) -> dict[str, Any]:
    size = MODEL_PRESETS[model]
    rng = np.random.default_rng(n)
    q, k, v = rng.standard_normal((3, size.n_heads, n, size.d_head))  # (H, n, d_h) each
    flops = layer_flops(n, size.d)["attention"]  # 4n²d: H heads × (2n²d_h + 2n²d_h)
    reference = matmul_rate()["gflops"]
    with _LOCK:
        out, seconds = _best_of(lambda: _plain(q, k, v))
        plain = _rate(flops, seconds, reference)
        fn = TILED_ATTENTION
        tiled_out, seconds = _best_of(lambda: fn(q, k, v))
        tiled = _rate(flops, seconds, reference)
        tiled["max_abs_diff"] = float(np.max(np.abs(tiled_out - out)))
    return {
        "n_timed": n,
        "d": size.d,
        "n_heads": size.n_heads,
        "flops": flops,
        "plain": plain,
        "tiled": tiled,
    }


def time_attention(n: int, model: str) -> dict[str, Any]:
    """One attention layer of `model` timed near n (see `timed_n`), with the machine it ran on."""
    size = MODEL_PRESETS[model]
    m = timed_n(n, size)
    return {
        "n": n,
        "model": model,
        **_measure(model, m),
        "matmul": matmul_rate(),
        "machine": machine(),
        "runs": RUNS,
        "max_timed_n": timed_n(10**9, size),
    }


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _blas() -> str:
    try:
        deps = np.show_config(mode="dicts")["Build Dependencies"]  # type: ignore[index]
        blas = deps["blas"]
        return f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:  # an older or unusual NumPy build: say so rather than guess
        return "unknown"


@lru_cache(maxsize=1)
def machine() -> dict[str, Any]:
    """Which machine measured: CPU model, cores (all, and those this process may use), NumPy
    and its BLAS."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu": _cpu_name(),
        "cores": os.cpu_count() or 0,
        "usable_cores": usable or 0,
        "numpy": np.__version__,
        "blas": _blas(),
        "python": platform.python_version(),
    }
