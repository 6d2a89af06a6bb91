"""The display scene of FIG 2: the blocks whose predictions go with every progress message.

Checked once, where it arrives (the socket's `scene` message); the checked `Scene` then travels
to a worker process as it is. Only the task can make a checked scene unusable (the vector task
needs B ≠ A on the table), so `fits` is the one check a scene meets again, after a new config.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attnlab.params import ParamError
from attnlab.tabletop.scenes import MAX_SLOTS as MAX_OBJECTS
from attnlab.tabletop.scenes import N_COLOURS, TABLE_CM  # colours by index: red, orange, …

__all__ = ["MAX_OBJECTS", "N_COLOURS", "TABLE_CM", "Scene", "checked_scene"]


@dataclass(frozen=True)
class Scene:
    """Blocks in cm with colour indices; target is the colour to fetch (A), second is B."""

    positions: tuple[tuple[float, float], ...]
    colours: tuple[int, ...]
    target: int
    second: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "positions": [list(p) for p in self.positions],
            "colours": list(self.colours),
            "target": self.target,
            "second": self.second,
        }

    def fits(self, task: str) -> bool:
        """Whether the scene works for `task` (fetch takes any; vector needs B ≠ A on the table)."""
        return task != "vector" or (self.second in self.colours and self.second != self.target)


DEFAULT_SCENE = Scene(
    positions=((18.0, 58.0), (58.0, 62.0), (30.0, 20.0), (64.0, 26.0)),
    colours=(0, 4, 3, 1),
    target=0,
    second=4,
)


def checked_scene(
    positions: list[tuple[float, float]],
    colours: list[int],
    target: int | None,
    second: int | None,
    *,
    task: str,
) -> Scene:
    """A scene from typed fields (types and ranges already checked): the rules between them.

    ParamError names the field: one colour per position, colours distinct, the target on the
    table (default: the first block), B another block on the table (vector; fetch ignores it).
    """
    if len(colours) != len(positions):
        raise ParamError("colours", f"expected {len(positions)} colour indices, one per position")
    if len(set(colours)) != len(colours):
        raise ParamError("colours", f"colours must be distinct, got {colours}")
    target = colours[0] if target is None else target
    if target not in colours:
        raise ParamError("target", f"colour {target} is not on the table (colours {colours})")
    others = [c for c in colours if c != target]
    if task == "vector" and not others:
        raise ParamError("positions", "the vector task needs at least 2 objects")
    second = (others[0] if others else target) if second is None else second
    scene = Scene(tuple((float(x), float(y)) for x, y in positions), tuple(colours), target, second)
    if not scene.fits(task):
        raise ParamError(
            "second", f"must be a colour on the table other than the target, one of {others}"
        )
    return scene
