"""What a learner's page may say on /ws/class: one strict, bounded union on "type".

- hello    {"seat": "<the page's random id>", "name": "…"}: first, once (the seat is given)
- status   {"shown", "training", "queued"}: whenever one changes, and every ~15 s (alive)
- progress {"tries": [ids], "exercises": {id: first option}}: the page's progress as it is
- name     {"name": "…"}: the learner typed a display name (optional; "" takes it back)
- result   {"id", "seed", "step", "attn_err_cm", "mlp_err_cm"}: "one seed each", its FIG 2's
           final errors (`seeds.accept` checks them against the seat's own seed)
Ids that are not the lesson's (`lessonids`: a page's storage may keep an older lesson's) are
left out, not counted; a name is at most NAME_CHARS printable characters.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from attnlab.classroom.lessonids import lesson_ids
from attnlab.params import ParamError

NAME_CHARS = 24
_STRICT = ConfigDict(strict=True, extra="forbid", frozen=True)
_Name = Annotated[str, Field(max_length=NAME_CHARS)]


def _printable(name: str) -> str:
    if not all(c.isprintable() for c in name):
        raise ValueError("a name holds printable characters only")
    return name.strip()


class Hello(BaseModel):
    model_config = _STRICT
    type: Literal["hello"]
    seat: Annotated[str, Field(pattern=r"^[0-9a-f]{16,64}$")]
    name: _Name = ""
    _name = field_validator("name")(_printable)


class Status(BaseModel):
    model_config = _STRICT
    type: Literal["status"]
    shown: StrictBool
    training: StrictBool = False
    queued: StrictBool = False


class Progress(BaseModel):
    model_config = _STRICT
    type: Literal["progress"]
    tries: Annotated[list[str], Field(max_length=64)] = []
    exercises: Annotated[dict[str, StrictInt], Field(max_length=64)] = {}

    @field_validator("tries")
    @classmethod
    def _known_tries(cls, ids: list[str]) -> list[str]:
        known = lesson_ids().try_ids
        return sorted({i for i in ids if i in known})

    @field_validator("exercises")
    @classmethod
    def _known_options(cls, chosen: dict[str, int]) -> dict[str, int]:
        ids = lesson_ids()
        return {e: o for e, o in chosen.items() if 0 <= o < ids.options(e)}


class Name(BaseModel):
    model_config = _STRICT
    type: Literal["name"]
    name: _Name
    _name = field_validator("name")(_printable)


_Error = Annotated[float, Field(ge=0, le=1e4, allow_inf_nan=False)]


class Result(BaseModel):
    model_config = _STRICT
    type: Literal["result"]
    id: Annotated[str, Field(pattern=r"^[0-9a-f]{1,32}$")]
    seed: Annotated[StrictInt, Field(ge=0, le=2**31)]
    step: Annotated[StrictInt, Field(ge=0, le=10**6)]
    attn_err_cm: _Error
    mlp_err_cm: _Error


LearnerMessage = Hello | Status | Progress | Name | Result
_UNION: TypeAdapter[LearnerMessage] = TypeAdapter(
    Annotated[Union[Hello, Status, Progress, Name, Result], Field(discriminator="type")]  # noqa: UP007
)


def parse_learner(text: str) -> LearnerMessage:
    """One text frame → its message, or ParamError(field, sentence)."""
    try:
        return _UNION.validate_json(text)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = str(first["loc"][1]) if len(first["loc"]) > 1 else "type"
        if first["type"] == "json_invalid":
            return _refuse("message", f"invalid JSON: {first['msg']}")
        if where == "type" and len(first["loc"]) < 2:
            return _refuse("type", 'expected a JSON object whose "type" is hello, status, '
                           "progress, name or result")  # fmt: skip
        return _refuse(where, f"{where}: {first['msg']}")


def _refuse(where: str, sentence: str) -> LearnerMessage:
    raise ParamError(where, sentence.removeprefix(f"{where}: "))
