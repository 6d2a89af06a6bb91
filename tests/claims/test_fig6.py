from __future__ import annotations

from attnlab.claims.fig6 import CHECKS
from attnlab.figures import compute_figure


def test_ids():
    assert [c.id for c in CHECKS] == ["F6.1", "F6.2", "F6.3", "M2", "E3"]


def test_counts_are_the_figures_totals():
    by_id = {c.id: c.run() for c in CHECKS}
    totals = compute_figure("kv-cache")["totals"]
    for cid, mask in (("F6.1", "causal"), ("F6.2", "block")):
        assert by_id[cid].values["cached"] == totals[mask]["cached"]
        assert by_id[cid].values["uncached"] == totals[mask]["uncached"]
    model = compute_figure("kv-cache", {"seed": 0, "mask": "bidirectional"})["model"]
    assert by_id["E3"].values["kv_diff_bidirectional"] == model["kv_diff_by_layer"]["bidirectional"]
