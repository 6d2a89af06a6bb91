"""Memory under fresh seeds, and a figure's latency while the claims are re-measured.

1. Fresh seeds: for FIG 3 (scaling), FIG 5 (depth) and FIG 2 (training), N requests, each with
   a seed no request used before, from 40 clients at a time; the server's RSS (VmRSS of its
   process) before, after each figure, and after a short rest. Budget: under 600 MiB and flat.
2. Claims re-run: POST /api/claims/rerun, then 45 concurrent GET /api/claims?full=true while
   FIG 1 (lookup) is asked for; its latency then against its latency on an idle server, measured
   in the same run.

The server is a real uvicorn process on a free 127.0.0.1 port (see web_latency.py); every
request stays on loopback and the run is bounded in count and time. `--pythonpath DIR` serves
another checkout's code (e.g. /work/main/src) for a reference measured the same way.

    .venv/bin/python benchmarks/fresh_seeds.py [--requests 200] [--clients 40] [--pythonpath DIR]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from web_latency import free_port, server

FIGURES = {"scaling": "seed", "depth": "seed", "training": "seed"}  # figure → its seed setting
RSS_BUDGET_MIB = 600.0
FULL_REQUESTS = 45
TIMEOUT_S = 120.0
FULL_WAIT_S = 30.0  # a full=true request still unanswered then counts as status 0 (timed out)


def server_pid(port: int) -> int:
    """The process listening on 127.0.0.1:port (the uvicorn server)."""
    inode = _listening_inode(port)
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
            if any(os.readlink(f"/proc/{pid}/fd/{fd}") == f"socket:[{inode}]" for fd in fds):
                return int(pid)
        except OSError:  # another process, or one that went away
            continue
    raise SystemExit(f"no process listens on port {port}")


def rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line[:6] == "VmRSS:")) / 1024


def children(pid: int) -> list[int]:
    """The process's children (e.g. the claims runner's measuring process)."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        found += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    return found


def server_rss_mib(port: int) -> float:
    return rss_mib(server_pid(port))


def _listening_inode(port: int) -> str:
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        cols = line.split()
        if cols[1].endswith(f":{port:04X}") and cols[3] == "0A":  # 0A: LISTEN
            return cols[9]
    raise SystemExit(f"nothing listens on port {port}")


def fresh_seed_load(base: str, figure: str, n: int, clients: int, first_seed: int) -> int:
    """n GETs of `figure`, seed first_seed + i, `clients` at a time; the number of errors."""
    errors = 0
    lock = threading.Lock()

    def one(i: int) -> None:
        nonlocal errors
        r = httpx.get(f"{base}/api/figures/{figure}", params={"seed": first_seed + i}, timeout=60)
        if r.status_code != 200:
            with lock:
                errors += 1

    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(one, range(n)))
    return errors


def report_memory(base: str, port: int, n: int, clients: int) -> None:
    print(f"fresh seeds: {n} requests per figure, {clients} clients at a time")
    before = server_rss_mib(port)
    print(f"  server RSS before          {before:7.1f} MiB")
    peak = before
    for k, figure in enumerate(FIGURES):
        errors = fresh_seed_load(base, figure, n, clients, first_seed=10_000 + k * n)
        rss = server_rss_mib(port)
        peak = max(peak, rss)
        print(f"  after {figure:<10} {errors:3d} errors  {rss:7.1f} MiB")
    time.sleep(3)
    rest = server_rss_mib(port)
    print(f"  after 3 s at rest          {rest:7.1f} MiB")
    for child in children(server_pid(port)):  # not in the server's RSS: said separately
        print(f"  child process {child}: {rss_mib(child):7.1f} MiB")
    verdict = "within" if peak < RSS_BUDGET_MIB else "OVER"
    print(f"  peak {peak:.1f} MiB: {verdict} the {RSS_BUDGET_MIB:.0f} MiB budget")


def lookup_ms(client: httpx.Client, base: str, rounds: int = 5) -> float:
    """Median latency of FIG 1 with its default settings over `rounds` requests."""
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        client.get(f"{base}/api/figures/lookup", timeout=TIMEOUT_S).raise_for_status()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def wait_idle(client: httpx.Client, base: str) -> None:
    end = time.monotonic() + TIMEOUT_S * 3
    while client.get(f"{base}/api/claims/measured", timeout=TIMEOUT_S).json()["running"]:
        if time.monotonic() > end:
            raise SystemExit("the claims were still being measured after the time limit")
        time.sleep(0.5)


def report_rerun(base: str) -> None:
    with httpx.Client() as client:
        wait_idle(client, base)  # the run at startup
        idle = lookup_ms(client, base)
        started = client.post(f"{base}/api/claims/rerun", timeout=TIMEOUT_S)
        statuses: list[int] = []

        def full(_: int) -> None:
            try:
                r = httpx.get(f"{base}/api/claims", params={"full": "true"}, timeout=FULL_WAIT_S)
                statuses.append(r.status_code)
            except httpx.TimeoutException:  # still parked after FULL_WAIT_S
                statuses.append(0)

        with ThreadPoolExecutor(FULL_REQUESTS) as pool:
            jobs = [pool.submit(full, i) for i in range(FULL_REQUESTS)]
            time.sleep(0.5)  # the 45 requests are in
            busy = lookup_ms(client, base)
            t0 = time.perf_counter()
            for job in jobs:
                job.result()
            full_s = time.perf_counter() - t0
        print(f"claims re-run (POST answered {started.status_code}), {FULL_REQUESTS} concurrent "
              f"GET /api/claims?full=true: statuses {sorted(set(statuses))}, all answered "
              f"{full_s:.1f} s after FIG 1's requests")  # fmt: skip
        print(f"  FIG 1 median latency: idle {idle:.1f} ms, during the re-run {busy:.1f} ms "
              f"({busy / idle:.1f}x)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="per figure")
    parser.add_argument("--clients", type=int, default=40)
    parser.add_argument("--pythonpath", help="serve the attnlab found there (a reference)")
    parser.add_argument("--skip-rerun", action="store_true")
    args = parser.parse_args()
    if args.pythonpath:
        os.environ["PYTHONPATH"] = args.pythonpath  # the server process inherits it
    port = free_port()
    pid = None
    try:
        with server(port) as base:
            pid = server_pid(port)
            print(f"server: {args.pythonpath or 'this checkout'} on {base}")
            report_memory(base, port, args.requests, args.clients)
            if not args.skip_rerun:
                report_rerun(base)
    except subprocess.TimeoutExpired:  # threads still parked in requests: it did not stop
        print("the server did not stop within 10 s of SIGTERM; killed")
        if pid is not None:
            os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
