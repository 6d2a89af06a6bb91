"""The server's limits and how `serve`'s choices reach its worker processes (web/config.py)."""

from __future__ import annotations

import dataclasses

import pytest

from attnlab.web.config import PACKAGE_STATIC, WebSettings, settings_env, settings_from_env


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


def test_serve_choices_survive_the_trip_through_the_environment():
    chosen = WebSettings(
        allowed_hosts=("class.local", "10.0.0.5"), join_token="t0k", server_processes=3
    )
    rebuilt = settings_from_env(settings_env(chosen))
    assert rebuilt.allowed_hosts == chosen.allowed_hosts
    assert rebuilt.join_token == "t0k" and rebuilt.server_processes == 3
    assert settings_from_env(settings_env(WebSettings())) == WebSettings()


@pytest.mark.parametrize("processes", ["0", "-2", "two", "", "1.5"])
def test_a_bad_process_count_falls_back_to_one(processes):
    assert settings_from_env({"ATTNLAB_SERVER_PROCESSES": processes}).server_processes == 1


def test_empty_entries_mean_nothing_was_chosen():
    s = settings_from_env({"ATTNLAB_ALLOWED_HOSTS": ",a.local,,b.local,", "ATTNLAB_TOKEN": ""})
    assert s.allowed_hosts == ("a.local", "b.local") and s.join_token is None
    assert settings_from_env({}) == WebSettings()
