from __future__ import annotations

from attnlab.claims.fig7 import CHECKS
from attnlab.figures import compute_figure


def test_ids():
    assert [c.id for c in CHECKS] == [
        "F7.1",
        "F7.2",
        "F7.3",
        "F7.4",
        "F7.5",
        "E5",
        "F7.6",
        "F7.7",
        "F7.8",
        "F7.9",
    ]


def test_values_are_the_figures_numbers():
    by_id = {c.id: c.run() for c in CHECKS}
    four = compute_figure("tokens", {"cameras": 4, "patch": 8, "frames": 1, "actions": 0})
    assert by_id["F7.3"].values["n_no_actions"] == four["n"]
    assert by_id["F7.3"].values["attention_share_no_actions"] == four["attention_share"]
    assert by_id["F7.2"].values["crossover_small"] == compute_figure("tokens")["crossover_n"]
    assert by_id["F7.4"].values["bytes_small_4cam"] == four["kv_cache_bytes"]["total"]


def test_try_it_numbers_are_what_the_reader_gets():
    """FIG 7's try-it: open the figure, set 4 cameras and 8-pixel patches, nothing else."""
    by_id = {c.id: c.run() for c in CHECKS}
    small = compute_figure("tokens", {"cameras": 4, "patch": 8})
    seven = compute_figure("tokens", {"cameras": 4, "patch": 8, "model": "7b"})
    assert by_id["F7.3"].values["n"] == small["n"] == seven["n"]
    assert by_id["F7.3"].values["attention_share"] == small["attention_share"]
    assert by_id["F7.4"].values["cache_gb_7b"] == seven["kv_cache_bytes"]["total"] / 1e9
