"""A class on one server: N learners train FIG 2 at the watch pace while N readers drag figures.

N training sockets press Train at once (200 steps/s, the page's "watch" pace) while N readers
each send one figure request every 100 ms (mixed figures and settings, one in five with a seed
never seen before) for T seconds. Printed: trainers training / N, median and p10 steps/s per
trainer (over the whole window, so a learner who waited in line counts with what it got),
progress messages/s, figure p50 / p99 latency, errors, server RSS (the server and its worker
processes), and the capacity the server states. Targets from issue 8 are printed beside them.
Each reader says it is here as the page does (POST /api/presence), so halfway through the run
the server states its capacity while they drag (issue 19); printed beside it, the trainers that
got the watch pace (at least PACE_SHARE of it) and the server's CPU per figure request against
the cost the capacity counts on.

Before the class, each kind of work runs alone for a few seconds so that its CPU is its own
(issue 19, "cheaper units, measured"): readers dragging (warm answers: the median request),
trainers at the watch pace, and one trainer alone. Printed: the server's CPU per figure request,
the workers' CPU per training step (both models, evaluations and progress messages included),
and the server's CPU to relay one progress message. These are CPU times from /proc, which other
programs on the machine change much less than latencies; the load average is printed beside.

Where the savings came from (each found with cProfile, or py-spy on the running server; run
this script with PYTHONPATH pointing at an older src/ to measure the code before them):
- the worker keeps its stacks between chunks (`seed_batch.KeptStacks`): building a stack of 8
  (fresh half-megabyte buffers) cost more than the 8 steps of a paced chunk;
- progress messages skip `plain()` (their parts are plain already: tested), and the worker
  sends one pipe event a loop turn, which the server hands to its loop in one call;
- chunks are sized and shares charged in CPU time; capacity is steps per CPU second;
- `plain()` converts arrays with `tolist()` after one finiteness check (tested equal to the
  element-by-element definition);
- parts of a figure that no setting changes are written as JSON once and spliced into each
  answer (`plain.Encoded`: FIG 4's PE table, FIG 7's frame, patch grids and curves, FIG 5's
  layers, FIG 6's passes), and per-seed caches keep what a seed draws (FIG 2's models, FIG 3's
  draws for every d_k);
- warm answers are computed on the event loop (the hop to the thread pool cost more);
- HTTP is parsed by httptools (C) instead of h11, with the 32 KiB head limit and the 10 s head
  deadline kept (`web.server.BoundedHttpTools`).

`--soak MINUTES`: 16 readers with fresh seeds and 4 trainings that start over at the step
limit; RSS every 30 s, and its growth after the first minute (warm-up).

The server is `attnlab serve` on a free 127.0.0.1 port; every request stays on loopback and
the run is bounded (count, time, and a timeout on every call).

`--teacher`: the same class twice on one server, first as above, then with a teacher's page
open and every reader also a seat reporting as a page does (class_teacher.py), so that what a
teacher's view costs the learners is read off side by side (issue 20).

    .venv/bin/python benchmarks/classroom.py [--learners 40] [--seconds 40] [--unit-seconds 8]
        [--soak MINUTES]
    .venv/bin/python benchmarks/classroom.py --teacher --learners 80 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).parent))
import class_teacher
from web_latency import free_port, pct, random_settings, server

WATCH_PACE = 200
PACE_SHARE = 0.95  # a trainer at 190 steps/s or more got the watch pace
REQUEST_EVERY_S = 0.1
PRESENCE_EVERY_S = 20.0  # as the page (lib/presence.js)
TARGETS = {"median_steps": 150.0, "p99_ms": 250.0, "rss_mib": 600.0}


def server_pid() -> int:
    """The uvicorn process `web_latency.server` started: this process's only child."""
    tasks = Path("/proc/self/task").iterdir()
    children = [int(c) for task in tasks for c in (task / "children").read_text().split()]
    if len(children) != 1:
        raise SystemExit(f"expected one server process, found {children}")
    return children[0]


