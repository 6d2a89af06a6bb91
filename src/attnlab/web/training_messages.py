"""What the page may say on the training socket (FIG 2): one discriminated union on "type".

Each message is a strict pydantic model whose fields are declared from the same `Param`s as
every other setting (the trainer's `PARAMS` for config, `START_PARAMS` for start, …): the
socket, the CLI and the API cannot disagree about a range. Strict means a JSON integer for an
integer and a boolean for a boolean: "2" or true as `heads` is refused, as is 2.5 as `n`.
`parse_message` reads one text frame into one of these models, or raises InputError naming the
field, with the same kind of sentence a bad figure setting gets.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    TypeAdapter,
    ValidationError,
    create_model,
)

from attnlab.params import Param, ParamError
from attnlab.tabletop import PARAMS, TrainConfig
from attnlab.trainpool.scene import MAX_OBJECTS, N_COLOURS, TABLE_CM, Scene, checked_scene
from attnlab.web.inputs import InputError

_STRICT = ConfigDict(strict=True, extra="forbid", frozen=True)

# The pace of a run. The engine trains ~3000 steps a second, so an unpaced run is over before the
# eye can follow the curve; the page asks for a pace that lets the reader watch step ~225 go by.
START_PARAMS = (
    Param("pace", "int", 0, "steps per second; 0 = as fast as the machine goes", lo=0, hi=100_000),
)


def _one_of(choices: tuple[Any, ...]) -> AfterValidator:
    def check(value: Any) -> Any:
        if value not in choices:
            raise ValueError(f"{value!r} is not allowed; expected one of {choices}")
        return value

    return AfterValidator(check)


def param_type(p: Param) -> Any:
    """A `Param` as a strict pydantic type with its bounds."""
    if p.kind == "bool":
        return StrictBool
    if p.kind == "choice":
        if all(isinstance(c, int) and not isinstance(c, bool) for c in p.choices):
            return Annotated[StrictInt, _one_of(p.choices)]  # Literal[1, 2] would take true
        return Literal[p.choices]  # type: ignore[valid-type]
    if p.kind == "int":
        return Annotated[StrictInt, Field(ge=p.lo, le=p.hi)]
    number = Annotated[float, Field(ge=p.lo, le=p.hi, allow_inf_nan=False)]
    if p.kind == "vector":
        return Annotated[list[number], Field(min_length=p.length, max_length=p.length)]
    return number


def message_model(kind: str, params: tuple[Param, ...], doc: str) -> type[BaseModel]:
    """{"type": kind, <each param>} as a model; a missing setting takes its default."""
    fields: dict[str, Any] = {"type": (Literal[kind], ...)}  # type: ignore[valid-type]
    for p in params:
        fields[p.name] = (param_type(p), Field(default=p.default, description=p.help))
    return create_model(f"{kind.title()}Message", __config__=_STRICT, __doc__=doc, **fields)


ConfigMessage = message_model("config", PARAMS, "A new run (step 0) of this task, heads, seed.")
StartMessage = message_model("start", START_PARAMS, "Train until paused or the step limit.")
PauseMessage = message_model("pause", (), "Stop training; the model is kept.")
ResetMessage = message_model("reset", (), "The same config from step 0.")

_Cm = Annotated[float, Field(ge=0, le=TABLE_CM, allow_inf_nan=False)]
_Colour = Annotated[StrictInt, Field(ge=0, le=N_COLOURS - 1)]


class SceneMessage(BaseModel):
    """The display scene: 1–6 blocks [x, y] in cm on the 80 × 80 table, distinct colours."""

    model_config = _STRICT
    type: Literal["scene"]
    positions: Annotated[list[tuple[_Cm, _Cm]], Field(min_length=1, max_length=MAX_OBJECTS)]
    colours: Annotated[list[_Colour], Field(min_length=1, max_length=MAX_OBJECTS)]
    target: _Colour | None = None
    second: _Colour | None = None

    def scene(self, task: str) -> Scene:
        """The rules between the fields (ParamError), checked once, for the session's task."""
        return checked_scene(
            list(self.positions), list(self.colours), self.target, self.second, task=task
        )


def to_config(message: BaseModel) -> TrainConfig:
    return TrainConfig(task=message.task, heads=message.heads, seed=message.seed)  # type: ignore[attr-defined]


@functools.lru_cache(maxsize=4)  # one per max_step_n a server uses
def message_union(max_step_n: int) -> TypeAdapter[Any]:
    """Every message the page may send; `step`'s n is bounded by the server's limit."""
    n = Param("n", "int", 1, "steps to train now", lo=1, hi=max_step_n)
    step = message_model("step", (n,), "Train n steps now, then pause.")
    union = Union[ConfigMessage, StartMessage, PauseMessage, ResetMessage, step, SceneMessage]  # noqa: UP007
    return TypeAdapter(Annotated[union, Field(discriminator="type")])


def parse_message(text: str, *, max_step_n: int) -> BaseModel:
    """One text frame → its message model; InputError(("message", field), sentence) if bad."""
    try:
        return message_union(max_step_n).validate_json(text)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        raise InputError(_where(first), _sentence(first)) from None


def scene_of(message: SceneMessage, task: str) -> Scene:
    try:
        return message.scene(task)
    except ParamError as err:
        raise InputError(("message", err.name), str(err)) from None


def _where(error: Any) -> tuple[str, ...]:
    loc = error["loc"]
    if error["type"] == "json_invalid":
        return ("message",)
    if len(loc) < 2:  # not an object, no or an unknown "type"
        return ("message", "type")
    return ("message", str(loc[1]))


def _sentence(error: Any) -> str:
    where = _where(error)[-1]
    if where == "type" and error["type"] != "json_invalid":
        kinds = "config, start, pause, reset, step, scene"
        return f'type: expected a JSON object with a "type", one of {kinds}'
    if where == "message":
        return f"invalid JSON: {error['msg']}"
    return f"{where}: {error['msg']}"
