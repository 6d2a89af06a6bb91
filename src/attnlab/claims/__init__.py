"""The registry behind `attnlab reproduce`: every number the lesson states, measured.

Ids come from shared/CLAIMS.md and are stable: code, tests, the page and the lesson's text
("try it" tasks, `{{F2.2.steps}}` placeholders) all refer to them. Each figure of
`attnlab.figures.registry` has a module `fig{number}` with a `CHECKS` tuple (its F ids, and the
lesson-wide M and E ids that its figure measures); an id may have a fast check and a slow one
(a multi-seed sweep), and `full=True` prefers the slow one.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from functools import lru_cache

from attnlab.claims.base import ClaimCheck, ClaimResult
from attnlab.figures.registry import FIGURES
from attnlab.params import ParamError

__all__ = [
    "CLAIM_IDS",
    "ClaimCheck",
    "ClaimResult",
    "all_checks",
    "clear_caches",
    "run_claim",
    "run_claims",
]

CLAIM_IDS: tuple[str, ...] = (
    *(cid for fig in FIGURES for cid in fig.claim_ids),
    "M1",
    "M2",
    *(f"E{i}" for i in range(1, 6)),
)

_MODULES = tuple(fig.claims_module for fig in FIGURES)


@lru_cache(maxsize=1)
def all_checks() -> dict[str, tuple[ClaimCheck, ...]]:
    """id → its checks (fast first), in the order of CLAIM_IDS."""
    found: dict[str, list[ClaimCheck]] = {}
    for name in _MODULES:
        module = importlib.import_module(f"attnlab.claims.{name}")
        for check in module.CHECKS:
            found.setdefault(check.id, []).append(check)
    return {
        cid: tuple(sorted(found[cid], key=lambda c: c.slow)) for cid in CLAIM_IDS if cid in found
    }


def _unknown(cid: str) -> ParamError:
    return ParamError("only", f"unknown claim id {cid!r}; ids look like F2.2, M1, E3")


def _pick(checks: Sequence[ClaimCheck], full: bool) -> ClaimCheck:
    slow = [c for c in checks if c.slow]
    fast = [c for c in checks if not c.slow]
    if full and slow:
        return slow[0]
    return fast[0] if fast else slow[0]


@lru_cache(maxsize=2 * len(CLAIM_IDS))  # every id, fast and full: unknown ids raise, uncached
def run_claim(claim_id: str, full: bool = False) -> ClaimResult:
    """Measure one claim (cached: the engine is deterministic for fixed seeds)."""
    checks = all_checks()
    if claim_id not in checks:
        raise _unknown(claim_id)
    return _pick(checks[claim_id], full).run()


def select(ids: Iterable[str] | None) -> list[str]:
    """Validated claim ids, in registry order."""
    if ids is None:
        return list(all_checks())
    wanted = [i.strip() for i in ids if i.strip()]
    known = all_checks()
    for cid in wanted:
        if cid not in known:
            raise _unknown(cid)
    return [cid for cid in known if cid in wanted]


def run_claims(ids: Iterable[str] | None = None, full: bool = False) -> list[ClaimResult]:
    """Measure the selected claims (all by default)."""
    return [run_claim(cid, full) for cid in select(ids)]


def claim_caches() -> tuple:
    """Every cache of measured results: the registry's and those the figures' checks share
    (FIG 2's trained models and sweeps, FIG 3's seed sweep). A test checks none is missing."""
    from attnlab.claims import fig2, fig3

    return (run_claim, fig2.trained, fig2.swept, fig3.seed_sweep)


def clear_caches() -> None:
    """Forget every measured result, so that the next measurement starts from scratch."""
    for cached in claim_caches():
        cached.cache_clear()