def family(pid: int) -> list[int]:
    """`pid` and all its descendants (Linux /proc), the server first."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop(0)
        try:
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
        out.append(p)
    return out


def rss_mib(pid: int) -> float:
    """Resident memory of `pid` and all its descendants, MiB."""
    total = 0
    for p in family(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total / 1024


def cpu_s(pid: int) -> float:
    """CPU time (user + system) a process has used so far, seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class CpuUse:
    """CPU seconds used during the run: the server's HTTP process, its trainers, this script."""

    server: float
    workers: float
    clients: float

    @staticmethod
    def now(pid: int) -> CpuUse:
        procs = family(pid)
        mine = os.times()
        return CpuUse(cpu_s(procs[0]), sum(map(cpu_s, procs[1:])), mine.user + mine.system)

    def __sub__(self, other: CpuUse) -> CpuUse:
        return CpuUse(
            self.server - other.server, self.workers - other.workers, self.clients - other.clients
        )


@dataclass
class Tally:
    errors: list[str] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    trainer_steps: list[int] = field(default_factory=list)
    trained: int = 0  # trainers that took at least one step
    queued_ever: int = 0
    progress_messages: int = 0
    stated_mid: dict[str, Any] = field(default_factory=dict)  # the capacity, halfway through
    class_reports: int = 0  # --teacher: what the seats sent, what the teacher's page got
    teacher_messages: int = 0
    teacher_bytes: int = 0
    teacher_joined: int = 0


async def trainer(base: str, seconds: float, tally: Tally, *, again: bool = False) -> None:
    """One learner: open, press Train at the watch pace, read until time is up."""
    url = base.replace("http://", "ws://") + "/ws/train"
    steps, last, queued, end = 0, 0, False, time.monotonic() + seconds
    try:
        async with connect(url, open_timeout=30, close_timeout=2, max_size=2**22) as ws:
            await ws.send(json.dumps({"type": "start", "pace": WATCH_PACE}))
            while (left := end - time.monotonic()) > 0:
                try:
                    m = json.loads(await asyncio.wait_for(ws.recv(), min(left, 30)))
                except TimeoutError:
                    break
                if m["type"] == "progress":
                    tally.progress_messages += 1
                    steps, last = steps + max(0, m["step"] - last), m["step"]  # 0 after a reset
                elif m["type"] == "queued":
                    queued = True
                elif m["type"] == "error":
                    tally.errors.append(f"socket: {m}")
                elif m["type"] == "done" and again:  # the soak trains on and on
                    await ws.send(json.dumps({"type": "reset"}))
                    await ws.send(json.dumps({"type": "start", "pace": WATCH_PACE}))
    except Exception as err:
        tally.errors.append(f"socket: {type(err).__name__}: {err}")
    tally.trainer_steps.append(steps)
    tally.trained += steps > 0
    tally.queued_ever += queued


async def peak_rss(pid: int, job: asyncio.Future[Any], every_s: float = 2.0) -> float:
    """The largest RSS of the server and its workers, sampled while `job` runs."""
    peak = rss_mib(pid)
    while not job.done():
        await asyncio.wait([job], timeout=every_s)
        peak = max(peak, rss_mib(pid))
    return peak


async def reader(
    client: httpx.AsyncClient,
    figures: list[dict],
    k: int,
    seconds: float,
    tally: Tally,
    fresh: float,
) -> None:
    """One reader dragging: a figure request every 100 ms (fresh seeds with chance `fresh`)."""
    rng = np.random.default_rng(1000 + k)
    end = time.monotonic() + seconds
    said = -PRESENCE_EVERY_S
    while time.monotonic() < end:
        if time.monotonic() - said >= PRESENCE_EVERY_S:
            said = time.monotonic()
            await here(client, k, tally)
        fig = figures[rng.integers(len(figures))]
        settings = random_settings(fig["params"], rng, reseed=rng.random() < fresh)
        t0 = time.perf_counter()
        try:
            answer = await client.post(f"/api/figures/{fig['name']}", json=settings, timeout=30)
            if answer.status_code != 200:
                tally.errors.append(f"{fig['name']}: {answer.status_code} {answer.text[:200]}")
        except httpx.HTTPError as err:
            tally.errors.append(f"{fig['name']}: {type(err).__name__}")
        ms = 1000 * (time.perf_counter() - t0)
        tally.latencies_ms.append(ms)
        await asyncio.sleep(max(0.0, REQUEST_EVERY_S - ms / 1000))


