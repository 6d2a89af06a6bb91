from __future__ import annotations

from attnlab.claims.fig7 import CHECKS
from attnlab.figures import compute_figure


def test_ids():
    assert [c.id for c in CHECKS] == ["F7.1", "F7.2", "F7.3", "F7.4", "F7.5", "E5"]


def test_values_are_the_figures_numbers():
    by_id = {c.id: c.run() for c in CHECKS}
    four = compute_figure("tokens", {"cameras": 4, "patch": 8, "frames": 1, "actions": 0})
    assert by_id["F7.3"].values["n"] == four["n"]
    assert by_id["F7.3"].values["attention_share"] == four["attention_share"]
    assert by_id["F7.2"].values["crossover_small"] == compute_figure("tokens")["crossover_n"]
    assert by_id["F7.4"].values["bytes_small_4cam"] == four["kv_cache_bytes"]["total"]
