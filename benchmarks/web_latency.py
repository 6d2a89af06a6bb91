"""How fast the lesson server answers, measured against its budgets in one run.

1. Figure endpoints: each figure's latency with 1 client and with 20 concurrent clients, over
   varied valid settings drawn from its PARAMS (seeds kept at their defaults, as when a reader
   drags a slider); p50 / p99 against the 20 ms budget. Then, with 1 client, new seeds (a reader
   pressing "reseed"), which defeats the figures' per-seed caches.
2. The training socket (FIG 2): progress messages per second (budget ≥ 20) and training steps per
   second, against `Trainer.advance` measured in this process in the same run (budget ≥ 0.8×).

The server is `attnlab serve` on a free 127.0.0.1 port; every request stays on loopback.
The run is bounded: a fixed number of requests, a few seconds of training, timeouts throughout.

    .venv/bin/python benchmarks/web_latency.py [--clients 20] [--requests 30]
        [--seconds 1.5] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import numpy as np

BUDGET_MS = 20.0
MIN_MESSAGES_PER_S = 20.0
MIN_SPEED_RATIO = 0.8


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def server(port: int, factory: str | None = None) -> Iterator[str]:
    """`attnlab serve` on 127.0.0.1:port, as a reader runs it (its HTTP protocol, limits and
    training workers); its base URL. `factory`: instead, uvicorn serving this app factory (a
    module of benchmarks/ may give one with other settings, e.g. class_teacher's)."""
    cmd = [sys.executable, "-m", "attnlab", "serve", "--no-browser", "--port", str(port)]
    if factory is not None:
        here = str(Path(__file__).resolve().parent)
        cmd = [sys.executable, "-m", "uvicorn", "--factory", factory, "--app-dir", here]
        cmd += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        end = time.monotonic() + 120  # a busy machine starts the workers slowly
        while True:
            try:
                if httpx.get(f"{base}/api/figures", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > end:
                raise SystemExit(f"server did not start: {proc.stderr.read().decode()[-2000:]}")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def random_settings(
    params: list[dict[str, Any]], rng: np.random.Generator, *, reseed: bool
) -> dict[str, Any]:
    """One valid value per Param.describe(), drawn across its whole range (seeds only if asked)."""
    out: dict[str, Any] = {}
    for p in params:
        lo, hi = p.get("min"), p.get("max")
        if p["name"] == "seed" and not reseed:
            continue
        if p["kind"] == "choice":
            out[p["name"]] = p["choices"][rng.integers(len(p["choices"]))]
        elif p["kind"] == "bool":
            out[p["name"]] = bool(rng.integers(2))
        elif p["kind"] == "vector":
            out[p["name"]] = rng.uniform(lo, hi, p["length"]).round(3).tolist()
        elif p["kind"] == "int" and p.get("log") and lo > 0:
            out[p["name"]] = round(float(np.exp(rng.uniform(np.log(lo), np.log(hi)))))
        elif p["kind"] == "int":
            out[p["name"]] = int(rng.integers(lo, hi + 1))
        else:
            out[p["name"]] = float(rng.uniform(lo, hi))
    return out


def timed_post(client: httpx.Client, url: str, settings: dict[str, Any]) -> float:
    t0 = time.perf_counter()
    answer = client.post(url, json=settings, timeout=30)
    ms = 1000 * (time.perf_counter() - t0)
    if answer.status_code != 200:
        raise SystemExit(f"{url} {settings}: {answer.status_code} {answer.text[:300]}")
    return ms


def load(
    base: str, figures: list[dict], clients: int, per_client: int, *, reseed: bool = False
) -> dict[str, list[float]]:
    """`clients` threads, each posting `per_client` requests to every figure, interleaved."""
    times: dict[str, list[float]] = defaultdict(list)
    lock = threading.Lock()

    def one_client(k: int) -> None:
        rng = np.random.default_rng(k)
        with httpx.Client() as client:
            for _ in range(per_client):
                for fig in figures:
                    settings = random_settings(fig["params"], rng, reseed=reseed)
                    ms = timed_post(client, f"{base}/api/figures/{fig['name']}", settings)
                    with lock:
                        times[fig["name"]].append(ms)

    threads = [threading.Thread(target=one_client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return times


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


def report_figures(alone: dict[str, list[float]], crowd: dict[str, list[float]], n: int) -> None:
    print(f"\nFigure endpoints (POST, varied settings), budget {BUDGET_MS:.0f} ms")
    head = f"{'figure':<10} {'1 client p50':>13} {'p99':>7} ok?   {n:>2} clients p50 {'p99':>7} ok?"
    print(head)
    for name in alone:
        a50, a99 = pct(alone[name], 50), pct(alone[name], 99)
        c50, c99 = pct(crowd[name], 50), pct(crowd[name], 99)
        ok1 = "yes" if a99 <= BUDGET_MS else "NO "
        okn = "yes" if c99 <= BUDGET_MS else "NO"
        print(f"{name:<10} {a50:>10.1f} ms {a99:>7.1f} {ok1}   {c50:>10.1f} ms {c99:>7.1f} {okn}")


def in_process_steps_per_s(config: dict[str, Any], seconds: float) -> float:
    """`Trainer.advance` in this process, in chunks as large as the socket's frames."""
    from attnlab.tabletop import TrainConfig, Trainer

    trainer = Trainer(TrainConfig(**config))
    trainer.advance(50)  # warm up
    start, t0 = trainer.step, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        trainer.advance(100)
    return (trainer.step - start) / (time.perf_counter() - t0)


def socket_speed(base: str, config: dict[str, Any], seconds: float) -> tuple[float, float]:
    """(progress messages per second, steps per second) while the socket trains."""
    from websockets.sync.client import connect

    url = base.replace("http://", "ws://") + "/ws/train"
    with connect(url, open_timeout=10, close_timeout=2) as ws:
        ws.send(json.dumps({"type": "config", **config}))
        _drain_until(ws, lambda m: m["type"] == "progress")  # the new run's starting point
        ws.send(json.dumps({"type": "step", "n": 50}))  # warm up, as in-process
        _drain_until(ws, lambda m: m["type"] == "state" and not m["running"])
        ws.send(json.dumps({"type": "start"}))
        stamps: list[tuple[float, int]] = []
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            m = json.loads(ws.recv(timeout=5))
            if m["type"] == "progress":
                stamps.append((time.perf_counter(), m["step"]))
        ws.send(json.dumps({"type": "pause"}))
    (t0, s0), (t1, s1) = stamps[0], stamps[-1]
    return (len(stamps) - 1) / (t1 - t0), (s1 - s0) / (t1 - t0)


def _drain_until(ws: Any, stop: Any) -> None:
    while not stop(json.loads(ws.recv(timeout=10))):
        pass


def report_training(base: str, seconds: float, rounds: int) -> None:
    """Socket and in-process runs alternate, `rounds` times each: a slow spell of the machine
    (other programs on its 2 cores) then hits both sides alike; medians are compared."""
    print(f"\nTraining socket vs in-process Trainer.advance ({rounds} × {seconds:g} s each)")
    print(
        f"{'config':<18} {'msgs/s':>7} {'socket steps/s':>15} {'in-process':>11} {'ratio':>6}  ok?"
    )
    for config in (
        {"task": "fetch", "heads": 1, "seed": 0},
        {"task": "vector", "heads": 2, "seed": 0},
    ):
        rates, socket_steps, local_steps = [], [], []
        for _ in range(rounds):
            rate, steps = socket_speed(base, config, seconds)
            rates.append(rate)
            socket_steps.append(steps)
            local_steps.append(in_process_steps_per_s(config, seconds))
        rate, steps, local = (float(np.median(x)) for x in (rates, socket_steps, local_steps))
        ratio = steps / local
        ok = "yes" if rate >= MIN_MESSAGES_PER_S and ratio >= MIN_SPEED_RATIO else "NO"
        label = f"{config['task']}, {config['heads']} head(s)"
        print(f"{label:<18} {rate:>7.1f} {steps:>15.0f} {local:>11.0f} {ratio:>6.2f}  {ok}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--requests", type=int, default=30, help="per figure, per client")
    parser.add_argument("--seconds", type=float, default=1.5, help="of training, per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="of training measurements")
    args = parser.parse_args()
    with server(free_port()) as base:
        figures = httpx.get(f"{base}/api/figures", timeout=10).json()
        load(base, figures, 1, 3)  # warm up (imports, caches of the default seeds)
        alone = load(base, figures, 1, args.requests)
        t0 = time.perf_counter()
        crowd = load(base, figures, args.clients, max(1, args.requests // 2))
        wall = time.perf_counter() - t0
        report_figures(alone, crowd, args.clients)
        total = sum(len(v) for v in crowd.values())
        print(f"({total} concurrent requests in {wall:.1f} s: {total / wall:.0f} requests/s)")
        seeded = [f for f in figures if any(p["name"] == "seed" for p in f["params"])]
        reseed = load(base, seeded, 1, max(3, args.requests // 3), reseed=True)
        print(
            "\nNew seeds, 1 client: "
            + ", ".join(
                f"{name} p50 {pct(v, 50):.0f} / p99 {pct(v, 99):.0f} ms"
                for name, v in reseed.items()
            )
        )
        report_training(base, args.seconds, args.rounds)


if __name__ == "__main__":
    main()
