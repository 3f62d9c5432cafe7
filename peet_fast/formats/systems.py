"""Systems as a command line names them: --hyp PATH (named after its file) or NAME=PATH, or --names NAME ... beside
plain paths; one name per system, two systems never named alike. The input side's rule, used by every command and
by the API (peet.scoring, evaluation.rank, jobs.tasks take the names it gives).

Errors name the parameters (``hyps``, ``names``; in a message in backticks), or the spec at fault; the command line
words them as its --hyp and --names (peet_fast.cli._common.flag_worded)."""
from __future__ import annotations

import os
from typing import Sequence

from peet_fast.io import InputError


def system_name(path: str) -> str:
    """A system's name: its file name without extension."""
    return os.path.splitext(os.path.basename(path))[0]


def system_names(hyps: Sequence[str], names: Sequence[str] | None = None, param: str = "hyps") -> list[str]:
    """The systems' names: `names` when given (one per hypothesis file of `hyps`), else system_name of each file.
    Two systems with the same name are refused (InputError naming both files). param: the parameter the specs
    came in (`hyps`; meta-eval's `outputs`, which has no `names` beside it)."""
    if names is None:
        names = [system_name(f) for f in hyps]
    elif len(names) != len(hyps):
        raise InputError("names", f"gives {len(names)} name{'s' if len(names) != 1 else ''} for "
                                  f"{len(hyps)} hypothesis files")
    first: dict[str, str] = {}
    for name, path in zip(names, hyps):
        if not name:
            raise InputError(path, "its system name is empty")
        if name in first:
            apart = f"`{param}` NAME=PATH ..." + (" or `names` NAME ..." if param == "hyps" else "")
            raise InputError(param, f"two systems are named {name!r}: {first[name]} and {path}; name them apart "
                                    f"({apart})")
        first[name] = path
    return list(names)


def named_systems(hyps: Sequence[str], names: Sequence[str] | None = None,
                  param: str = "hyps") -> tuple[list[str], list[str]]:
    """(names, paths) of hypothesis specs as a command line gives them: PATH (named after the file name without
    extension) or NAME=PATH; with `names` (--names), the specs are paths taken literally (a path with '=' in it
    needs this). Refused with InputError: an empty name, a path containing '=', NAME=PATH mixed with names, and
    two systems with the same name."""
    if names is not None:
        for spec in hyps:
            if "=" in spec and not os.path.exists(spec):
                raise InputError(spec, "no such file (with `names`, `hyps` takes paths as they are, not NAME=PATH)")
        return system_names(list(hyps), names), list(hyps)
    out_names, paths = [], []
    for spec in hyps:
        if "=" not in spec:
            out_names.append(system_name(spec))
            paths.append(spec)
            continue
        name, path = spec.split("=", 1)
        if os.path.exists(spec):
            raise InputError(spec, "a path with '=' in it reads as NAME=PATH; " + (
                "give the paths as they are and the names with `names` NAME ..." if param == "hyps" else
                f"give it a name of its own: `{param}` NAME={spec}"))
        if not name:
            raise InputError(spec, "NAME=PATH with an empty name")
        if not path or "=" in path:
            raise InputError(spec, "NAME=PATH takes a path without '=' (a file whose path has '=' in it: " + (
                "give the paths as they are and the names with `names`)" if param == "hyps" else "rename it)"))
        out_names.append(name)
        paths.append(path)
    return system_names(paths, out_names, param), paths
