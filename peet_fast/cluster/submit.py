"""A peet-fast job on the Ray cluster this script runs on: what `ray submit CLUSTER.yaml SCRIPT -- ARGS` runs.

    ray submit CLUSTER.yaml "$(python -m peet_fast.cluster.submit --path)" -- \\
        featurize --pairs /shared/pairs.jsonl --out /shared/feats --workers 8

`ray submit` copies this file to the head's home directory and runs `python ~/submit.py ARGS` there (the `python`
first on the head's PATH: the example YAML puts peet-fast's own there). ARGS are those of `peet-fast score` or
`peet-fast featurize`; `--ray-address auto` (the cluster this head belongs to) is added unless ARGS give one. The
script is plain Python that imports peet_fast only to run the command, so a Python without peet-fast says so in one
line (exit 1). Paths: the command runs on the head, in its home directory, so a relative output path would land
there, not where `ray submit` was typed: refused in one line naming where it would land (exit 2); give absolute paths
on storage every node shares. Also runnable as `python -m peet_fast.cluster.submit ARGS` on a node of the cluster."""
from __future__ import annotations

import os
import sys

COMMANDS = ("score", "featurize")
# the options whose value the command writes (peet-fast's parsers mark them; named here so that the check runs before
# anything of peet_fast is imported)
OUTPUTS = ("--out", "--summary", "--json")


def _given(args: list[str], flag: str) -> list[str]:
    """The values args give `flag` (`--flag VALUE` and `--flag=VALUE`)."""
    found = []
    for k, arg in enumerate(args):
        if arg == flag and k + 1 < len(args):
            found.append(args[k + 1])
        elif arg.startswith(flag + "="):
            found.append(arg[len(flag) + 1:])
    return found


def command_line(args: list[str]) -> tuple[list[str] | None, str | None]:
    """(the peet-fast command line to run, None) or (None, the one-line refusal)."""
    if not args or args[0] not in COMMANDS:
        got = f"got {args[0]!r}" if args else "got nothing"
        return None, (f"peet-fast: error: the first argument is the command, one of {', '.join(COMMANDS)} ({got}); "
                      f"the rest are its arguments, as `peet-fast {COMMANDS[0]}` takes them")
    for flag in OUTPUTS:
        for value in _given(args, flag):
            if value and value != "-" and not os.path.isabs(os.path.expanduser(value)):
                return None, (f"peet-fast {args[0]}: error: {flag} {value}: a relative path; this runs on the "
                              f"cluster's head in {os.getcwd()}, so it would land in {os.path.abspath(value)}: "
                              f"give an absolute path on storage every node of the cluster shares")
    if not _given(args, "--ray-address"):
        args = [*args, "--ray-address", "auto"]
    return ["peet-fast", *args], None


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--path"]:                      # where this file is, for `ray submit CLUSTER.yaml PATH -- ...`
        print(os.path.abspath(__file__))
        return 0
    line, refusal = command_line(args)
    if line is None:
        print(refusal, file=sys.stderr)
        return 2
    try:
        from peet_fast.cli import main as peet_fast_main
    except ImportError as exc:
        print(f"peet-fast: error: {sys.executable} cannot import peet-fast ({exc}): run this script with the Python "
              f"peet-fast is installed in (the example cluster YAML puts it first on the head's PATH as `python`)",
              file=sys.stderr)
        return 1
    sys.argv = line
    return peet_fast_main()


if __name__ == "__main__":
    sys.exit(main())
