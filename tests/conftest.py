"""Strict numerics for every test: an overflow or a 0/0 (e.g. a fully masked softmax row done
wrong) raises instead of quietly producing inf or NaN."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _strict_numpy():
    old = np.seterr(all="raise")
    yield
    np.seterr(**old)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)
