"""Messages on the training socket: one strict union, checked like every other setting."""

from __future__ import annotations

import json

import pytest

from attnlab.tabletop import TrainConfig
from attnlab.trainpool.scene import DEFAULT_SCENE
from attnlab.web.inputs import InputError
from attnlab.web.training_messages import (
    ConfigMessage,
    SceneMessage,
    parse_message,
    scene_of,
    to_config,
)


def _parse(message: object):
    text = message if isinstance(message, str) else json.dumps(message)
    return parse_message(text, max_step_n=500)


def test_good_messages() -> None:
    config = _parse({"type": "config", "task": "vector", "heads": 2, "seed": 7})
    assert isinstance(config, ConfigMessage)
    assert to_config(config) == TrainConfig(task="vector", heads=2, seed=7)
    assert to_config(_parse({"type": "config"})) == TrainConfig()  # missing settings: defaults
    assert _parse({"type": "step", "n": 500}).n == 500
    for kind in ("pause", "reset"):
        assert _parse({"type": kind}).type == kind
    assert _parse({"type": "start"}).pace == 0  # unpaced unless asked
    assert _parse({"type": "start", "pace": 150}).pace == 150


@pytest.mark.parametrize(
    ("message", "where"),
    [
        ("not json", "message"),
        ("[1, 2]", "type"),
        ({"kind": "start"}, "type"),
        ({"type": 3}, "type"),
        ({"type": "explode"}, "type"),
        ({"type": "step", "n": 0}, "n"),
        ({"type": "step", "n": 501}, "n"),
        ({"type": "step", "n": 2.5}, "n"),
        ({"type": "step", "n": "lots"}, "n"),
        ({"type": "step", "n": 1e999}, "n"),
        ({"type": "step", "n": True}, "n"),
        ({"type": "config", "heads": 3}, "heads"),
        ({"type": "config", "heads": "2"}, "heads"),  # strict: a string is not an integer
        ({"type": "config", "heads": True}, "heads"),  # nor is a boolean
        ({"type": "config", "heads": 2.0}, "heads"),
        ({"type": "config", "task": "juggle"}, "task"),
        ({"type": "config", "seed": -1}, "seed"),
        ({"type": "config", "seed": 2**40}, "seed"),
        ({"type": "config", "seed": "7"}, "seed"),
        ({"type": "start", "pace": "150"}, "pace"),
        ({"type": "start", "now": True}, "now"),
    ],
)
def test_bad_messages_name_what_is_wrong(message, where) -> None:
    with pytest.raises(InputError) as err:
        _parse(message)
    assert err.value.loc[-1] == where
    assert err.value.msg


def _scene(**change: object) -> dict:
    scene = {"type": "scene", **DEFAULT_SCENE.to_dict()}
    scene.update(change)
    return scene


def test_a_scene_is_read_in_cm_and_colour_indices() -> None:
    message = {"type": "scene", "positions": [[0, 80], [40.5, 3]], "colours": [5, 2], "target": 2}
    parsed = _parse(message)
    assert isinstance(parsed, SceneMessage)
    scene = scene_of(parsed, "fetch")
    assert scene.positions == ((0.0, 80.0), (40.5, 3.0))
    assert (scene.colours, scene.target, scene.second) == ((5, 2), 2, 5)


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"positions": []}, "positions"),
        ({"positions": [[1, 1]] * 7, "colours": [0, 1, 2, 3, 4, 5, 0]}, "positions"),
        ({"positions": [[1, 2, 3]] * 4}, "positions"),
        ({"positions": [[81, 1], [1, 1], [2, 2], [3, 3]]}, "positions"),
        ({"positions": [[float("nan"), 1]] + [[1, 1]] * 3}, "positions"),
        ({"positions": "40,40"}, "positions"),
        ({"colours": [0, 0, 1, 2]}, "colours"),
        ({"colours": [0, 1, 2]}, "colours"),
        ({"colours": [0, 1, 2, 6]}, "colours"),
        ({"colours": [0, 1, 2, True]}, "colours"),
        ({"target": 5}, "target"),
        ({"target": "0"}, "target"),
        ({"extra": 1}, "extra"),
    ],
)
def test_bad_scenes_are_refused(change, where) -> None:
    with pytest.raises(InputError) as err:
        scene_of(_parse(_scene(**change)), "fetch")
    assert err.value.loc[-1] == where


def test_the_vector_task_needs_a_second_object_on_the_table() -> None:
    one = _parse(_scene(positions=[[10, 10]], colours=[3], target=3, second=0))
    assert scene_of(one, "fetch").second == 0  # fetch ignores B
    with pytest.raises(InputError):
        scene_of(one, "vector")
    with pytest.raises(InputError):
        scene_of(_parse(_scene(second=DEFAULT_SCENE.target)), "vector")
    assert DEFAULT_SCENE.fits("vector")
