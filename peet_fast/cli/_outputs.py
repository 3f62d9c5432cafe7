"""Which paths a command line writes and which it reads, from the parser itself: an option that writes is declared
once (mark_output; the vocabulary's --out is one), every other path the command line names is an input, and
check_outputs refuses an output that would destroy an input, before the command runs (cli.main)."""
from __future__ import annotations

import argparse
import os

from peet_fast.io import InputError


def mark_output(action: argparse.Action) -> argparse.Action:
    """Declare an option as one the command writes (a file or directory). Every other path a command line names is
    an input, and main() refuses, before the command runs, an output that is an input or another output
    (command_outputs, check_outputs): no command can forget an input in that check."""
    action.writes = True
    return action


def add_output_option(p, *names: str, **kwargs) -> argparse.Action:
    """An output option other than the vocabulary's --out (--summary, --json, --plot): add_argument + mark_output."""
    return mark_output(p.add_argument(*names, **kwargs))


def _given_strings(action: argparse.Action, args) -> list[str]:
    """The string values the command line gave an option (a default is not given; flags have none)."""
    if action.nargs == 0 or action.dest in (None, argparse.SUPPRESS):
        return []
    value = getattr(args, action.dest, None)
    if value is None or value is action.default or value == action.default:
        return []
    values = value if isinstance(value, (list, tuple)) else [value]
    return [v for v in values if isinstance(v, str) and v not in ("", "-")]


def command_paths(parser: argparse.ArgumentParser, args) -> tuple[list[tuple[str, str]], list[str]]:
    """(outputs, inputs) of a parsed command line: outputs = (option, path) of every option marked as written
    (mark_output); inputs = every other value naming an existing file or directory (NAME=PATH: the PATH too)."""
    outputs: list[tuple[str, str]] = []
    inputs: list[str] = []
    for action in parser._actions:
        values = _given_strings(action, args)
        if getattr(action, "writes", False):
            flag = action.option_strings[0] if action.option_strings else action.dest
            outputs.extend((flag, v) for v in values)
            continue
        for v in values:
            for candidate in (v, v.split("=", 1)[1] if "=" in v else None):
                if candidate and os.path.lexists(candidate):
                    inputs.append(candidate)
    return outputs, inputs


def ray_job_working_dir() -> str | None:
    """The current directory where it is a Ray job's copy of its --working-dir (`ray job submit --working-dir DIR`
    uploads DIR and runs the entrypoint in SESSION/runtime_resources/working_dir_files/_ray_pkg_HASH), else None.
    Relative inputs there are the uploaded files, as the user means them; a relative output would be written into
    the copy, which Ray removes, not into DIR."""
    try:
        here = os.getcwd()
    except OSError:
        return None
    marker = f"{os.sep}runtime_resources{os.sep}working_dir_files{os.sep}"
    return here if marker in here + os.sep else None


def check_outputs(parser: argparse.ArgumentParser, args) -> None:
    """Refuse (InputError, before anything is read or written) an output that would destroy one of the command
    line's inputs (io.input_conflict: the same file, through links; a directory holding one) or that names the same
    file as another of its outputs."""
    from peet_fast.io import _real, check_not_input

    outputs, inputs = command_paths(parser, args)
    seen: dict[str, str] = {}
    job_copy = ray_job_working_dir()
    for flag, path in outputs:
        if job_copy and not os.path.isabs(os.path.expanduser(path)) and path != "/dev/null":
            raise InputError(f"{flag} {path}", f"a relative path inside a Ray job's working directory, Ray's "
                             f"temporary copy of --working-dir: it would land in {os.path.abspath(path)}, removed "
                             f"with the Ray session; give an absolute path (on storage the cluster's nodes share)")
        check_not_input(path, inputs)
        real = _real(path)
        if real in seen and not os.path.isdir(real) and real != "/dev/null":
            raise InputError(path, f"is also the output of {seen[real]}; give {flag} another file")
        seen.setdefault(real, flag)
