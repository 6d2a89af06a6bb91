"""The signature a stored picture keeps of its data: float noise is not a change, a value a
reader could see is; and it holds under another BLAS kernel, computed in another process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from attnlab.figures import compute_figure
from attnlab.widgets.drawn import ABS_TOL, REL_TOL, differences, signature

DATA = {
    "figure": "demo",
    "settings": {"q": [3.0, 0.5], "mode": "softmax"},
    "weights": [0.887, 0.089, 0.001, 0.0, 0.023],
    "max_abs_diff": {"causal": 1.4e-14},  # 0 in exact arithmetic
    "winner": 0,
    "labels": ["a", "b"],
}


def _with(**changed) -> dict:
    return {**json.loads(json.dumps(DATA)), **changed}


def test_float_noise_is_not_a_change() -> None:
    noisy = _with(weights=[w * (1 + 1e-14) for w in DATA["weights"]], max_abs_diff={"causal": 0.0})
    assert differences(signature("demo", DATA), signature("demo", noisy)) == []


@pytest.mark.parametrize(
    "changed",
    [
        {"weights": [0.887, 0.089, 0.001, 0.0, 0.024]},  # a third-digit change
        {"weights": [0.887, 0.089, 0.0, 0.001, 0.023]},  # two values swapped: same sums
        {"weights": [0.887, 0.089, 0.001, 0.0]},  # one fewer
        {"max_abs_diff": {"causal": 1e-3}},  # a cache that is no longer exact
        {"winner": 1},
        {"labels": ["a", "c"]},
        {"winner": 0.0},  # an int became a float
        {"extra": 1},
        {"settings": {"q": [3.0, 0.6], "mode": "softmax"}},
    ],
)
def test_a_change_a_reader_could_see_is_one(changed) -> None:
    assert differences(signature("demo", DATA), signature("demo", _with(**changed)))


def test_a_different_figure_is_a_change() -> None:
    assert differences(signature("demo", DATA), signature("other", DATA))


def test_the_tolerance_is_stated_relative_to_the_fields_size() -> None:
    big = {"figure": "demo", "x": [1000.0, 2000.0]}
    within = {"figure": "demo", "x": [1000.0 + 1e-7, 2000.0]}
    beyond = {"figure": "demo", "x": [1000.0 + 1e-5, 2000.0]}
    assert 1e-7 < REL_TOL * 3000 + ABS_TOL < 1e-5
    assert differences(signature("demo", big), signature("demo", within)) == []
    assert differences(signature("demo", big), signature("demo", beyond))


CHILD = """
import json, sys
from attnlab.figures import compute_figure
from attnlab.widgets.drawn import signature
json.dump(signature("kv-cache", compute_figure("kv-cache", {}, "json")), sys.stdout)
"""


@pytest.mark.parametrize("core", ["Prescott", "Sandybridge"])
def test_another_kernel_in_another_process_draws_the_same(core: str) -> None:
    """The kv-cache figure holds values that are 0 in exact arithmetic and ~1e-14 in floats,
    different under each OpenBLAS kernel (the bug a hash of raw floats had)."""
    env = {**os.environ, "OPENBLAS_CORETYPE": core}
    child = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                           text=True, timeout=120, check=True)  # fmt: skip
    here = signature("kv-cache", compute_figure("kv-cache", {}, "json"))
    assert differences(here, json.loads(child.stdout)) == []


def test_a_signature_is_plain_json() -> None:
    sig = signature("demo", {**DATA, "array": np.arange(3.0)})
    assert json.loads(json.dumps(sig, allow_nan=False)) == sig