async def here(client: httpx.AsyncClient, k: int, tally: Tally) -> None:
    """Reader `k` says it is here, as the page does every 20 s."""
    try:
        answer = await client.post("/api/presence", json={"reader": f"{k + 1:032x}"}, timeout=30)
        if answer.status_code != 200:
            tally.errors.append(f"presence: {answer.status_code} {answer.text[:200]}")
    except httpx.HTTPError as err:
        tally.errors.append(f"presence: {type(err).__name__}")


async def halfway(client: httpx.AsyncClient, seconds: float, tally: Tally) -> None:
    """The capacity the server states with the class in full swing."""
    await asyncio.sleep(seconds / 2)
    try:
        tally.stated_mid = (await client.get("/api/training/capacity", timeout=30)).json()
    except httpx.HTTPError as err:
        tally.errors.append(f"capacity: {type(err).__name__}")


async def crowd(
    base: str,
    *,
    trainers: int,
    readers: int,
    seconds: float,
    fresh: float,
    again: bool = False,
    teacher: bool = False,
) -> Tally:
    tally = Tally()
    limits = httpx.Limits(max_connections=readers + 4)
    async with httpx.AsyncClient(base_url=base, limits=limits) as client:
        figures = (await client.get("/api/figures", timeout=30)).json()
        jobs = [trainer(base, seconds, tally, again=again) for _ in range(trainers)]
        jobs += [reader(client, figures, k, seconds, tally, fresh) for k in range(readers)]
        if teacher:  # every reader a seat, and the teacher's page open (class_teacher.py)
            jobs += class_teacher.jobs(base, readers, seconds, tally)
        await asyncio.gather(*jobs, halfway(client, seconds, tally))
    return tally


def report(n: int, seconds: float, tally: Tally, rss: float, stated: dict[str, Any]) -> None:
    rates = np.array(tally.trainer_steps, dtype=float) / seconds
    lat = tally.latencies_ms or [float("nan")]
    print(
        f"\nclassroom: {n} learners training at {WATCH_PACE} steps/s + {n} readers, {seconds:g} s"
    )
    print(
        f"  server states: {stated['worker_processes']} worker processes on {stated['cpus']} "
        f"cores, one trainer {stated['steps_per_s']:.0f} steps/s alone, "
        f"{stated['stacked_steps_per_s']:.0f} stacked → capacity {stated['capacity']}"
    )
    rows = [
        ("trainers training", f"{tally.trained}/{n}", f"{n}/{n}"),
        ("  of them queued first", f"{tally.queued_ever}", ""),
        ("median steps/s per trainer", f"{np.median(rates):.0f}", f"≥ {TARGETS['median_steps']:g}"),
        ("p10 steps/s per trainer", f"{np.percentile(rates, 10):.0f}", ""),
        ("progress messages/s (all)", f"{tally.progress_messages / seconds:.0f}", ""),
        ("figure requests", f"{len(tally.latencies_ms)}", ""),
        ("figure p50 ms", f"{pct(lat, 50):.1f}", ""),
        ("figure p99 ms", f"{pct(lat, 99):.1f}", f"< {TARGETS['p99_ms']:g}"),
        ("errors", f"{len(tally.errors)}", "0"),
        ("server peak RSS MiB (+ workers)", f"{rss:.0f}", f"< {TARGETS['rss_mib']:g}"),
    ]
    for name, value, target in rows:
        print(f"  {name:<32} {value:>10}   {target}")
    for line in tally.errors[:5]:
        print(f"  error: {line}")
    stated_vs_delivered(rates, tally.stated_mid)


def stated_vs_delivered(rates: np.ndarray, mid: dict[str, Any]) -> None:
    """Issue 19: the capacity stated while the readers drag, against what the run delivered."""
    if not mid:
        return
    at_pace = int(np.sum(rates >= PACE_SHARE * WATCH_PACE))
    print(
        f"  halfway, the server states: {mid['readers']} readers, {mid['trainers']} trainers "
        f"(class {mid['class_size']}); readers take {mid['reader_cores']:.2f} cores "
        f"({1000 * mid['figure_request_cpu_s']:.2f} ms a request × "
        f"{mid['drag_requests_per_s']:g}/s each)"
    )
    if "behind_pace" in mid:  # measured by the workers (a server older than this says nothing)
        print(
            f"  the workers measure {mid['delivered_steps_per_s']:.0f} steps/s for "
            f"{mid['paced_trainers']} paced trainers, {mid['behind_pace']} behind their pace: "
            f"{mid['capacity_delivered']} at the watch pace"
        )
    over = "over" if mid["over_capacity"] else "within"
    print(
        f"  capacity while they drag {mid['capacity_while_dragging']} (alone "
        f"{mid['capacity']}): the class is {over} it; delivered: {at_pace} trainers at "
        f"≥ {PACE_SHARE * WATCH_PACE:.0f} steps/s"
    )


