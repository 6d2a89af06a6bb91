"""What one checked claim of the lesson looks like (ids from shared/CLAIMS.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class ClaimResult:
    """One claim, measured.

    statement: the claim in our words; lesson: what the lesson states (value or range);
    measured: what our engine gave, formatted for a reader; condition: the test we hold
    ourselves to (stated, never silently loosened); values: the raw numbers, which the page and
    the lesson text insert by name (e.g. `{{F2.2.steps}}`).
    """

    id: str
    statement: str
    lesson: str
    measured: str
    ok: bool
    condition: str
    values: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# A check computes one claim. `slow` checks (multi-seed sweeps) run only with `--full`.
Check = Callable[[], ClaimResult]


@dataclass(frozen=True)
class ClaimCheck:
    id: str
    run: Check
    slow: bool = False


def spread(x: Any) -> dict[str, float]:
    """Median and 10th–90th percentile of a sweep's values: how claims report many seeds."""
    p10, med, p90 = np.percentile(np.asarray(x, dtype=float), [10, 50, 90])
    return {"median": float(med), "p10": float(p10), "p90": float(p90)}


def spread_text(x: Any, fmt: str = ".3f") -> str:
    """'median 0.923 (10–90%: 0.913–0.935)' for a sweep's values."""
    s = spread(x)
    return f"median {s['median']:{fmt}} (10–90%: {s['p10']:{fmt}}–{s['p90']:{fmt}})"
