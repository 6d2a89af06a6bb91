"""The teacher's "one seed each" (`attnlab.classroom.seeds`): start it, and take its results
away for a slide.

- `POST /api/teach/seeds` {task, heads, seed, steps}: every seat gets its seed (the message
  goes to every page), and the server trains the same seeds with the sweep, in processes of
  their own that end with it (one sweep at a time), for the teacher's page to compare.
- `GET /api/teach/seeds.csv` and `.png`: the class's results beside the sweep's, as a file to
  download (nothing is written on the server).
"""

from __future__ import annotations

import asyncio
import csv
import io
import logging
import threading
from functools import partial
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response

from attnlab.classroom import seeds
from attnlab.classroom.store import CHANGES, LEARNERS
from attnlab.params import ParamError
from attnlab.processes import Stopped
from attnlab.web.class_socket import class_store, class_view
from attnlab.web.config import WebSettings
from attnlab.web.inputs import InputError, body_settings

log = logging.getLogger("attnlab.web")
SWEEP_WORKERS = 2
STOP_WAIT_S = 3.0  # a stopped sweep's processes end within about a second (processes.py)
CSV_COLUMNS = ("seat", "name", "seed", "attn_err_cm", "mlp_err_cm", "sweep_attn_err_cm",
               "sweep_mlp_err_cm", "agrees", "attention_wins", "failed", "how")  # fmt: skip


def seeds_router() -> APIRouter:
    router = APIRouter(tags=["teacher"])

    @router.post("/api/teach/seeds", include_in_schema=False)
    async def one_seed_each(request: Request) -> JSONResponse:
        limits: WebSettings = request.app.state.limits
        raw = await body_settings(request, limits.max_body_bytes)
        store = class_store(request.app)
        numbers = [seat.number for seat in await store.seats()]
        try:
            experiment = seeds.plan(raw, numbers)
        except ParamError as err:
            raise InputError(("body", err.name), str(err)) from None
        await store.put(seeds.SEEDS, experiment)
        await store.publish(LEARNERS, experiment)
        await store.publish(CHANGES, {"type": "changed"})
        _start_sweep(request.app, experiment)
        return JSONResponse({**experiment, "command": seeds.command(experiment)})

    @router.get("/api/teach/seeds.csv", include_in_schema=False)
    async def results_csv(request: Request) -> Response:
        experiment = await _experiment(request.app)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for r in experiment["results"]:
            ref = r["sweep"] or {}
            writer.writerow([r["number"], r["name"], r["seed"], repr(r["attn_err_cm"]),
                             repr(r["mlp_err_cm"]), repr(ref.get("attn_err_cm", "")),
                             repr(ref.get("mlp_err_cm", "")), r["agrees"], r["attention_wins"],
                             r["failed"], ref.get("how") or ""])  # fmt: skip
        return _download(out.getvalue().encode(), "text/csv; charset=utf-8", "csv")

    @router.get("/api/teach/seeds.png", include_in_schema=False)
    async def results_png(request: Request) -> Response:
        from attnlab.export.class_seeds import png

        experiment = await _experiment(request.app)
        return _download(await asyncio.to_thread(png, experiment), "image/png", "png")

    return router


async def _experiment(app: FastAPI) -> dict[str, Any]:
    experiment = (await class_view(app))["experiment"]
    if experiment is None:
        raise InputError(("experiment",), 'no "one seed each" has run yet', status=404)
    return experiment


def _download(body: bytes, media: str, suffix: str) -> Response:
    name = f'attachment; filename="attnlab-one-seed-each.{suffix}"'
    return Response(body, media_type=media,
                    headers={"content-disposition": name, "cache-control": "no-store"})  # fmt: skip


class Sweeps:
    """The app's sweeps: one at a time (`lock`), each a task held here (a task nobody refers to
    may be collected), all stopped by `stop` at the app's shutdown."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.stop = threading.Event()
        self.tasks: set[asyncio.Task[None]] = set()


def _sweeps(app: FastAPI) -> Sweeps:
    found = getattr(app.state, "sweeps", None)
    if found is None:
        found = app.state.sweeps = Sweeps()
    return found


def _start_sweep(app: FastAPI, experiment: dict[str, Any]) -> None:
    """The sweep of the experiment's seeds, in the background, one at a time."""
    sweeps = _sweeps(app)
    task = asyncio.get_running_loop().create_task(_sweep(app, experiment, sweeps))
    sweeps.tasks.add(task)
    task.add_done_callback(sweeps.tasks.discard)


async def stop_sweeps(app: FastAPI) -> None:
    """At the app's shutdown: the running sweep's processes stop and the waiting ones never
    start, so that a stop signal is not kept waiting by the class's experiment (the sweep's
    thread would hold the process until it had trained every seed)."""
    sweeps = getattr(app.state, "sweeps", None)
    if sweeps is None or not sweeps.tasks:
        return
    sweeps.stop.set()
    await asyncio.wait(list(sweeps.tasks), timeout=STOP_WAIT_S)


async def _sweep(app: FastAPI, experiment: dict[str, Any], sweeps: Sweeps) -> None:
    from attnlab.tabletop import sweep

    seed_list = sorted(experiment["seeds"].values())
    args = (experiment["task"], experiment["heads"], seed_list, experiment["steps"])
    async with sweeps.lock:
        if sweeps.stop.is_set():
            return
        try:
            run = partial(sweep, *args, workers=SWEEP_WORKERS, stop=sweeps.stop)
            result = await asyncio.to_thread(run)
        except Stopped:
            log.info('the sweep for "one seed each" stopped with the server')
            return
        except Exception:  # a failed sweep leaves the comparison out, never the class
            log.exception('the sweep for "one seed each" failed')
            return
    store = class_store(app)
    await store.put(seeds.SWEEP, {"id": experiment["id"], "rows": seeds.sweep_rows(result)})
    await store.publish(CHANGES, {"type": "changed"})
