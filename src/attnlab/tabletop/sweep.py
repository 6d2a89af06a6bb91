"""A seed sweep of FIG 2's training (`attnlab train --sweep N`): how the lesson's numbers spread.

The seeds are cut into one contiguous chunk per worker process (2 on this machine's 2 cores);
each chunk is one batched computation over a seed axis (`seed_batch.SeedBatch`). A seed's curve in
a sweep is the curve `attnlab train --seed s` draws, number for number.

The report gives, over seeds, the median and 10th–90th percentiles of the first steps below
3 / 2 / 1 cm and of the final errors, and says how each failing seed failed (a seed fails when
the attention model is not below 2 cm (fetch) or 1 cm (vector) at the end).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from attnlab.processes import map_in_processes
from attnlab.tabletop.colour_match import colour_match
from attnlab.tabletop.seed_batch import ERROR_KEYS, SeedBatch
from attnlab.tabletop.trainer import THRESHOLDS_CM, record_of, summarise

MAX_SWEEP = 200
GOAL_CM = {"fetch": 2.0, "vector": 1.0}  # a seed that ends above this has failed
FOCUS = 0.5  # a head whose weight on an object exceeds this "looks at" it


def run_chunk(
    task: str, heads: int, seeds: Sequence[int], steps: int
) -> tuple[list[list[dict]], list[np.ndarray]]:
    """Train the given seeds together: each seed's history as a list of records, and its
    colour-match table at the end (tabletop/colour_match.py, (H, P, 6, 6))."""
    batch = SeedBatch(task, heads, seeds)
    batch.advance(steps)
    rows = range(len(batch.eval_steps))
    histories = [[record_of(batch, k, i) for k in rows] for i in range(len(seeds))]
    return histories, [colour_match(batch.params_a, task, i) for i in range(len(seeds))]


def _chunks(seeds: Sequence[int], n: int) -> list[list[int]]:
    n = max(1, min(n, len(seeds)))
    return [list(c) for c in np.array_split(np.asarray(seeds), n) if len(c)]


def how_it_failed(task: str, final: dict[str, Any]) -> str | None:
    """None if the seed reached its goal, else a short reason read from the head weights."""
    if final["attn_err_cm"] < GOAL_CM[task]:
        return None
    w = np.asarray(final["head_weight"])  # fetch (H,); vector (H, 2): [w_A, w_B] per head
    if task == "fetch":
        return "attention not on the target" if w.max() < FOCUS else "on the target but slow"
    on_a, on_b = int((w[:, 0] > FOCUS).sum()), int((w[:, 1] > FOCUS).sum())
    if on_a and on_b:
        return "one head on A, one on B, not yet below 1 cm"
    if on_a or on_b:
        return f"{'every head' if len(w) > 1 else 'the head'} on {'A' if on_a else 'B'}"
    return "weights spread over the objects"


def _spread(values: Sequence[float | None]) -> dict[str, Any]:
    """median, 10th and 90th percentile of the values that exist; how many are missing."""
    ok = np.array([v for v in values if v is not None], dtype=float)
    stats: dict[str, Any] = {"n": len(values), "missing": len(values) - ok.size}
    for name, q in (("p10", 10), ("median", 50), ("p90", 90)):
        stats[name] = float(np.percentile(ok, q)) if ok.size else None
    return stats


@dataclass
class SweepResult:
    task: str
    heads: int
    steps: int
    seeds: list[int]
    histories: list[list[dict[str, Any]]]
    tables: list[np.ndarray] = field(default_factory=list)  # per seed, its final colour match
    summaries: list[dict[str, Any]] = field(init=False)

    def __post_init__(self) -> None:
        self.summaries = [summarise(h) for h in self.histories]

    def failures(self) -> list[dict[str, Any]]:
        out = []
        for seed, s in zip(self.seeds, self.summaries, strict=True):
            how = how_it_failed(self.task, s["final"])
            if how:
                out.append({"seed": seed, "how": how, "attn_err_cm": s["final"]["attn_err_cm"]})
        return out

    def stats(self) -> dict[str, Any]:
        """The distribution over seeds of step counts, final errors and focus of the heads."""
        out: dict[str, Any] = {}
        for cm in THRESHOLDS_CM:
            out[f"first_below_{cm}cm"] = _spread([s[f"first_below_{cm}cm"] for s in self.summaries])
        out["mlp_err_at_2cm"] = _spread([s["mlp_err_at_2cm"] for s in self.summaries])
        for key in ERROR_KEYS:
            out[f"final_{key}"] = _spread([s["final"][key] for s in self.summaries])
        # heads are interchangeable, so per seed: the largest weight any head puts on each object
        w = np.array([s["final"]["head_weight"] for s in self.summaries])
        names = ("target",) if self.task == "fetch" else ("A", "B")
        for j, name in enumerate(names):
            best = w.max(axis=1) if self.task == "fetch" else w[:, :, j].max(axis=1)
            out[f"final_weight_{name}"] = _spread(best.tolist())
        fails = self.failures()
        out["failures"] = {"count": len(fails), "how": dict(Counter(f["how"] for f in fails))}
        return out

    def curve(self, seed: int) -> list[dict[str, Any]]:
        return self.histories[self.seeds.index(seed)]

    def to_dict(self, *, histories: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "config": {"task": self.task, "heads": self.heads, "steps": self.steps},
            "seeds": self.seeds,
            "stats": self.stats(),
            "failures": self.failures(),
            "summaries": [
                {"seed": s, **m} for s, m in zip(self.seeds, self.summaries, strict=True)
            ],
        }
        if histories:
            out["histories"] = {str(s): h for s, h in zip(self.seeds, self.histories, strict=True)}
        return out


def sweep(
    task: str,
    heads: int,
    seeds: Sequence[int],
    steps: int,
    *,
    workers: int = 2,
    stop: threading.Event | None = None,
) -> SweepResult:
    """Train every seed for `steps` steps, `workers` batched chunks in parallel processes.
    `stop` (a server's sweep, in a thread): once set, the sweep ends early (processes.Stopped)."""
    chunks = _chunks(seeds, workers)
    train = partial(run_chunk, task, heads, steps=steps)
    # in processes that end with the sweep, whatever ends it (Ctrl+C, an error, a killed caller,
    # `stop`); one chunk alone runs here, unless it must be stoppable
    parts = (
        [train(chunks[0])]
        if len(chunks) == 1 and stop is None
        else map_in_processes(train, chunks, name="attnlab-sweep", stop=stop)
    )
    histories = [h for part in parts for h in part[0]]
    tables = [t for part in parts for t in part[1]]
    return SweepResult(task, heads, steps, [int(s) for s in seeds], histories, tables)
