"""The server's side of the workers: a worker that dies is replaced and its sessions start again."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

from attnlab.tabletop import TrainConfig
from attnlab.trainpool.pool import RESTARTED, TrainPool


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


def test_a_worker_ends_when_its_server_is_killed_outright(tmp_path) -> None:
    """SIGKILL runs no clean-up: the worker must notice on its own that its parent is gone."""
    script = tmp_path / "server.py"
    script.write_text(
        "import sys, time\n"
        "from attnlab.trainpool.pool import TrainPool\n"
        "if __name__ == '__main__':\n"
        "    pool = TrainPool(1, frame_s=0.04)\n"
        "    pool.start()\n"
        "    print(pool._workers[0].process.pid, flush=True)\n"
        "    time.sleep(60)\n"
    )
    server = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(server.stdout.readline())
        assert _alive(worker)
        server.kill()
        server.wait(timeout=10)
        deadline = time.monotonic() + 10
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(worker)
    finally:
        server.kill()
        server.wait(timeout=10)
        server.stdout.close()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"  # a zombie has ended; only its exit status waits to be read
