"""The `peet-fast` command line: one module per command (add_parser registers its options, run(args) validates
them, calls one library function and prints), and what they share in _common. No computation of its own."""
from __future__ import annotations

import argparse
import importlib
import sys

from peet_fast import __version__
from peet_fast.en.features import FeatureError
from peet_fast.en.parse import PipelineError
from peet_fast.io import InputError
from peet_fast.model import ModelError

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
        command.add_parser(sub).set_defaults(func=command.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (InputError, PipelineError, ModelError, FeatureError) as exc:
        print(f"peet-fast {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"peet-fast {args.command}: interrupted; no output written", file=sys.stderr)
        return 130