def demand(n: int, seconds: float, tally: Tally, cpu: CpuUse, mid: dict[str, Any]) -> None:
    """What the targets ask of the CPU, from the costs this run measured.

    A figure request costs the server process `cpu.server / requests` (HTTP, validation, the
    figure, JSON; it also relays the training messages, so this is an upper bound); a training
    step costs the workers `cpu.workers / steps`. At the targets (n trainers at the median pace,
    n readers every 100 ms) the machine must supply n·150 steps/s and n·10 requests/s, and the
    simulated class itself (this script) takes its share of the same cores.
    """
    steps, requests = sum(tally.trainer_steps), len(tally.latencies_ms)
    per_step = cpu.workers / max(steps, 1)
    per_request = cpu.server / max(requests, 1)
    train_cores = n * TARGETS["median_steps"] * per_step
    figure_cores = n / REQUEST_EVERY_S * per_request
    client_cores = cpu.clients / seconds
    total = train_cores + figure_cores + client_cores
    print(f"\n  CPU measured in this run ({os.cpu_count()} cores on this machine)")
    print(f"    one training step, in a worker        {1e6 * per_step:8.0f} µs")
    print(f"    one figure request, in the server     {1e3 * per_request:8.2f} ms")
    if mid:  # the stated cost is the figure's compute and JSON, without the HTTP stack
        stated_ms = 1e3 * mid["figure_request_cpu_s"]
        print(f"      (the capacity counts on             {stated_ms:8.2f} ms)")
    print(f"    the simulated class (this script)     {client_cores:8.2f} cores")
    print(f"  the targets ask for: {train_cores:.2f} cores training + {figure_cores:.2f} serving")
    print(f"    figures + {client_cores:.2f} for the clients = {total:.2f} cores")


@dataclass
class UnitCosts:
    """CPU per unit of work, each kind measured alone (`unit_costs`)."""

    request_ms: float  # server CPU per figure request (readers dragging, warm answers)
    step_us: float  # workers' CPU per training step, trainers at the watch pace
    step_alone_us: float  # the same for one trainer alone
    relay_us: float  # server CPU per progress message relayed
    counts: str  # what was measured


async def alone(base: str, pid: int, **crowd_args: Any) -> tuple[Tally, CpuUse]:
    before = CpuUse.now(pid)
    tally = await crowd(base, **crowd_args)
    return tally, CpuUse.now(pid) - before


async def unit_costs(base: str, pid: int, n: int, seconds: float) -> UnitCosts:
    """Readers only (no new seeds: a drag), then trainers only, then one trainer alone. Each
    figure is drawn once first: a drag moves a setting of a figure already on the page."""
    async with httpx.AsyncClient(base_url=base) as client:
        for fig in (await client.get("/api/figures", timeout=30)).json():
            await client.post(f"/api/figures/{fig['name']}", json={}, timeout=60)
    figures, cpu_f = await alone(base, pid, trainers=0, readers=n, seconds=seconds, fresh=0.0)
    training, cpu_t = await alone(base, pid, trainers=n, readers=0, seconds=seconds, fresh=0.0)
    one, cpu_1 = await alone(base, pid, trainers=1, readers=0, seconds=seconds, fresh=0.0)
    requests, steps = len(figures.latencies_ms), sum(training.trainer_steps)
    return UnitCosts(
        request_ms=1e3 * cpu_f.server / max(1, requests),
        step_us=1e6 * cpu_t.workers / max(1, steps),
        step_alone_us=1e6 * cpu_1.workers / max(1, sum(one.trainer_steps)),
        relay_us=1e6 * cpu_t.server / max(1, training.progress_messages),
        counts=f"{requests} requests, {steps} steps, {training.progress_messages} messages",
    )


