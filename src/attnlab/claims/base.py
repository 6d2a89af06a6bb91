"""What one checked claim of the lesson looks like (ids from shared/CLAIMS.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any


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
