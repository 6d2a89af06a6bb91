"""Child processes (attnlab/processes.py): orphans end themselves, stops are bounded, and a map
over processes leaves no child behind, whatever ends it."""

from __future__ import annotations

import logging
import math
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from attnlab.processes import (
    GRACE_S,
    WATCH_S,
    ChunkFailed,
    Stopped,
    as_child,
    map_in_processes,
    spawn_context,
    stop_processes,
)
from tests.proctree import RESOURCE_TRACKER, alive, cmdline, descendants, kill_all, wait_gone

ORPHAN_S = 2.0  # the bound: a worker whose parent dies ends within this (typical: 0.25 s)

# A parent that starts one child (which watches it and would otherwise sleep for a minute),
# prints the child's pid, and sleeps; the test SIGKILLs it.
PARENT = textwrap.dedent(
    """
    import time
    from attnlab.processes import as_child, spawn_context

    def child():
        as_child()
        time.sleep(60)

    if __name__ == "__main__":
        proc = spawn_context().Process(target=child, daemon=True)
        proc.start()
        print(proc.pid, flush=True)
        time.sleep(60)
    """
)


# A caller that maps two minute-long chunks and is sent SIGTERM meanwhile.
MAPPER = textwrap.dedent(
    """
    import time
    from attnlab.processes import map_in_processes

    if __name__ == "__main__":
        print("mapping", flush=True)
        map_in_processes(time.sleep, [60.0, 60.0])
    """
)


def _children_of_this_test(before: set[int]) -> list[int]:
    """Our live descendants started since `before`, the resource tracker aside (it lives as
    long as this interpreter: it is multiprocessing's, shared by every test)."""
    new = set(descendants(os.getpid())) - before
    return [p for p in new if RESOURCE_TRACKER not in cmdline(p)]


def test_a_child_ends_within_2_s_of_its_parent_being_sigkilled(tmp_path) -> None:
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    tree: list[int] = []
    try:
        child = int(parent.stdout.readline())
        tree = descendants(parent.pid)  # the child and the resource tracker
        assert child in tree and alive(child)
        assert any(RESOURCE_TRACKER in cmdline(p) for p in tree)  # it must end too
        time.sleep(2 * WATCH_S)  # the child is past its start-up, watching
        parent.kill()
        t0 = time.monotonic()
        parent.wait(timeout=10)
        assert wait_gone(tree, ORPHAN_S) == [], "an orphan outlived its parent by 2 s"
        print(f"orphans ended {time.monotonic() - t0:.3f} s after SIGKILL")
    finally:
        parent.kill()
        parent.wait(timeout=10)
        parent.stdout.close()
        kill_all(tree)


@pytest.fixture
def spawnable(monkeypatch) -> None:
    """This module importable by name in a spawned child (which unpickles its target from
    here): pytest imports tests without putting the project's root on sys.path."""
    monkeypatch.syspath_prepend(str(Path(__file__).parents[1]))


def _ignore_sigterm_and_sleep(ready: Any) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    ready.set()
    time.sleep(60)


@pytest.mark.usefixtures("spawnable")
def test_stop_processes_kills_a_child_that_ignores_sigterm_within_its_deadline() -> None:
    ready = spawn_context().Event()
    procs = [spawn_context().Process(target=_ignore_sigterm_and_sleep, args=(ready,), daemon=True)]
    procs.append(spawn_context().Process(target=time.sleep, args=(60,), daemon=True))
    procs.append(spawn_context().Process(target=time.sleep, args=(0,), daemon=True))
    never_started = spawn_context().Process(target=time.sleep, args=(0,))
    try:
        for p in procs:
            p.start()
        procs[2].join(10)  # already ended: no error
        assert ready.wait(30)  # the first has set its SIGTERM handler
        # One deadline for all, then the graces: typical 2.55 s. A deadline each would take at
        # least 2 × 2 s for the two that wait it out, then a grace: 4.5 s; the bound between
        # leaves a busy machine 1.45 s of slack.
        timeout_s = 2.0
        t0 = time.monotonic()
        stop_processes([*procs, never_started], timeout_s=timeout_s)
        took = time.monotonic() - t0
        assert not any(p.is_alive() for p in procs)
        assert procs[0].exitcode == -signal.SIGKILL  # ignored SIGTERM: killed
        assert procs[1].exitcode == -signal.SIGTERM  # terminated, as it ignored nothing
        assert took < timeout_s + 2 * GRACE_S + 1.0
    finally:
        for p in procs:
            if p.pid is not None:
                p.kill()
                p.join(5)


def _a_child_that_warns() -> None:
    as_child()
    logging.getLogger("attnlab.test").warning("a warning from the child")
    try:
        raise RuntimeError("a second line")
    except RuntimeError:
        logging.getLogger("attnlab.test").exception("a traceback from the child")
    os.kill(os.getpid(), signal.SIGINT)  # Ctrl+C: ignored
    sys.exit(0 if signal.getsignal(signal.SIGINT) is signal.SIG_IGN else 1)