def report_units(units: UnitCosts, n: int) -> None:
    print(f"\n  CPU per unit, each kind of work alone ({units.counts}; {n} at a time)")
    print(f"    server, one figure request (a drag)   {units.request_ms:8.2f} ms   target ≤ 1.0")
    print(f"    workers, one training step            {units.step_us:8.0f} µs   target ≤ 150")
    print(f"    workers, one step of a trainer alone  {units.step_alone_us:8.0f} µs")
    print(f"    server, relaying a progress message   {units.relay_us:8.0f} µs")


def claims_measured(base: str, timeout_s: float = 300.0) -> None:
    """Wait (bounded) until the claims runner, which measures the lesson's claims in a process
    of its own at start-up, has finished: its CPU would count as the workers'."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        health = httpx.get(f"{base}/healthz", timeout=30).json()
        if not health["claims"]["measuring"]:
            return
        time.sleep(1.0)
    raise SystemExit("the claims runner was still measuring after 5 minutes")


def load_average() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


async def soak(base: str, pid: int, minutes: float) -> None:
    """16 readers with fresh seeds + 4 trainings for `minutes`; RSS every 30 s."""
    seconds = 60 * minutes
    print(f"\nsoak: 16 readers (fresh seeds) + 4 trainings, {minutes:g} min; RSS every 30 s")
    job = asyncio.ensure_future(
        crowd(base, trainers=4, readers=16, seconds=seconds, fresh=1.0, again=True)
    )
    samples: list[tuple[float, float]] = []
    t0 = time.monotonic()
    while not job.done():
        samples.append((time.monotonic() - t0, rss_mib(pid)))
        print(f"  {samples[-1][0]:6.0f} s  RSS {samples[-1][1]:6.0f} MiB", flush=True)
        await asyncio.wait([job], timeout=30)
    tally = job.result()
    after = [rss for t, rss in samples if t >= 60] or [samples[-1][1]]
    print(f"  growth after warm-up (1 min): {after[-1] - after[0]:+.0f} MiB (target within 50)")
    print(f"  errors: {len(tally.errors)}; figure p99 {pct(tally.latencies_ms, 99):.1f} ms")
    for line in tally.errors[:5]:
        print(f"  error: {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=40, help="trainers, and as many readers")
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--soak", type=float, default=0.0, metavar="MINUTES")
    parser.add_argument("--unit-seconds", type=float, default=8.0, help="each unit alone (0: skip)")
    teacher_help = "first without, then with a teacher's page open and every reader a seat"
    parser.add_argument("--teacher", action="store_true", help=teacher_help)
    args = parser.parse_args()
    if not (1 <= args.learners <= 200 and 1 <= args.seconds <= 600 and 0 <= args.soak <= 30):
        raise SystemExit("bounded: 1–200 learners, 1–600 s, a soak of at most 30 minutes")
    if not 0 <= args.unit_seconds <= 60:
        raise SystemExit("bounded: each unit alone for at most 60 s")
    print(f"{load_average()} at the start ({os.cpu_count()} cores)", flush=True)
    factory = "class_teacher:create_app" if args.teacher else None
    with server(free_port(), factory) as base:
        pid = server_pid()
        stated = httpx.get(f"{base}/api/training/capacity", timeout=30).json()
        claims_measured(base)
        if args.soak:
            asyncio.run(soak(base, pid, args.soak))
            return
        n = args.learners
        units = None
        if args.unit_seconds:
            units = asyncio.run(unit_costs(base, pid, min(n, 8), args.unit_seconds))
        for teacher in (False, True) if args.teacher else (False,):
            if args.teacher:
                print(f"\n=== {'with' if teacher else 'without'} a teacher's page open ===")
            tally, rss, cpu = asyncio.run(measured(base, pid, n, args.seconds, teacher))
            report(n, args.seconds, tally, rss, stated)
            demand(n, args.seconds, tally, cpu, tally.stated_mid)
            if teacher:
                class_teacher.report(tally, args.seconds)
        if units is not None:
            report_units(units, min(n, 8))
    print(f"\n{load_average()} at the end: on a shared machine latencies and rates are low")


async def measured(
    base: str, pid: int, n: int, seconds: float, teacher: bool = False
) -> tuple[Tally, float, CpuUse]:
    before = CpuUse.now(pid)
    job = asyncio.ensure_future(
        crowd(base, trainers=n, readers=n, seconds=seconds, fresh=0.2, teacher=teacher)
    )
    rss = await peak_rss(pid, job)
    return job.result(), rss, CpuUse.now(pid) - before


if __name__ == "__main__":
    main()
