"""The server's limits and how `serve`'s choices reach its server processes (web/config.py)."""

from __future__ import annotations

import dataclasses

import pytest

from attnlab.web.config import PACKAGE_STATIC, WebSettings


def test_the_page_ships_inside_the_package():
    assert (PACKAGE_STATIC / "index.html").is_file()
    assert WebSettings().static_dir == PACKAGE_STATIC


def test_settings_are_frozen_and_bounded_by_default():
    s = WebSettings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.max_steps = 10**9  # type: ignore[misc]
    assert s.allowed_hosts == () and s.join_token is None  # loopback only, no token
    limits = (
        "max_steps", "max_step_n", "max_body_bytes", "max_message_bytes",
        "max_open_sockets", "inbox_messages", "outbox_messages", "max_connections",
    )  # fmt: skip
    for name in limits:
        assert 0 < getattr(s, name) < 10**9, name


def test_serve_choices_survive_the_trip_to_a_server_process():
    """`serve --workers N` hands each spawned server process its settings, pickled."""
    import pickle

    chosen = WebSettings(
        allowed_hosts=("class.local", "10.0.0.5"), join_token="t0k", server_processes=3
    )
    assert pickle.loads(pickle.dumps(chosen)) == chosen
