"""README's "Run it as a service": the systemd unit as written, checked by systemd, and run.

The unit is stated once, in docs/attnlab.service; the README shows the same text (held equal
here). `systemd-analyze verify` reads it as systemd would (offline: no systemd needs to run) with
only its ExecStart pointed at this checkout's `attnlab`; then the unit's own command runs with
its output going to pipes, as under journald, and is stopped as `KillMode=mixed` stops it.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from attnlab.cli import build_parser
from tests.ports import free_port

pytestmark = pytest.mark.server  # starts a server process: not in `make check`

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "docs" / "attnlab.service"
README = ROOT / "README.md"
INSTALLED = "/opt/attnlab/.venv/bin/attnlab"  # where the unit says attnlab is installed
HERE = Path(sys.executable).with_name("attnlab")  # this checkout's, in its .venv
LINE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ (DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w.]+ .+")
QR_BLOCKS = ("▀", "▄", "█")


def _settings() -> dict[str, str]:
    """The unit's `Key=value` lines (each key appears once in ours)."""
    pairs = [line.split("=", 1) for line in UNIT.read_text().splitlines() if "=" in line]
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), "a key repeats: the checks below read one value each"
    return dict(pairs)


def _command(port: int) -> list[str]:
    """The unit's ExecStart with this checkout's attnlab, on `port` instead of 8000."""
    program, *argv = shlex.split(_settings()["ExecStart"])
    assert program == INSTALLED and argv.count("8000") == 1
    return [str(HERE), *(str(port) if a == "8000" else a for a in argv)]


def test_the_readme_shows_the_unit_file_as_it_is() -> None:
    blocks = re.findall(r"```ini\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert UNIT.read_text() in blocks


def test_the_unit_runs_serve_for_a_class_and_stops_it_as_the_tree_needs() -> None:
    unit = _settings()
    args = build_parser().parse_args(shlex.split(unit["ExecStart"])[1:])  # our own CLI reads it
    assert (args.command, args.classroom, args.no_browser, args.port) == ("serve", 1, 1, "8000")
    assert unit["EnvironmentFile"] == "/etc/attnlab/env"  # ATTNLAB_TOKEN: the class token
    assert (unit["Restart"], unit["KillMode"]) == ("on-failure", "mixed")
    assert int(unit["TimeoutStopSec"]) > 0 and unit["User"] != "root"


def _systemd_analyze() -> str:
    found = shutil.which("systemd-analyze")
    if found is None:
        if os.environ.get("CI"):  # make test installs it: never skip there
            pytest.fail("systemd-analyze is not installed (make systemd)")
        pytest.skip("systemd-analyze is not installed (make systemd)")
    return found


def test_systemd_finds_nothing_wrong_with_the_unit(tmp_path) -> None:
    analyze = _systemd_analyze()
    text = UNIT.read_text()
    assert text.count(INSTALLED) == 1 and HERE.is_file()
    unit = tmp_path / "attnlab.service"  # verify checks that ExecStart's program exists
    unit.write_text(text.replace(INSTALLED, str(HERE)))
    run = subprocess.run(
        [analyze, "verify", "--man=no", str(unit)], capture_output=True, text=True, timeout=60
    )
    # An unknown key or a bad value is only a warning (exit 0): any output is a failure.
    assert (run.returncode, run.stdout + run.stderr) == (0, "")


def _healthy(port: int, deadline: float) -> dict:
    while time.monotonic() < deadline:
        try:
            answer = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
            if answer.status_code == 200:
                return answer.json()
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise AssertionError("/healthz never answered 200")


def _children(pid: int) -> list[int]:
    tasks = Path(f"/proc/{pid}/task").iterdir()
    return [int(c) for t in tasks for c in (t / "children").read_text().split()]


def _running(pid: int) -> bool:
    try:
        return not Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")
def test_the_units_command_logs_lines_and_stops_its_tree_on_sigterm() -> None:
    port, stop_s = free_port(), float(_settings()["TimeoutStopSec"])
    name, value = _settings()["Environment"].split("=", 1)  # as systemd sets it
    env = {**os.environ, name: value, "ATTNLAB_TOKEN": "from-the-environment-file"}
    env.pop("FORCE_COLOR", None)
    proc = subprocess.Popen(
        _command(port), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        health = _healthy(port, time.monotonic() + 90)
        tree = _children(proc.pid)  # training workers, the claims process, …
        proc.send_signal(signal.SIGTERM)  # KillMode=mixed: the main process only
        out, err = proc.communicate(timeout=stop_s)  # before systemd would SIGKILL the rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert health["status"] == "ok" and health["training"]["workers_alive"] >= 1
    assert len(tree) >= health["training"]["workers"]
    deadline = time.monotonic() + stop_s
    while any(map(_running, tree)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(map(_running, tree)), "a child outlived the server"
    assert "?token=from-the-environment-file" in out
    assert not any(block in out for block in QR_BLOCKS)  # not a terminal: no QR code
    lines = err.splitlines()
    assert any(" capacity " in line for line in lines), err  # the teacher's number is logged
    assert all(LINE.fullmatch(line) for line in lines), err  # one line an event, every one
