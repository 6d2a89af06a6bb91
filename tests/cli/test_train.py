"""`attnlab train` (cli/train.py): the summary, the JSON interface, sweeps, and clear errors."""

from __future__ import annotations

import json

import pytest

from attnlab.cli import main


def _run(capsys, *argv):
    code = main(["train", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_has_config_history_and_summary(capsys):
    code, out, _ = _run(
        capsys, "--task", "vector", "--heads", "2", "--seed", "3", "--steps", "60", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["config"] == {"task": "vector", "heads": 2, "seed": 3, "steps": 60}
    assert [r["step"] for r in data["history"]] == [0, 25, 50]
    rec = data["history"][-1]
    for key in ("attn_err_cm", "attn_err6_cm", "mlp_err_cm", "mlp_err6_cm"):
        assert isinstance(rec[key], float)
    assert len(rec["head_weight"]) == 2 and len(rec["head_weight"][0]) == 2  # [w_A, w_B] per head
    s = data["summary"]
    assert {"first_below_3cm", "first_below_2cm", "first_below_1cm"} <= set(s)
    assert s["first_below_1cm"] is None  # 60 steps are far too few
    table = data["colour_match"]  # the model at the end: per head A's part and B's, 6 × 6
    assert len(table["table"]) == 2 and len(table["table"][0]) == 2 and len(table["peaks"]) == 2


def test_summary_names_the_steps_and_both_models(capsys):
    code, out, _ = _run(capsys, "--seed", "0", "--steps", "300")
    assert code == 0
    assert "first below 3 cm at step" in out and "2 cm at step" in out
    assert "attention" in out and "MLP" in out and "on the target" in out
    assert "colour match peaks on target 100%" in out  # 300 fetch steps: the table is diagonal


def test_sweep_reports_the_distribution(capsys):
    code, out, _ = _run(capsys, "--sweep", "2", "--steps", "50", "--workers", "1")
    assert code == 0
    assert "seeds 0–1" in out and "median" in out and "failed: 2 of 2 seeds" in out
    code, out, _ = _run(
        capsys, "--sweep", "2", "--seed", "5", "--steps", "25", "--workers", "1", "--json"
    )
    data = json.loads(out)
    assert data["seeds"] == [5, 6] and set(data["histories"]) == {"5", "6"}
    assert data["stats"]["failures"]["count"] == 2


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["--heads", "3"], "heads"),
        (["--task", "juggle"], "task"),
        (["--steps", "20001"], "steps"),
        (["--steps", "ten"], "steps"),
        (["--seed", "-4"], "seed"),
        (["--seed", "1.5"], "seed"),
        (["--sweep", "1000"], "sweep"),
        (["--workers", "0"], "workers"),
    ],
)
def test_wrong_options_get_one_line(capsys, argv, name):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"attnlab train: {name}:")
    assert "Traceback" not in err


def test_unknown_option_is_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["train", "--speed", "9"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--speed" in err


NO_TERMINAL = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")  # rich's "draw anyway" switches


@pytest.mark.parametrize(
    "argv", [["--steps", "200"], ["--sweep", "2", "--steps", "25", "--workers", "1"]]
)
def test_without_a_terminal_no_progress_bar_and_no_escape_codes(capsys, monkeypatch, argv):
    """Under a service manager (or `| tee`), the output is the summary's lines, nothing else."""
    for name in NO_TERMINAL:
        monkeypatch.delenv(name, raising=False)
    code, out, err = _run(capsys, *argv)
    assert code == 0 and out
    assert "\x1b" not in out + err and "\r" not in out + err
    monkeypatch.setenv("FORCE_COLOR", "1")  # the check bites: rich, told it is a terminal, draws
    _, out, err = _run(capsys, *argv)
    assert "\x1b" in out + err
