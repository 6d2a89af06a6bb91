"""The command line: clear one-line errors, JSON for scripts (in-process, through main())."""

from __future__ import annotations

import json

import pytest

from attnlab.cli import main


def test_no_command_prints_help(capsys):
    assert main([]) == 0
    assert "COMMAND" in capsys.readouterr().out


def test_unknown_command_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["frobnicate"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice" in err and "Traceback" not in err


def test_reproduce_json_for_scripts(capsys):
    assert main(["reproduce", "--only", "F7.1,F6.1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == ["F6.1", "F7.1"]
    for r in rows:
        assert {"id", "statement", "lesson", "measured", "ok"} <= r.keys() and r["ok"] is True


def test_reproduce_unknown_id(capsys):
    assert main(["reproduce", "--only", "F9.9"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "F9.9" in err


def test_figure_json(capsys):
    assert main(["figure", "tokens", "--set", "cameras=4", "--set", "patch=8", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["figure"] == "tokens" and data["settings"]["cameras"] == 4


@pytest.mark.parametrize(
    ("setting", "name"),
    [("patch=7", "patch"), ("cameras=1000000000", "cameras"), ("nope=1", "nope")],
)
def test_figure_bad_setting_names_it(capsys, setting, name):
    assert main(["figure", "tokens", "--set", setting]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{name}:" in err


def test_figure_help_lists_settings(capsys):
    with pytest.raises(SystemExit):
        main(["figure", "scaling", "--help"])
    out = capsys.readouterr().out
    assert "d_k" in out and "default" in out


def test_reproduce_without_a_terminal_writes_no_escape_codes(capsys, monkeypatch):
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    assert main(["reproduce", "--only", "F1.1"]) == 0
    out, err = capsys.readouterr()
    assert "F1.1" in out and "all hold" in out
    assert "\x1b" not in out + err and "\r" not in out + err
