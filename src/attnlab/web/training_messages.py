"""What the page may say on the training socket (FIG 2), checked like every other setting.

A message is a JSON object with a "type"; its other keys are settings declared as `Param`s and
validated by `attnlab.params`, so a bad message is refused with the same kind of sentence a bad
figure setting gets ("n: 900 is out of range; expected an integer in [1, 500]").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from attnlab.params import Param, ParamError, coerce, validate
from attnlab.web.inputs import InputError, parse_json

N_COLOURS = 6  # the tabletop's colours: red, orange, yellow, green, blue, purple (by index)
TABLE_CM = 80.0
MAX_OBJECTS = 6


def config_params() -> tuple[Param, ...]:
    """task, heads, seed: the trainer's own declaration, shared with `attnlab train`."""
    from attnlab.tabletop import PARAMS  # late: the server starts even if training cannot

    return PARAMS


@dataclass(frozen=True)
class Scene:
    """The display scene whose predictions go with every progress message (cm, colour indices).

    target is the colour to fetch (A in the vector task); second is B (ignored by fetch).
    """

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


DEFAULT_SCENE = Scene(
    positions=((18.0, 58.0), (58.0, 62.0), (30.0, 20.0), (64.0, 26.0)),
    colours=(0, 4, 3, 1),
    target=0,
    second=4,
)


# The pace of a run. The engine trains ~3000 steps a second, so an unpaced run is over before the
# eye can follow the curve; the page asks for a pace that lets the reader watch step ~225 go by.
START_PARAMS = (
    Param(
        "pace",
        "int",
        0,
        "steps per second; 0 = as fast as the machine goes",
        lo=0,
        hi=100_000,
    ),
)


def parse_message(
    text: str | bytes, *, task: str, max_step_n: int
) -> tuple[str, dict[str, Any] | Scene]:
    """One client frame → (type, checked arguments); InputError says what is wrong."""
    raw = parse_json(text, where=("message",))
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        raise InputError(
            ("message", "type"), 'expected a JSON object with a "type", e.g. {"type": "start"}'
        )
    kind = raw.pop("type")
    parsers: dict[str, Callable[[dict[str, Any]], Any]] = {
        "config": lambda r: validate(config_params(), r),
        "start": lambda r: validate(START_PARAMS, r),
        "pause": lambda r: validate((), r),
        "reset": lambda r: validate((), r),
        "step": lambda r: validate((Param("n", "int", 1, "steps", lo=1, hi=max_step_n),), r),
        "scene": lambda r: parse_scene(r, task=task),
    }
    if kind not in parsers:
        raise InputError(
            ("message", "type"), f"unknown message type {kind!r}; one of {', '.join(parsers)}"
        )
    try:
        return kind, parsers[kind](raw)
    except ParamError as err:
        raise InputError(("message", err.name), str(err)) from None


def parse_scene(raw: Mapping[str, Any], *, task: str) -> Scene:
    """A scene from the page: 1–6 objects of distinct colours on the 80 × 80 cm table."""
    known = {"positions", "colours", "target", "second"}
    for name in raw:
        if name not in known:
            raise ParamError(name, f"unknown scene field; allowed: {', '.join(sorted(known))}")
    positions = raw.get("positions")
    if not isinstance(positions, list) or not 1 <= len(positions) <= MAX_OBJECTS:
        raise ParamError("positions", f"expected a list of 1 to {MAX_OBJECTS} [x, y] pairs in cm")
    n = len(positions)
    if not all(isinstance(p, list) and len(p) == 2 for p in positions):
        raise ParamError("positions", "each position must be an [x, y] pair in cm")
    flat_param = Param("positions", "vector", None, lo=0, hi=TABLE_CM, length=2 * n)
    flat = coerce(flat_param, [x for p in positions for x in p])
    colours = _colours(raw.get("colours"), n)
    target = coerce(_colour("target"), raw.get("target", colours[0]))
    if target not in colours:
        raise ParamError("target", f"colour {target} is not on the table (colours {list(colours)})")
    second = _second(raw, colours, target, task)
    pairs = tuple((flat[2 * i], flat[2 * i + 1]) for i in range(n))
    return Scene(positions=pairs, colours=colours, target=target, second=second)


def _colour(name: str) -> Param:
    return Param(name, "int", 0, "colour index (0 red … 5 purple)", lo=0, hi=N_COLOURS - 1)


def _colours(raw: Any, n: int) -> tuple[int, ...]:
    if not isinstance(raw, list) or len(raw) != n:
        raise ParamError(
            "colours", f"expected {n} colour indices (one per position), each 0..{N_COLOURS - 1}"
        )
    colours = tuple(coerce(_colour("colours"), c) for c in raw)
    if len(set(colours)) != n:
        raise ParamError("colours", f"colours must be distinct, got {list(colours)}")
    return colours


def _second(raw: Mapping[str, Any], colours: tuple[int, ...], target: int, task: str) -> int:
    """B of the vector task: another colour on the table (fetch ignores it)."""
    others = [c for c in colours if c != target]
    if task == "vector" and not others:
        raise ParamError("positions", "the vector task needs at least 2 objects")
    default = others[0] if others else target
    second = coerce(_colour("second"), raw.get("second", default))
    if task == "vector" and second not in others:
        raise ParamError(
            "second", f"must be a colour on the table other than the target, one of {others}"
        )
    return second


def scene_fits(scene: Scene, task: str) -> bool:
    """Whether a scene chosen under one task still works for `task` (vector needs A ≠ B)."""
    try:
        parse_scene(scene.to_dict(), task=task)
    except ParamError:
        return False
    return True
