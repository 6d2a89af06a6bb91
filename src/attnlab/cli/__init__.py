"""`attnlab` on the command line: one subcommand per module, each `add_parser` + `run`.

Wrong options get one clear line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from attnlab.params import ParamError

# subcommand -> module under attnlab.cli; each defines add_parser(subparsers) and run(args) -> int
SUBCOMMANDS = ("serve", "train", "reproduce", "figure")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only`, just that subcommand is built (its imports can be heavy)."""
    parser = _Parser(
        prog="attnlab",
        description="An interactive lesson on attention and Transformers for robot learning.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in SUBCOMMANDS if only not in SUBCOMMANDS else (only,):
        importlib.import_module(f"attnlab.cli.{name}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    try:
        return int(args.run(args) or 0)
    except ParamError as err:
        print(f"attnlab {args.command}: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"attnlab {args.command}: interrupted", file=sys.stderr)
        return 130
