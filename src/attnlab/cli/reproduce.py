"""`attnlab reproduce`: measure every number the lesson states and say whether it holds."""

from __future__ import annotations

import argparse
import json
import time

from rich.console import Console
from rich.table import Table

from attnlab.claims import ClaimResult, run_claim, select
from attnlab.claims.text import plain_text


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "reproduce",
        help="measure every number the lesson states (pass/fail)",
        description="Measure every claim of the lesson with the engine; exit 1 if any fails.",
    )
    p.add_argument("--only", default="", help="comma-separated claim ids, e.g. F2.2,F6.1")
    p.add_argument("--full", action="store_true", help="use the multi-seed sweeps (slower)")
    p.add_argument("--json", action="store_true", help="print a JSON list for scripts")
    p.set_defaults(run=run)


def _table(results: list[ClaimResult], seconds: float) -> Table:
    table = Table(title=f"attnlab reproduce · {len(results)} claims · {seconds:.1f} s")
    table.add_column("id", style="bold")
    table.add_column("claim", max_width=44)
    table.add_column("lesson", max_width=26)
    table.add_column("measured", max_width=34)
    table.add_column("", justify="center")
    for r in results:
        mark = "[green]✓[/]" if r.ok else "[red]✗[/]"
        # the lesson's words carry its math as TeX (the page typesets it); a terminal reads Unicode
        table.add_row(r.id, plain_text(r.statement), plain_text(r.lesson), r.measured, mark)
    return table


def run(args: argparse.Namespace) -> int:
    ids = select(args.only.split(",")) if args.only else select(None)
    console = Console(stderr=args.json)
    start = time.perf_counter()
    results = []
    with console.status("measuring…") as status:
        for cid in ids:
            status.update(f"measuring {cid}…")
            results.append(run_claim(cid, args.full))
    if args.json:
        print(json.dumps([r.to_dict() for r in results], ensure_ascii=False, allow_nan=False))
    else:
        console.print(_table(results, time.perf_counter() - start))
        failed = [r.id for r in results if not r.ok]
        console.print(f"[red]failed: {', '.join(failed)}[/]" if failed else "[green]all hold[/]")
    return 0 if all(r.ok for r in results) else 1
