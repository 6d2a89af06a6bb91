"""`attnlab serve` stops when told, and all of it: the tree the shell started ends together.

Each case starts a real server (as a shell would), opens a training socket, and signals the PID
the shell got. Within 5 s the socket must have been told 1001 (going away), the port must refuse
connections and no process of the tree may be left — training workers, the claims runner, the
server processes of `--workers 2`. Also in the middle of the work: while the claims sweep's
processes run (a page asked for the lesson's text) and a model trains. SIGKILL, which the server
cannot see, leaves the workers to notice by themselves: within 2 s.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from attnlab.claims.runner import NICE_VARIABLE
from tests.ports import free_port, port_open
from tests.proctree import alive, descendants, parent
from tests.redisserver import client_count, redis_server

pytestmark = pytest.mark.server  # starts a server process: not in `make check`

STOP_BOUND_S = 5.0  # the bound for a signal that the server sees (typical: 0.3–0.5 s)
ORPHAN_BOUND_S = 2.0  # and for a worker whose server was killed outright (typical: 0.25 s)
START_S = 90.0  # a busy machine starts the training workers slowly
SWEEP_S = 180.0  # the claims' fast checks come first, then the sweep the text quotes
TEACHER = "the-teacher-s-own-token-for-stops"
MODES = {"default": [], "workers-2": ["--workers", "2"], "class": ["--class"]}


@dataclass
class Served:
    proc: subprocess.Popen[str]
    port: int

    @property
    def tree(self) -> list[int]:
        return [self.proc.pid, *descendants(self.proc.pid)]


def _wait_until_training(port: int, proc: subprocess.Popen[str]) -> None:
    """Until the capacity is known: the training workers are up and have measured themselves."""
    end = time.monotonic() + START_S
    while time.monotonic() < end and proc.poll() is None:
        with contextlib.suppress(httpx.HTTPError):
            url = f"http://127.0.0.1:{port}/api/training/capacity"
            if httpx.get(url, timeout=START_S).status_code == 200:
                return
        time.sleep(0.2)
    raise AssertionError(f"the server did not start (exit code {proc.poll()})")


@contextlib.contextmanager
def served(mode: str, extra: tuple[str, ...] = (), env: dict | None = None) -> Iterator[Served]:
    # the claims measured as an equal of the test beside it: a sweep it waits for must start
    env = {**(env or os.environ), NICE_VARIABLE: "0"}
    port = free_port()
    cmd = [sys.executable, "-m", "attnlab", "serve", "--no-browser", "--port", str(port)]
    # Its own session: the test signals the one PID, as `kill PID` does, not a terminal's group.
    proc = subprocess.Popen(
        [*cmd, *MODES[mode], *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        start_new_session=True, env=env,
    )  # fmt: skip
    started = Served(proc, port)
    try:
        _wait_until_training(port, proc)
        yield started
    finally:
        for pid in started.tree:  # whatever the test left: nothing outlives it
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        proc.wait(10)
        proc.stderr.close()


@contextlib.contextmanager
def _training_socket(port: int) -> Iterator[ClientConnection]:
    origin = f"http://127.0.0.1:{port}"
    url = f"ws://127.0.0.1:{port}/ws/train"
    with connect(url, additional_headers={"Origin": origin}) as ws:
        ws.recv(timeout=30)  # the session's first state: it is open in a worker
        yield ws


def _close_code(ws: ClientConnection, timeout_s: float) -> int | None:
    end = time.monotonic() + timeout_s
    try:
        while time.monotonic() < end:
            ws.recv(timeout=max(0.01, end - time.monotonic()))
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None
    except TimeoutError:
        return None
    return None


def _gone_within(pids: list[int], seconds: float) -> list[int]:
    """The pids still alive after `seconds` (polled): [] when all ended in time."""
    end = time.monotonic() + seconds
    while (left := [p for p in pids if alive(p)]) and time.monotonic() < end:
        time.sleep(0.05)
    return left


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize(
    "sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name
)
def test_a_stop_signal_ends_the_whole_tree_within_5_s(mode: str, sig: signal.Signals) -> None:
    with served(mode) as server, _training_socket(server.port) as ws:
        tree = server.tree
        names = {p: _name(p) for p in tree}
        assert len(tree) >= 3, names  # the server, its training worker(s), the claims runner
        started = time.monotonic()
        os.kill(server.proc.pid, sig)
        code = _close_code(ws, STOP_BOUND_S)
        left = _gone_within(tree, STOP_BOUND_S - (time.monotonic() - started))
        took = time.monotonic() - started
        print(f"{mode} {sig.name}: the tree ended {took:.2f} s after the signal")
        assert code == 1001, f"the training socket was closed with {code}, not 1001"
        assert not left, f"alive {took:.1f} s after {sig.name}: {[names[p] for p in left]}"
        assert not port_open(server.port), "the port still accepts connections"
        assert server.proc.wait(1) in (0, -sig)


def _sweeping(server: Served, mode: str) -> list[int]:
    """The claims sweep's processes: the claims process's children, one level below the server
    processes' own children (training workers, the claims process); [] until SWEEP_S passes."""
    depth = 3 if mode == "workers-2" else 2  # the supervisor adds a level

    def level(pid: int) -> int:
        n = 0
        while pid not in (server.proc.pid, None):
            pid, n = parent(pid), n + 1
        return n

    end = time.monotonic() + SWEEP_S
    while time.monotonic() < end:
        found = [p for p in descendants(server.proc.pid) if level(p) == depth]
        if found:
            return found
        time.sleep(0.2)
    return []


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["default", "workers-2"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
def test_a_stop_in_the_middle_of_a_claims_sweep_and_training_leaves_nothing(
    mode: str, sig: signal.Signals
) -> None:
    with served(mode) as server, _training_socket(server.port) as ws:
        httpx.get(f"http://127.0.0.1:{server.port}/api/lesson/en", timeout=START_S)  # sweeps wanted
        assert _sweeping(server, mode), "no claims sweep started"
        ws.send(json.dumps({"type": "start"}))  # and a model trains (read: the page keeps up)
        while json.loads(ws.recv(timeout=30))["type"] != "progress":
            pass
        tree = server.tree
        names = {p: _name(p) for p in tree}
        started = time.monotonic()
        os.kill(server.proc.pid, sig)
        code = _close_code(ws, STOP_BOUND_S)
        left = _gone_within(tree, STOP_BOUND_S - (time.monotonic() - started))
        assert code == 1001, f"the training socket was closed with {code}, not 1001"
        assert not left, f"alive after {sig.name} in a sweep: {[names[p] for p in left]}"
        assert not port_open(server.port)


@contextlib.contextmanager
def _class_sockets(port: int, learners: int = 1) -> Iterator[dict[str, str]]:
    """Learners' pages in the class (each has its seat) and the teacher's view, all open;
    yields the teacher's headers."""
    origin = {"Origin": f"http://127.0.0.1:{port}"}
    teacher = {**origin, "Authorization": f"Bearer {TEACHER}"}
    url = f"ws://127.0.0.1:{port}/ws"
    with contextlib.ExitStack() as stack:
        view = stack.enter_context(connect(f"{url}/teach", additional_headers=teacher))
        assert json.loads(view.recv(timeout=30))["type"] == "class"
        for i in range(learners):
            learner = stack.enter_context(connect(f"{url}/class", additional_headers=origin))
            learner.send(json.dumps({"type": "hello", "seat": f"{i + 1:032x}"}))
            assert json.loads(learner.recv(timeout=30))["type"] == "seat"
        yield teacher


def test_a_class_in_redis_stops_within_5_s_and_its_shutdown_closes_the_store(tmp_path) -> None:
    """`--class --store redis://…` with a learner and the teacher connected: SIGTERM ends the
    tree within 5 s, by the app's own shutdown (exit code 0, no traceback, "shutdown complete":
    the store's listener and connections were closed there, not left to the process's end)."""
    pytest.importorskip("redis")
    env = {**os.environ, "ATTNLAB_TEACHER_TOKEN": TEACHER}
    with redis_server(tmp_path) as url:
        with served("class", ("--store", url), env) as server, _class_sockets(server.port):
            assert client_count(url) >= 1  # the class lives in Redis
            tree = server.tree
            os.kill(server.proc.pid, signal.SIGTERM)
            left = _gone_within(tree, STOP_BOUND_S)
            assert not left, f"alive after SIGTERM: {[_name(p) for p in left]}"
            log = server.proc.stderr.read()
            assert server.proc.wait(1) == 0
        assert "Application shutdown complete" in log and "Traceback" not in log, log[-2000:]
        assert client_count(url) == 0


def test_a_stop_while_one_seed_each_sweeps_ends_within_5_s() -> None:
    """The teacher's "one seed each" has the server sweep the class's seeds (processes run
    from a thread of the server's): a stop signal ends them, it does not wait for the sweep."""
    env = {**os.environ, "ATTNLAB_TEACHER_TOKEN": TEACHER}
    with served("class", (), env) as server, _class_sockets(server.port, 4) as teacher:
        before = set(server.tree)
        plan = {"task": "fetch", "heads": 1, "seed": 0, "steps": 5000}  # a long sweep
        url = f"http://127.0.0.1:{server.port}/api/teach/seeds"
        assert httpx.post(url, json=plan, headers=teacher, timeout=30).status_code == 200
        end = time.monotonic() + START_S
        while not (sweeping := set(server.tree) - before) and time.monotonic() < end:
            time.sleep(0.05)
        assert sweeping, "the sweep's processes did not start"
        tree = server.tree
        os.kill(server.proc.pid, signal.SIGTERM)
        left = _gone_within(tree, STOP_BOUND_S)
        assert not left, f"alive after SIGTERM in a sweep: {[_name(p) for p in left]}"
        assert server.proc.wait(1) == 0


@pytest.mark.parametrize("mode", ["default", "workers-2"])
def test_workers_of_a_killed_server_end_within_2_s(mode: str) -> None:
    with served(mode) as server:
        tree = server.tree
        children = [p for p in tree if p != server.proc.pid]
        assert children
        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait(5)
        left = _gone_within(children, ORPHAN_BOUND_S)
        assert not left, f"still alive 2 s after SIGKILL: {[_name(p) for p in left]}"


def _name(pid: int) -> str:
    with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read().replace(b"\0", b" ").decode(errors="replace")[:120]
    return "?"
