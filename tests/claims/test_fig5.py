from __future__ import annotations

import pytest

from attnlab.claims.fig5 import CHECKS
from attnlab.figures import compute_figure
from attnlab.figures.depth import DEFAULT_SEED


def test_every_id_has_a_fast_and_a_slow_check():
    ids = {c.id for c in CHECKS}
    assert ids == {"F5.1", "F5.2", "F5.3"}
    for cid in ids:
        assert {c.slow for c in CHECKS if c.id == cid} == {False, True}


@pytest.mark.parametrize("check", [c for c in CHECKS if not c.slow], ids=lambda c: c.id)
def test_fast_checks_use_the_default_seed(check):
    assert check.run().values["seed"] == DEFAULT_SEED


@pytest.mark.slow
@pytest.mark.parametrize("check", [c for c in CHECKS if c.slow], ids=lambda c: c.id)
def test_seed_sweeps_pass(check):
    result = check.run()
    assert result.ok, result.measured
    assert result.values["sweep_seeds"] == 200


def test_claims_use_the_figures_numbers():
    by_id = {c.id: c.run() for c in CHECKS if not c.slow}
    pre_ln = compute_figure("depth", {"seed": DEFAULT_SEED})
    assert by_id["F5.3"].values["rms_24"] == pre_ln["rms"][24]
    no_ln = compute_figure("depth", {"norm": "none", "seed": DEFAULT_SEED})
    assert by_id["F5.2"].values["rms_21"] == no_ln["rms"][21]
    collapsed = compute_figure("depth", {"residual": False, "depth": 6, "seed": DEFAULT_SEED})
    assert by_id["F5.1"].values["diversity"] == collapsed["diversity"][6]
