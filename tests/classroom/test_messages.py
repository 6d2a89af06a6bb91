"""What a learner's page may say: strict, bounded, the lesson's ids only; anything else is
refused with a sentence naming the field (never a show, never an unknown type)."""

from __future__ import annotations

import json

import pytest

from attnlab.classroom.messages import NAME_CHARS, Hello, Progress, Status, parse_learner
from attnlab.params import ParamError

SEAT = "0123456789abcdef" * 2


def test_the_four_messages_are_read() -> None:
    hello = parse_learner(json.dumps({"type": "hello", "seat": SEAT, "name": "  Ada "}))
    assert isinstance(hello, Hello) and hello.name == "Ada"
    status = parse_learner('{"type": "status", "shown": false, "training": true}')
    assert isinstance(status, Status) and (status.shown, status.training, status.queued) == (
        False, True, False)  # fmt: skip


def test_ids_that_are_not_the_lesson_s_are_left_out() -> None:
    text = json.dumps({"type": "progress", "tries": ["sharpen", "not-a-task", "sharpen"],
                       "exercises": {"E1": 1, "E1x": 0, "E2": 9}})  # fmt: skip
    progress = parse_learner(text)
    assert isinstance(progress, Progress)
    assert progress.tries == ["sharpen"] and progress.exercises == {"E1": 1}


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ({"type": "show", "figure": "scaling"}, "type"),
        ({"type": "hello", "seat": "XYZ"}, "seat"),
        ({"type": "hello", "seat": SEAT, "name": "x" * (NAME_CHARS + 1)}, "name"),
        ({"type": "name", "name": "a\u0000b"}, "name"),
        ({"type": "status", "shown": 1}, "shown"),
        ({"type": "status", "shown": True, "extra": 1}, "extra"),
        ({"type": "progress", "tries": ["sharpen"] * 65}, "tries"),
        ([1, 2], "type"),
    ],
)
def test_a_bad_message_is_refused_naming_its_field(message, field: str) -> None:
    with pytest.raises(ParamError) as err:
        parse_learner(json.dumps(message))
    assert err.value.name == field


def test_text_that_is_not_json_is_refused() -> None:
    with pytest.raises(ParamError, match="invalid JSON"):
        parse_learner("{nope")
