"""`attnlab train`: FIG 2's training on the command line, one seed or a sweep of seeds.

    attnlab train --task fetch --heads 1 --seed 9 --steps 1500       # progress bar, then a summary
    attnlab train --task vector --heads 2 --json                     # the whole curve as JSON
    attnlab train --task vector --heads 2 --sweep 20                 # seeds 0–19 on both cores

Every option is a `Param`, so a wrong value gets one line naming the option and its range.
NumPy and the trainer are imported only when a run starts, to keep `attnlab --help` quick.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from attnlab.params import Param, validate

# the seed, task and heads of one run are checked by TrainConfig (tabletop.trainer.PARAMS)
SWEEP = Param("sweep", "int", 0, "train this many seeds (0: one run)", 0, 200)
WORKERS = Param("workers", "int", 2, "processes for a sweep", 1, 8)


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "train",
        help="train FIG 2's attention model and MLP on the tabletop task",
        description="Train the cross-attention model and the slot MLP of FIG 2 on the same "
        "stream of scenes; print when the attention model's test error first falls below "
        "3, 2 and 1 cm, and the final errors of both models.",
    )
    p.add_argument("--task", default="fetch", help="fetch (p_target) or vector (p_A − p_B)")
    p.add_argument("--heads", default="1", help="1, 2 or 4 attention heads")
    p.add_argument("--seed", default=None, help="seed (default: the lesson's; a sweep starts at 0)")
    p.add_argument("--steps", default="1500", help="training steps, 0 to 20000 (default 1500)")
    p.add_argument("--sweep", default="0", metavar="N", help="train N seeds (1 to 200) instead")
    p.add_argument("--workers", default="2", help="processes for a sweep (default 2)")
    p.add_argument("--json", action="store_true", help="print JSON (the whole curve) for scripts")
    p.set_defaults(run=run)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    from attnlab.tabletop.trainer import PARAMS, STEPS

    raw = {"task": args.task, "heads": args.heads, "steps": args.steps}
    raw.update({"sweep": args.sweep, "workers": args.workers})
    if args.seed is not None:
        raw["seed"] = args.seed
    opts = validate((*PARAMS, STEPS, SWEEP, WORKERS), raw)
    if args.seed is None and opts["sweep"]:
        opts["seed"] = 0
    return opts


def run(args: argparse.Namespace) -> int:
    opts = _options(args)
    if opts["sweep"]:
        return _run_sweep(opts, as_json=args.json)
    return _run_one(opts, as_json=args.json)


def _run_one(opts: dict[str, Any], *, as_json: bool) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from attnlab.tabletop import TrainConfig, Trainer

    cfg = TrainConfig(task=opts["task"], heads=opts["heads"], seed=opts["seed"])
    start = time.perf_counter()
    trainer = Trainer(cfg)
    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[err]}"))
    console = Console(stderr=True)  # the bar goes to stderr, so stdout stays clean for --json
    live = {"console": console, "transient": True, "disable": not console.is_terminal}
    with Progress(*columns, TimeElapsedColumn(), **live) as bar:
        job = bar.add_task("training", total=opts["steps"], err="")
        for rec in trainer.run(opts["steps"]):
            err = f"attention {rec['attn_err_cm']:.2f} cm · MLP {rec['mlp_err_cm']:.1f} cm"
            bar.update(job, completed=rec["step"], err=err)
    seconds = time.perf_counter() - start
    if as_json:
        config = {**cfg.to_dict(), "steps": opts["steps"]}
        out = {"config": config, "history": trainer.history, "summary": trainer.summary()}
        out["colour_match"] = trainer.colour_match()
        print(json.dumps(out, allow_nan=False))
    else:
        summary = {**trainer.summary(), "peaks": trainer.colour_match()["peaks"]}
        Console().print(_summary_text(cfg.task, cfg.heads, cfg.seed, summary, seconds))
    return 0


def _summary_text(task: str, heads: int, seed: int, s: dict[str, Any], seconds: float) -> str:
    f = s["final"]
    below = ", ".join(f"{cm} cm {_step(s[f'first_below_{cm}cm'])}" for cm in (3, 2, 1))
    lines = [
        f"[bold]attnlab train[/] · {task} · {heads} head{'s' * (heads > 1)} · seed {seed} · "
        f"{s['step']} steps · {seconds:.2f} s",
        f"attention model first below {below}",
    ]
    if s["mlp_err_at_2cm"] is not None:
        lines.append(f"MLP when attention first went below 2 cm: {s['mlp_err_at_2cm']:.1f} cm")
    lines += [
        "final test error (cm)   2–5 objects   6 objects",
        f"  attention             {f['attn_err_cm']:11.2f} {f['attn_err6_cm']:11.2f}",
        f"  MLP                   {f['mlp_err_cm']:11.2f} {f['mlp_err6_cm']:11.2f}",
    ]
    for h, (w, p) in enumerate(zip(f["head_weight"], s["peaks"], strict=True), start=1):
        text = f"{w:.3f} on the target" if task == "fetch" else f"A {w[0]:.3f} · B {w[1]:.3f}"
        # the colour-match table (tabletop/colour_match.py): where a centred block scores highest
        peaks = f"target {p[0]:.0%}" if task == "fetch" else f"A {p[0]:.0%} · B {p[1]:.0%}"
        lines.append(f"head {h}: mean weight {text} · colour match peaks on {peaks}")
    return "\n".join(lines)


def _step(step: int | None) -> str:
    return "never" if step is None else f"at step {step}"


def _run_sweep(opts: dict[str, Any], *, as_json: bool) -> int:
    from rich.console import Console

    from attnlab.tabletop import sweep

    seeds = list(range(opts["seed"], opts["seed"] + opts["sweep"]))
    start = time.perf_counter()
    with Console(stderr=True).status(f"training {len(seeds)} seeds on {opts['workers']} cores…"):
        result = sweep(opts["task"], opts["heads"], seeds, opts["steps"], workers=opts["workers"])
    seconds = time.perf_counter() - start
    if as_json:
        print(json.dumps({**result.to_dict(histories=True), "seconds": seconds}, allow_nan=False))
    else:
        Console().print(_sweep_text(result, seconds))
    return 0


def _sweep_text(result: Any, seconds: float) -> str:
    st = result.stats()
    seeds = result.seeds
    lines = [
        f"[bold]attnlab train --sweep[/] · {result.task} · {result.heads} head"
        f"{'s' * (result.heads > 1)} · seeds {seeds[0]}–{seeds[-1]} · {result.steps} steps · "
        f"{seconds:.1f} s",
        "over seeds                       median     10th–90th pct   never",
    ]
    for key, label in (
        ("first_below_3cm", "first step below 3 cm"),
        ("first_below_2cm", "first step below 2 cm"),
        ("first_below_1cm", "first step below 1 cm"),
        ("mlp_err_at_2cm", "MLP (cm) when attn < 2 cm"),
        ("final_attn_err_cm", "final attention (cm)"),
        ("final_attn_err6_cm", "final attention, 6 obj. (cm)"),
        ("final_mlp_err_cm", "final MLP (cm)"),
        ("final_mlp_err6_cm", "final MLP, 6 obj. (cm)"),
        *((k, f"best head weight on {k[13:]}") for k in st if k.startswith("final_weight_")),
    ):
        d = st[key]
        if d["median"] is None:
            lines.append(f"  {label:30} {'—':>6}                      {d['missing']}")
            continue
        lines.append(
            f"  {label:30} {d['median']:6.4g}   {d['p10']:7.4g} – {d['p90']:<7.4g}  {d['missing']}"
        )
    fails = result.failures()
    lines.append(f"failed: {len(fails)} of {len(seeds)} seeds")
    lines += [f"  seed {f['seed']}: {f['how']} ({f['attn_err_cm']:.1f} cm)" for f in fails]
    return "\n".join(lines)
