"""`attnlab figure NAME --set key=value … [--json] [--png PATH] [--svg PATH]`.

Any figure's data, as the page gets it; with --png/--svg, a static slide version of the figure
(attnlab.export, matplotlib) written to PATH.
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from attnlab.figures import MODULES, compute_figure, figure_module
from attnlab.params import Param, coerce, parse_assignments


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "figure",
        help="print one figure's data (every number the page shows)",
        description="Compute one figure of the lesson. "
        "`attnlab figure NAME --help` lists its settings.",
    )
    names = p.add_subparsers(dest="figure", metavar="NAME", required=True)
    for name in MODULES:
        module = figure_module(name)
        fp = names.add_parser(
            name,
            help=(module.__doc__ or "").strip().splitlines()[0],
            description=(module.__doc__ or "").strip().splitlines()[0],
            epilog=_settings_text(module.PARAMS),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        fp.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
        fp.add_argument("--json", action="store_true", help="print the whole data as JSON")
        fp.add_argument("--png", metavar="PATH", help="write the figure as a 16:9 PNG for slides")
        fp.add_argument("--svg", metavar="PATH", help="write the figure as an SVG for slides")
        if name == "training":  # the one figure with something to train before the slide
            fp.add_argument(
                "--train", metavar="STEPS", default="0", help="train both models first (slides)"
            )
        fp.set_defaults(run=run)


TRAIN_STEPS = Param("train", "int", 0, "steps to train before drawing", lo=0, hi=20_000)


def _settings_text(params) -> str:
    lines = ["settings (--set KEY=VALUE):"]
    for p in params:
        lines.append(f"  {p.name:<12} {p.range_text()}; default {p.default}")
        if p.help:
            lines.append(f"  {'':<12} {p.help}")
    return "\n".join(lines)


def _summary(data: dict) -> Table:
    table = Table(title=f"figure {data['figure']}", show_header=False)
    for key, value in data.items():
        if isinstance(value, (int, float, str, bool)) or value is None:
            table.add_row(key, str(value))
        elif isinstance(value, list):
            table.add_row(key, f"list of {len(value)}")
        elif isinstance(value, dict):
            scalars = [f"{k}={v}" for k, v in value.items() if not isinstance(v, (list, dict))]
            table.add_row(key, ", ".join(scalars) or f"{len(value)} keys")
    return table


def run(args: argparse.Namespace) -> int:
    if args.png or args.svg:
        return _export(args)
    data = compute_figure(args.figure, parse_assignments(args.set))
    if args.json:
        print(json.dumps(data, ensure_ascii=False, allow_nan=False))
    else:
        Console().print(_summary(data))
    return 0


def _export(args: argparse.Namespace) -> int:
    """Write the PNG and/or SVG; a path that cannot be written is one line and exit 2."""
    from attnlab.export import export_figures, figure_data  # matplotlib loads only here

    settings = parse_assignments(args.set)
    targets = {fmt: path for fmt, path in (("png", args.png), ("svg", args.svg)) if path}
    steps = coerce(TRAIN_STEPS, getattr(args, "train", "0"))
    data = figure_data(args.figure, settings, train_steps=steps)  # once, for the files and --json
    try:
        written = export_figures(args.figure, settings, targets, data=data)
    except OSError as err:
        reason = err.strerror or str(err)
        print(f"attnlab figure: cannot write {err.filename or 'the file'}: {reason}",
              file=sys.stderr)  # fmt: skip
        return 2
    if args.json:  # the data the files show (after --train, the trained models')
        print(json.dumps(data, ensure_ascii=False, allow_nan=False))
    for path in written:
        print(f"wrote {path}", file=sys.stderr if args.json else sys.stdout)
    return 0