@pytest.mark.usefixtures("spawnable")
def test_a_child_ignores_sigint_and_logs_its_warnings_to_stderr(capfd) -> None:
    proc = spawn_context().Process(target=_a_child_that_warns, name="attnlab-test", daemon=True)
    proc.start()
    try:
        proc.join(30)
        assert proc.exitcode == 0
        err = capfd.readouterr().err
        assert f"attnlab-test[{proc.pid}] WARNING attnlab.test: a warning from the child" in err
        assert "KeyboardInterrupt" not in err
        (traced,) = [line for line in err.splitlines() if "a traceback from the child" in line]
        assert "Traceback" in traced and "RuntimeError: a second line" in traced  # one line
    finally:
        proc.kill()
        proc.join(5)


def test_map_in_processes_gives_the_serial_results_in_order() -> None:
    chunks = [0.0, 2.0, 9.0, 16.0]
    before = set(descendants(os.getpid()))
    assert map_in_processes(math.sqrt, chunks) == [math.sqrt(c) for c in chunks]
    assert wait_gone(_children_of_this_test(before), 5) == []


def test_an_exception_in_a_chunk_is_raised_with_its_message_and_leaves_no_child() -> None:
    before = set(descendants(os.getpid()))
    with pytest.raises(ValueError, match="math domain error") as raised:
        map_in_processes(math.sqrt, [4.0, -1.0, 9.0])
    assert "chunk 1" in str(raised.value.__cause__)  # which chunk, and the child's traceback
    assert "Traceback" in str(raised.value.__cause__)
    assert wait_gone(_children_of_this_test(before), 0.1) == []


def test_a_chunk_whose_process_dies_is_named_with_its_exit_code() -> None:
    before = set(descendants(os.getpid()))
    with pytest.raises(ChunkFailed, match=r"chunk 0 ended \(exit code 3\) before its result"):
        map_in_processes(os._exit, [3])
    assert wait_gone(_children_of_this_test(before), 0.1) == []


def test_a_keyboard_interrupt_while_mapping_leaves_no_child() -> None:
    before = set(descendants(os.getpid()))
    started: list[int] = []

    def interrupt_once_they_run() -> None:
        deadline = time.monotonic() + 30
        while len(started) < 2 and time.monotonic() < deadline:
            started[:] = _children_of_this_test(before)
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)  # as Ctrl+C does, to this process only

    # Python's own Ctrl+C handler, whatever this process was started with: a shell without job
    # control starts its background commands with SIGINT ignored, and so the test runner
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Thread(target=interrupt_once_they_run, daemon=True).start()
    try:
        with pytest.raises(KeyboardInterrupt):
            map_in_processes(time.sleep, [60.0, 60.0])
        assert len(started) == 2
        assert wait_gone(started, 0.1) == []  # stopped before the interrupt went on
    finally:
        signal.signal(signal.SIGINT, previous)
        kill_all(_children_of_this_test(before))


def test_a_stop_event_set_from_another_thread_ends_the_map_and_its_children() -> None:
    """A server maps in a thread, where no signal arrives: its `stop` event ends the map."""
    before = set(descendants(os.getpid()))
    stop, started = threading.Event(), []

    def stop_once_they_run() -> None:
        deadline = time.monotonic() + 30
        while len(started) < 2 and time.monotonic() < deadline:
            started[:] = _children_of_this_test(before)
            time.sleep(0.05)
        stop.set()

    threading.Thread(target=stop_once_they_run, daemon=True).start()
    try:
        t0 = time.monotonic()
        with pytest.raises(Stopped, match="2 of 2 chunks still running"):
            map_in_processes(time.sleep, [60.0, 60.0], stop=stop)
        assert len(started) == 2 and time.monotonic() - t0 < 30  # not the chunks' minute
        assert wait_gone(started, 0.1) == []  # stopped before Stopped was raised
    finally:
        kill_all(_children_of_this_test(before))


def test_a_sigterm_to_the_caller_stops_its_children_before_it_exits(tmp_path) -> None:
    script = tmp_path / "mapper.py"
    script.write_text(MAPPER)
    caller = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    tree: list[int] = []
    try:
        assert caller.stdout.readline() == "mapping\n"
        deadline = time.monotonic() + 30
        while len(tree) < 3 and time.monotonic() < deadline:  # two chunks and the tracker
            tree = descendants(caller.pid)
            time.sleep(0.02)
        time.sleep(0.5)  # the chunks' processes are running their function
        chunks = [p for p in tree if RESOURCE_TRACKER not in cmdline(p)]
        assert len(chunks) == 2
        caller.terminate()
        assert caller.wait(timeout=10) == 128 + signal.SIGTERM  # SystemExit, not a death
        assert [p for p in chunks if alive(p)] == []  # stopped by the caller, not orphaned
    finally:
        caller.kill()
        caller.wait(timeout=10)
        caller.stdout.close()
        kill_all(tree)
