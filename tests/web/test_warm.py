"""Which figure requests are warm enough for the event loop: a figure's recent seeds only."""

from __future__ import annotations

from attnlab.web.warm import WARM_SEEDS, WarmFigures


def test_a_figure_is_warm_at_the_seeds_it_answered_recently() -> None:
    warm = WarmFigures()
    assert not warm.warm("depth", {})  # never answered: its first answer draws everything
    warm.answered("depth", {})
    assert warm.warm("depth", {"layer": 3})  # the default seed, any other setting
    assert not warm.warm("depth", {"seed": 5}) and not warm.warm("scaling", {})
    for seed in range(WARM_SEEDS):
        warm.answered("depth", {"seed": seed})
    assert warm.warm("depth", {"seed": 0})
    assert not warm.warm("depth", {})  # pushed out by WARM_SEEDS newer seeds


def test_a_seed_answered_again_is_the_newest() -> None:
    warm = WarmFigures()
    for seed in range(WARM_SEEDS):
        warm.answered("scaling", {"seed": seed})
    warm.answered("scaling", {"seed": 0})
    warm.answered("scaling", {"seed": 99})
    assert warm.warm("scaling", {"seed": 0}) and not warm.warm("scaling", {"seed": 1})


def test_a_seed_that_is_not_an_int_is_never_taken_for_one() -> None:
    warm = WarmFigures()
    warm.answered("depth", {"seed": 3})
    assert not warm.warm("depth", {"seed": "3"}) and not warm.warm("depth", {"seed": 3.0})
    assert not warm.warm("depth", {"seed": True})
