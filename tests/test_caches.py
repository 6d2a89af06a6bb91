"""Every cache in attnlab has a size bound, and a claims re-run clears every claims cache."""

from __future__ import annotations

import functools
import importlib
import pkgutil
from types import ModuleType

import attnlab


def _modules() -> list[ModuleType]:
    names = [m.name for m in pkgutil.walk_packages(attnlab.__path__, "attnlab.")]
    return [importlib.import_module(n) for n in names if not n.endswith("__main__")]


def _caches(module: ModuleType) -> dict[str, functools._lru_cache_wrapper]:
    """The functools caches defined in `module` (not imported into it)."""
    return {
        f"{module.__name__}.{name}": obj
        for name, obj in vars(module).items()
        if isinstance(obj, functools._lru_cache_wrapper)
        and getattr(obj, "__module__", None) == module.__name__
    }


def test_every_cache_has_a_size_bound() -> None:
    caches = {k: v for m in _modules() for k, v in _caches(m).items()}
    assert "attnlab.figures.scaling.curves" in caches and len(caches) > 10  # the walk finds them
    unbounded = [name for name, c in caches.items() if c.cache_parameters()["maxsize"] is None]
    assert unbounded == []


def test_clear_caches_clears_every_cache_of_the_claims_checks() -> None:
    from attnlab.claims import claim_caches, clear_caches, run_claim

    checks = [m for m in _modules() if m.__name__.startswith("attnlab.claims.fig")]
    found = {c for m in checks for c in _caches(m).values()} | {run_claim}
    assert found == set(claim_caches())  # a new cache in a claims module must be listed there
    run_claim("F1.1")
    assert run_claim.cache_info().currsize > 0
    clear_caches()
    assert all(c.cache_info().currsize == 0 for c in claim_caches())
