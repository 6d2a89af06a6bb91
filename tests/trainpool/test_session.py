"""A session's messages are plain data as they are built: `plain()` would change nothing."""

from __future__ import annotations

import json

import pytest

from attnlab.plain import plain
from attnlab.tabletop import TrainConfig
from attnlab.trainpool.scene import DEFAULT_SCENE
from attnlab.trainpool.session import TrainingSession


@pytest.mark.parametrize(("task", "heads"), [("fetch", 1), ("vector", 2)])
def test_progress_messages_are_already_plain(task, heads) -> None:
    config = TrainConfig(task=task, heads=heads, seed=4)
    session = TrainingSession(config, max_steps=1000, max_step_n=100)
    if not DEFAULT_SCENE.fits(task):
        session.configure(config)
    records = session.train(60)
    for message in (session.progress(records), session.full_progress(), session.progress([])):
        assert message == plain(message)
        text = json.dumps(message, allow_nan=False, separators=(",", ":"))
        assert text == json.dumps(plain(message), allow_nan=False, separators=(",", ":"))
