"""The server's side of the workers: a worker that dies is replaced and its sessions start again."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time

import pytest

from attnlab.tabletop import TrainConfig
from attnlab.trainpool import pool as pool_module
from attnlab.trainpool.pool import (
    RESTARTED,
    PoolStopped,
    TrainPool,
    ended_by,
    shared_pool,
    stop_shared_pools,
)
from tests.proctree import alive, cmdline, descendants, kill_all, wait_gone


async def _until(queue: asyncio.Queue, done) -> list[dict]:
    out: list[dict] = []
    while not out or not done(out[-1]):
        out.append(await asyncio.wait_for(queue.get(), 30))
    return out


def test_a_dead_worker_is_replaced_and_its_sessions_start_again_at_step_0() -> None:
    pool = TrainPool(1, frame_s=0.04)
    pool.start()
    try:

        async def scenario() -> None:
            got: asyncio.Queue = asyncio.Queue()
            sink = lambda text, ended: got.put_nowait(json.loads(text))  # noqa: E731
            sid = pool.open(TrainConfig(seed=3), (1000, 500), asyncio.get_running_loop(), sink)
            await _until(got, lambda m: m["type"] == "progress")
            pool.command(sid, "run", None, 0)
            await _until(got, lambda m: m["type"] == "progress" and m["step"] > 0)
            dead = pool._workers[0]
            dead.process.kill()
            after = await _until(got, lambda m: m["type"] == "state" and m["step"] == 0)
            assert {"type": "error", "code": "internal", "message": RESTARTED} in after
            assert pool._workers[0] is not dead and pool._workers[0].process.is_alive()
            assert after[-1]["config"]["seed"] == 3  # the same setting, from step 0
            pool.command(sid, "run", 25, 0)  # and it trains again
            await _until(got, lambda m: m["type"] == "progress" and m["step"] == 25)
            pool.close(sid)

        _run_in_a_thread(scenario())
    finally:
        pool.stop()


def _run_in_a_thread(coroutine) -> None:
    """asyncio.run on a thread of its own (another test may hold a loop on this one)."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(coroutine)
        except BaseException as err:  # re-raised in the test's thread
            errors.append(err)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=120)
    assert not thread.is_alive(), "the scenario did not finish"
    if errors:
        raise errors[0]


def test_a_sigkilled_server_leaves_no_worker_alive_2_s_later(tmp_path) -> None:
    """SIGKILL runs no clean-up: the workers must notice on their own that their parent is gone
    (the resource tracker then ends too, as no process holds its pipe any more)."""
    script = tmp_path / "server.py"
    script.write_text(
        "import time\n"
        "from attnlab.trainpool.pool import shared_pool\n"
        "if __name__ == '__main__':\n"
        "    pool = shared_pool(2, frame_s=0.04)\n"
        "    pool.start()\n"
        "    print(pool.alive(), flush=True)\n"
        "    time.sleep(60)\n"
    )
    server = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    tree: list[int] = []
    try:
        assert int(server.stdout.readline()) == 2
        tree = descendants(server.pid)
        assert len(tree) == 3  # two workers and the resource tracker
        server.kill()
        t0 = time.monotonic()
        server.wait(timeout=10)
        assert wait_gone(tree, 10.0) == [], [cmdline(p) for p in tree]  # typical: 0.01 s
        print(f"workers ended {time.monotonic() - t0:.3f} s after SIGKILL")
    finally:
        server.kill()
        server.wait(timeout=10)
        server.stdout.close()
        kill_all(tree)


def test_a_stop_during_start_ends_the_workers_being_started_and_start_publishes_none(
    monkeypatch,
) -> None:
    # A pool that sent "stop" to a worker still measuring its speed would wait STOP_S for an
    # answer it never reads: made 60 s here, so that mistake cannot hide inside a machine's
    # slowness (typical: 0.05 s, as the terminated workers are not waited for)
    monkeypatch.setattr(pool_module, "STOP_S", 60.0)
    pool = TrainPool(2, frame_s=0.04)
    outcome: list[BaseException] = []

    def start() -> None:
        try:
            pool.start()
        except BaseException as err:
            outcome.append(err)

    starting = threading.Thread(target=start)
    starting.start()
    try:
        deadline = time.monotonic() + 30
        while pool.alive() < 2 and time.monotonic() < deadline:  # spawned, still measuring
            time.sleep(0.01)
        assert pool.alive() == 2 and not pool.started
        workers = [w.process.pid for w in pool._spawned]  # not every child: other tests' pools
        t0 = time.monotonic()
        pool.stop()
        took = time.monotonic() - t0
        print(f"pool.stop() during start() took {took:.3f} s")
        assert took < 30  # a starting worker is terminated: it reads no "stop" yet
        starting.join(30)
        assert pool.alive() == 0 and not pool.started
        assert [type(e) for e in outcome] == [PoolStopped]
        pool.stop()  # again: nothing to do, no error
        with pytest.raises(PoolStopped):
            pool.start()
    finally:
        pool.stop()
        starting.join(30)
    assert [p for p in workers if alive(p) and "resource_tracker" not in cmdline(p)] == []


def test_a_stop_while_a_dead_worker_is_replaced_ends_the_replacement_quietly(caplog) -> None:
    pool = TrainPool(1, frame_s=0.04)
    pool.start()
    try:
        dead = pool._workers[0].process
        dead.kill()
        deadline = time.monotonic() + 30
        while not (pool.alive() == 1 and not dead.is_alive()) and time.monotonic() < deadline:
            time.sleep(0.01)  # the replacement is spawned, still measuring its speed
        replacement = next(w.process for w in pool._spawned if w.process is not dead)
        pool.stop()
        assert pool.alive() == 0 and not replacement.is_alive() and not pool.started
        time.sleep(0.2)  # the reader thread that replaced it has seen it end
        errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
        assert errors == ["a training worker stopped (killed by SIGKILL): starting another"]
    finally:
        pool.stop()


def test_stop_shared_pools_ends_their_workers_and_a_new_pool_can_follow(monkeypatch) -> None:
    monkeypatch.setattr(pool_module, "STOP_S", 60.0)  # ended by "stop" however busy the machine
    # this test's pools alone: the servers this process still runs for other tests keep theirs
    monkeypatch.setattr(pool_module, "_POOLS", {})
    pool = shared_pool(1, frame_s=0.04)
    try:
        pool.start()
        assert pool.alive() == 1
        workers = [w.process for w in pool._workers]
        stop_shared_pools()
        assert pool.alive() == 0
        assert [w.exitcode for w in workers] == [0]  # each worker ended at "stop", not killed
        assert shared_pool(1, frame_s=0.04) is not pool
        again = shared_pool(1, frame_s=0.04)
        again.stop()  # a pool stopped on its own is replaced too
        assert shared_pool(1, frame_s=0.04) is not again
    finally:
        pool.stop()
        stop_shared_pools()


def test_a_message_for_an_app_whose_loop_has_closed_is_dropped() -> None:
    loop = asyncio.new_event_loop()
    loop.close()
    got: list[str] = []
    TrainPool(1, frame_s=0.04)._post(loop, 1, lambda text, ended: got.append(text), "{}", False)
    assert got == []


def test_the_log_says_how_a_worker_ended() -> None:
    assert ended_by(-9) == "killed by SIGKILL" and ended_by(-15) == "killed by SIGTERM"
    assert ended_by(1) == "exit code 1" and ended_by(None) == "exit code None"
