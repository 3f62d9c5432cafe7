"""The `peet-fast` command line: one module per command (add_parser registers its options, run(args) validates
them, calls one library function and prints), and what they share in _common. No computation of its own."""
from __future__ import annotations

import argparse
import importlib
import sys
import traceback

from peet_fast import __version__
from peet_fast.cli._common import add_debug_option, error_line
from peet_fast.cli._progress import add_quiet_option

COMMANDS = ("compare", "ensemble", "m2", "score", "featurize", "predict", "synth", "train", "explain", "rank",
            "report", "excgec")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="peet-fast",
        description="ERRANT-exact GEC edit extraction with a compiled core, and PEET post-editing-time scoring.")
    parser.add_argument("--version", action="version", version=f"peet-fast {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        command = importlib.import_module(f"peet_fast.cli.{name}")
        p = command.add_parser(sub)
        add_debug_option(p)
        add_quiet_option(p)
        p.set_defaults(func=command.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except Exception as exc:
        handled = error_line(exc)
        if handled is None:
            raise                     # a bug: its traceback
        status, message = handled
        if args.debug:
            traceback.print_exception(exc)
        else:
            print(f"peet-fast {args.command}: error: {message}", file=sys.stderr)
        return status
    except KeyboardInterrupt:
        print(f"peet-fast {args.command}: interrupted; no output written", file=sys.stderr)
        return 130
