"""Which figure requests are answered on the event loop, and which in the thread pool.

A warm answer (a figure already drawn, at a seed it drew recently) takes a few tenths of a
millisecond; handing it to the thread pool and back cost more than that (0.4 ms of the
process's CPU per FIG 4 request through the app in one process, 1.04 against 0.64 ms). A cold
one (the figure's first answer, a seed it has not drawn: 10–50 ms of drawing weights and
scenes) goes to the pool, so the loop is never held that long. The figures keep at least
WARM_SEEDS seeds in their per-seed caches, so a seed remembered here is still drawn there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

WARM_SEEDS = 8  # the smallest per-seed cache of a figure (scaling's draws) holds this many


class WarmFigures:
    """Per figure: whether it has answered, and the last WARM_SEEDS seeds it answered for."""

    def __init__(self) -> None:
        self._seeds: dict[str, dict[Any, None]] = {}

    def warm(self, name: str, raw: Mapping[str, Any]) -> bool:
        """True if `name` answered before, at this seed (or at its default, given none)."""
        seeds = self._seeds.get(name)
        return seeds is not None and _seed(raw) in seeds

    def answered(self, name: str, raw: Mapping[str, Any]) -> None:
        """`name` answered `raw`: its caches now hold that seed."""
        seeds = self._seeds.setdefault(name, {})
        seeds.pop(_seed(raw), None)
        seeds[_seed(raw)] = None  # the newest last
        while len(seeds) > WARM_SEEDS:
            del seeds[next(iter(seeds))]


def _seed(raw: Mapping[str, Any]) -> Any:
    """The seed asked for, as a key (an int, None for none; anything else never matches a
    figure's own cache, so it is not warm: any other type is kept as its repr)."""
    seed = raw.get("seed") if isinstance(raw, Mapping) else None
    return seed if seed is None or type(seed) is int else repr(seed)
