"""How `attnlab serve` runs and stops: one server process, or a supervisor of N.

Whatever stops it — Ctrl+C (SIGINT), `kill` or a service manager (SIGTERM), a closed terminal
(SIGHUP) — the whole tree ends together, within 5 s:

    attnlab serve                       one process: uvicorn + the app
    ├── attnlab-train × W               training workers (`attnlab.trainpool`)
    └── attnlab-claims                  the claims runner's measuring process

A stop closes the training sockets with 1001 (`LessonServer.going_away`), lets open requests
finish for `shutdown_grace_s`, runs the app's shutdown (the claims runner stops), then stops
the training workers (`stop_shared_pools`). Every child also watches its parent
(`attnlab.processes.watch_parent`): if the server dies without stopping them — SIGKILL, a
crash — they end by themselves within a second.

`--workers N` puts a `Supervisor` on top: N server processes like the one above share the
listening socket. The supervisor forwards a stop to each, waits `STOP_WAIT_S`, then kills what is
left; it replaces a server process that dies (unless it failed to start at all).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from typing import Any

from attnlab.processes import spawn_context, stop_processes, watch_parent
from attnlab.trainpool.pool import stop_shared_pools
from attnlab.web.config import WebSettings
from attnlab.web.server import STOP_SIGNALS, LessonServer, server_config

log = logging.getLogger("attnlab.serve")

STOP_WAIT_S = 4.0  # a server process has this long to stop before it is killed (bound: 5 s)
STARTUP_FAILED = 3  # the exit code of a server process that could not start
RESTART_PAUSE_S = 1.0  # between replacing server processes that keep dying


def serve_lesson(settings: WebSettings, sock: socket.socket, **options: Any) -> int:
    """Serve the lesson on `sock` in this process until a stop signal; 0, or STARTUP_FAILED."""
    from attnlab.web.app import create_app

    app = create_app(settings)
    server = LessonServer(server_config(app, settings, **options), app.state.training.going_away)
    try:
        server.run(sockets=[sock])
    finally:
        stop_shared_pools()  # the training workers: the app's shutdown left them to the process
    return 0 if server.started else STARTUP_FAILED


def serve_processes(settings: WebSettings, sock: socket.socket, n: int, **options: Any) -> int:
    """`--workers N`: N server processes on `sock`, supervised; returns the exit code."""
    return Supervisor(settings, sock, n, options).run()


def _server_process(settings: WebSettings, sock: socket.socket, options: dict[str, Any]) -> None:
    """A supervised server process (spawned): it ends with its supervisor, whatever kills it."""
    watch_parent()
    code = serve_lesson(settings, sock, **options)
    # Leave at once: the tree is stopped, and the interpreter's own teardown (freeing modules,
    # joining threads) can take seconds on a busy machine, which the stop bound does not allow.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


class Supervisor:
    """N server processes sharing one listening socket; a stop signal stops them all."""

    def __init__(
        self, settings: WebSettings, sock: socket.socket, n: int, options: dict[str, Any]
    ) -> None:
        self.settings, self.sock, self.n, self.options = settings, sock, n, options
        self.ctx = spawn_context()
        self.children: list[multiprocessing.process.BaseProcess] = []
        self.stop = threading.Event()
        self.stopped_by: int | None = None

    def run(self) -> int:
        old = {sig: signal.signal(sig, self._on_signal) for sig in STOP_SIGNALS}
        try:
            self.children = [self._spawn() for _ in range(self.n)]
            code = self._watch()
        finally:
            self._stop_children()
            for sig, handler in old.items():
                signal.signal(sig, handler)
        return code

    def _on_signal(self, sig: int, _frame: Any) -> None:
        self.stopped_by = self.stopped_by or sig
        self.stop.set()

    def _spawn(self) -> multiprocessing.process.BaseProcess:
        args = (self.settings, self.sock, self.options)
        child = self.ctx.Process(target=_server_process, args=args, name="attnlab-server")
        child.start()
        return child

    def _watch(self) -> int:
        """Until a stop: replace a server process that died; give up if one cannot start."""
        while not self.stop.wait(0.25):
            for i, child in enumerate(self.children):
                if child.is_alive():
                    continue
                if child.exitcode == STARTUP_FAILED:
                    log.error("a server process could not start: stopping the others")
                    return STARTUP_FAILED
                log.error("server process %s stopped (exit code %s): starting another",
                          child.pid, child.exitcode)  # fmt: skip
                time.sleep(RESTART_PAUSE_S)
                self.children[i] = self._spawn()
        return 0

    def _stop_children(self) -> None:
        """Forward the stop (SIGTERM) to each server process; kill those left after STOP_WAIT_S."""
        for child in self.children:
            if child.pid is not None and child.is_alive():
                child.terminate()
        stop_processes(self.children, timeout_s=STOP_WAIT_S)
