"""The `peet-fast` command line: one module per command (add_parser registers its options, run(args) validates
them, calls one library function and prints), and what they share in _common. No computation of its own.

The top floor: may import every floor below (api, evaluation, meta_eval, peet, jobs, metrics, languages, io); nothing imports it."""
from __future__ import annotations

import os
import sys

from peet_fast.cli import _signals

if os.path.basename(sys.argv[0]) == "peet-fast":        # the script: a SIGINT during the imports is noted
    _signals.note_from_now()

import argparse
import importlib
import traceback

from peet_fast.cli._common import (
    CommandParser,
    add_debug_option,
    check_outputs,
    error_line,
    interrupt_line,
    terminate_as_interrupt,
)
from peet_fast.cli._flags import Words
from peet_fast.cli._progress import add_quiet_option, command_progress
from peet_fast.cli._signals import end_process, interruption, noted, sigint_noted
from peet_fast.io import shown_line

process_is_ours = False                   # see main()
COMMANDS = ("compare", "ensemble", "m2", "score", "featurize", "predict", "synth", "train", "explain", "rank",
            "report", "excgec", "agreement", "cache", "gleu", "m2scorer", "human-rank", "meta-eval")


class _Versions(argparse.Action):
    """--version: peet-fast's version and the language pipeline's a signature names (read when asked for)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from peet_fast.metrics.signature import versions

        print(versions())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="peet-fast",
        description="ERRANT-exact GEC edit extraction with a compiled core, and PEET post-editing-time scoring.")
    parser.add_argument("--version", action=_Versions, nargs=0,
                        help="show peet-fast's version and the versions its signatures name (docs/metrics.md)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    parser.commands = {}
    for name in COMMANDS:
        command = importlib.import_module(f"peet_fast.cli.{name.replace('-', '_')}")     # human-rank: cli/human_rank
        p = command.add_parser(sub)
        add_debug_option(p)
        add_quiet_option(p)
        p.set_defaults(func=command.run, flags=Words.of(p))
        parser.commands[name] = p
    return parser


def repeated_flag(parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """The message for an option given twice on one command line, in one spelling or two (`--hyp a -hyp b`):
    argparse would keep the last silently. None when every option is given at most once."""
    seen: dict[str, str] = {}
    for token in argv:
        if token == "--":
            break
        flag = token.split("=", 1)[0] if token.startswith("--") else token
        action = parser._option_string_actions.get(flag)      # names are exact (CommandParser: no abbreviations)
        if action is None or isinstance(action, (argparse._AppendAction, argparse._CountAction)):
            continue
        if action.dest in seen:
            first = seen[action.dest]
            how = "twice" if first == flag else f"twice (as {first} and {flag})"
            return f"{flag}: given {how}; give it once"
        seen[action.dest] = flag
    return None


def main(argv: list[str] | None = None) -> int:
    with sigint_noted(keep=argv is None):           # SIGINT: exit 130 and one line, however it surfaces
        args = None
        try:
            if noted():                            # one came as the script imported the command line
                raise KeyboardInterrupt
            parser = build_parser()                 # (imports every command's module)
            args = parser.parse_args(argv)
            status = parsed_command(parser, args, argv)
        except KeyboardInterrupt:         # before the command ran (or as it printed its last line)
            print(f"peet-fast{'' if args is None else ' ' + args.command}: interrupted", file=sys.stderr)
            return 130
    late = f"peet-fast {args.command}: interrupted as it finished (its output is complete)"
    if argv is None:                  # a command line ends here, with a SIGINT however late (cli/_signals.py)
        end_process(status, late)     # at once: no interpreter shutdown, so no Ray teardown (below)
    if noted() and status == 0:                    # a SIGINT a library swallowed: the command ran to its end
        status = 130
        print(late, file=sys.stderr)
    return status


def parsed_command(parser, args, argv: list[str] | None) -> int:
    """The exit status of a parsed command line: an option given twice refused, else the command run."""
    if argv is None:                      # a command line: this process ends with the command (jobs.raywatch)
        global process_is_ours
        process_is_ours = True
    repeated = repeated_flag(parser.commands[args.command], sys.argv[1:] if argv is None else argv)
    if repeated:
        print(f"peet-fast {args.command}: error: {repeated}", file=sys.stderr)
        return 2
    return run_command(parser, args)


def run_command(parser, args) -> int:
    """Run the command of parsed arguments: its exit status, an error as one line (a bug: its traceback), an
    interruption as one line (also one a library turned into another exception: cli._signals.interruption)."""
    try:
        with terminate_as_interrupt():
            check_outputs(parser.commands[args.command], args)
            with command_progress(args) as args.progress_report:     # from the start: cli/_progress.py
                return args.func(args)
    except Exception as exc:
        behind = interruption(exc) or (KeyboardInterrupt() if noted() else None)    # a SIGINT came first
        if behind is not None:
            return interrupted(args, behind, exc)
        handled = error_line(exc, args.flags)
        if handled is None:
            raise                     # a bug: its traceback
        status, message = handled
        if args.debug:
            traceback.print_exception(exc)
        else:
            print(f"peet-fast {args.command}: error: {shown_line(message)}", file=sys.stderr)
        return status
    except KeyboardInterrupt as exc:
        return interrupted(args, exc)


def interrupted(args, exc: KeyboardInterrupt, surfaced: BaseException | None = None) -> int:
    """The one line of an interruption (with --debug, the traceback of the exception it surfaced as); its status."""
    status, message = interrupt_line(exc)
    if args.debug and surfaced is not None:
        traceback.print_exception(surfaced)
    print(f"peet-fast {args.command}: {shown_line(message)}", file=sys.stderr)
    return status
