"""Prepare a node of a peet-fast Ray cluster (a setup command of example-cluster.yaml):
`~/peet-venv/bin/python -m peet_fast.cluster.node NAME DIR` writes into DIR three small commands for the PATH of every
command Ray runs over SSH and of every job it starts:

- `python` and `peet-fast`: this Python's (its virtual environment's) own, so that `ray submit`'s `python SCRIPT` and
  a `ray job submit` entrypoint `peet-fast ...` find peet-fast (a symbolic link to a venv's python would not: Python
  finds its venv beside the path it was started by);
- `ray`: this environment's Ray, except that `ray stop` stops only cluster NAME's processes
  (`python -m peet_fast.cluster.stop NAME`), never every Ray process of the machine: the `ray stop` that `ray down`
  (and `ray submit --stop`) run on the head is then that one.

Each command is a two-line shell script holding absolute paths; rerunning replaces them."""
from __future__ import annotations

import argparse
import os
import shlex
import sys


def wrappers(name: str, bindir: str) -> dict[str, str]:
    """The scripts to write: command name -> text."""
    python = shlex.quote(sys.executable)
    here = os.path.dirname(sys.executable)
    head = "#!/bin/sh\n# written by `python -m peet_fast.cluster.node`: see that module's docstring\n"
    stop = f"{python} -m peet_fast.cluster.stop {shlex.quote(name)}"
    return {
        "python": f'{head}exec {python} "$@"\n',
        "peet-fast": f'{head}exec {shlex.quote(os.path.join(here, "peet-fast"))} "$@"\n',
        "ray": (f'{head}if [ "$1" = stop ]; then exec {stop}; fi\n'
                f'exec {shlex.quote(os.path.join(here, "ray"))} "$@"\n'),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m peet_fast.cluster.node", description=__doc__.split("\n")[0])
    parser.add_argument("name", help="the cluster's name (PEET_FAST_CLUSTER of its `ray start`)")
    parser.add_argument("bindir", help="the directory to write the commands into (created)")
    args = parser.parse_args(argv)
    bindir = os.path.abspath(os.path.expanduser(args.bindir))
    os.makedirs(bindir, exist_ok=True)
    for command, text in wrappers(args.name, bindir).items():
        path = os.path.join(bindir, command)
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
