"""What one checked claim of the lesson looks like (ids from shared/CLAIMS.md).

How a check reports, so that the page can say it in either language (follow this for a new
claim): every number the check holds itself to — a threshold, a tolerance, a count of seeds or
draws, a setting — is a named constant of its module and goes into the result's `values` beside
what it measured. The sentences are the catalogues' (static/i18n/en.json and zh.json), with those
numbers as slots: `claimmeasured.F2.2` ("this page measures", `{{F2.2.steps}}`) and
`claimcondition.F2.2` ("condition checked", `{{F2.2.race_cm}}`; a seed sweep's result, whose
values count `n_seeds`, has `claimcondition.F2.2.sweep`). Build the result with `result()`: it
fills the English condition from those values (attnlab.claims.text), so the sentence is written
once and a slot the check does not return fails at once. tests/lesson/test_loader.py holds
every claim to both templates in both languages, and to no number in a condition that is not
a slot (except inside math or one the claim's title names, e.g. the "2 cm" of "below 2 cm").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from attnlab.claims.text import condition
from attnlab.plain import plain


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


def result(
    cid: str, statement: str, lesson: str, *, measured: str, ok: Any, values: dict[str, Any]
) -> ClaimResult:
    """A ClaimResult of plain values (NumPy scalars would not go to JSON), its condition the
    catalogue's sentence filled with them."""
    values = plain(values)
    return ClaimResult(
        id=cid,
        statement=statement,
        lesson=lesson,
        measured=measured,
        ok=bool(ok),
        condition=condition(cid, values),
        values=values,
    )


# A check computes one claim. `slow` checks (multi-seed sweeps) run only with `--full`.
Check = Callable[[], ClaimResult]


@dataclass(frozen=True)
class ClaimCheck:
    """`costly`: a fast check that still trains many seeds (F2.11's strip, ~10 s of one core);
    the page's runner measures those after the others, so the text's numbers do not wait."""

    id: str
    run: Check
    slow: bool = False
    costly: bool = False


SPREAD = (10, 90)  # the percentiles a sweep is reported by, beside its median


def spread(x: Any) -> dict[str, float]:
    """Median and 10th–90th percentile of a sweep's values: how claims report many seeds."""
    p10, med, p90 = np.percentile(np.asarray(x, dtype=float), [SPREAD[0], 50, SPREAD[1]])
    return {"median": float(med), "p10": float(p10), "p90": float(p90)}


def spread_values() -> dict[str, int]:
    """The percentiles of `spread`, as values for a condition that names them."""
    return {"pct_lo": SPREAD[0], "pct_hi": SPREAD[1]}


def spread_text(x: Any, fmt: str = ".3f") -> str:
    """'median 0.923 (10–90%: 0.913–0.935)' for a sweep's values."""
    s = spread(x)
    return f"median {s['median']:{fmt}} (10–90%: {s['p10']:{fmt}}–{s['p90']:{fmt}})"
