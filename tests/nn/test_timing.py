"""The timed attention layer: bounded sizes, a count that matches, a cache that cannot grow."""

from __future__ import annotations

from attnlab.nn import timing
from attnlab.nn.cost import MODEL_PRESETS, layer_flops


def test_every_timed_size_is_on_the_grid_and_within_the_budget() -> None:
    for size in MODEL_PRESETS.values():
        for n in (1, 63, 64, 100, 5000, 10**7):
            m = timing.timed_n(n, size)
            assert m in timing.TIMED_N
            assert layer_flops(m, size.d)["attention"] <= timing.MAX_FLOPS
            assert m <= n or m == timing.TIMED_N[0]


def test_the_cache_holds_at_most_the_grid() -> None:
    assert timing._measure.cache_info().maxsize == len(timing.TIMED_N) * len(MODEL_PRESETS)


def test_a_timing_reports_its_flops_rates_and_machine() -> None:
    t = timing.time_attention(70, "small")
    assert t["n_timed"] == 64 and t["flops"] == 4 * 64 * 64 * 512
    assert abs(t["plain"]["gflops"] * 1e9 * t["plain"]["seconds"] - t["flops"]) < 1e-3 * t["flops"]
    assert t["plain"]["of_matmul"] == t["plain"]["gflops"] / t["matmul"]["gflops"]
    assert t["tiled"]["max_abs_diff"] < 1e-12  # FIG 8's tiled version, the same numbers
    assert set(t["machine"]) >= {"cpu", "cores", "usable_cores", "numpy", "blas"}
    again = timing.time_attention(100, "small")
    assert again["plain"] == t["plain"]  # the same grid point: measured once, kept
