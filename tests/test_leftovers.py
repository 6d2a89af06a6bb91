"""The suite's own no-leftover check (tests/leftovers.py) fails a run that leaves a process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.leftovers import SESSION_MARK, leftovers, mark_session, marked

ROOT = Path(__file__).resolve().parent.parent


def _run_inner_suite(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    """pytest on one test file, in a fresh process, with this repository's conftest."""
    (tmp_path / "conftest.py").write_text("from tests.conftest import *  # noqa: F403\n")
    (tmp_path / "test_inner.py").write_text(textwrap.dedent(body))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_a_run_that_leaves_a_process_fails_and_names_it(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    got = _run_inner_suite(
        tmp_path,
        f"""
        import subprocess
        def test_forgets_its_child():
            child = subprocess.Popen(["sleep", "60"])
            open({str(pid_file)!r}, "w").write(str(child.pid))
        """,
    )
    assert got.returncode == 1, got.stdout + got.stderr  # the test passed, the run did not
    assert "1 passed" in got.stdout and "still running" in got.stdout
    assert "sleep 60" in got.stdout
    pid = int(pid_file.read_text())
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text()


def test_a_run_that_ends_its_processes_passes(tmp_path: Path) -> None:
    got = _run_inner_suite(
        tmp_path,
        """
        import subprocess
        def test_ends_its_child():
            child = subprocess.Popen(["sleep", "60"])
            child.kill()
            child.wait()
        """,
    )
    assert got.returncode == 0, got.stdout + got.stderr


def test_only_this_sessions_processes_are_counted(monkeypatch) -> None:
    monkeypatch.setenv(SESSION_MARK, "outer")
    mark = mark_session()
    other = subprocess.Popen(["sleep", "30"], env={**os.environ, SESSION_MARK: "another run"})
    ours = subprocess.Popen(["sleep", "30"])
    try:
        assert ours.pid in marked(mark) and other.pid not in marked(mark)
        assert list(leftovers(mark, grace_s=0)) == [ours.pid]  # and it was killed
        assert ours.wait(5) == -9
    finally:
        other.kill()
        other.wait()
        ours.kill()
        ours.wait()
