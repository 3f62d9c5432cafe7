"""The output checks, made before any work: an output must not be an input (input_conflict: the same file through
links, a directory holding one), its directory must exist, and where an output is written (output_target: in place
for a device, a FIFO or a process's open file; otherwise replaced atomically)."""
from __future__ import annotations

import os
from typing import Sequence

from peet_fast.io.errors import InputError


def check_output(path: str | os.PathLike | None, inputs: Sequence = ()) -> None:
    """Refuse, before any work is done, an output path whose directory does not exist (or is a file) or that is a
    directory, and an output that is one of `inputs` (check_not_input)."""
    if path is None:
        return
    path = os.fspath(path)
    if os.path.isdir(path):
        raise InputError(path, "is a directory; give a file name")
    check_not_input(path, inputs)
    target, in_place = output_target(path)
    if in_place:
        return
    check_parent(path, os.path.dirname(os.path.abspath(target)))


def check_parent(path: str, directory: str | None = None) -> None:
    """Refuse an output whose directory (default: path's own) does not exist or is not a directory (`afile/sub`)."""
    directory = directory or os.path.dirname(os.path.abspath(path))
    if os.path.isdir(directory):
        return
    here = directory
    while here and not os.path.lexists(here):         # the nearest part of the path that exists
        parent = os.path.dirname(here)
        here = "" if parent == here else parent
    if here and not os.path.isdir(here):
        raise InputError(path, f"cannot be created: {here} is a file, not a directory")
    raise InputError(path, "output directory does not exist")


def _real(path: str) -> str:
    return os.path.realpath(os.path.abspath(path))


def _inside(path: str, directory: str) -> bool:
    return path != directory and path.startswith(directory.rstrip(os.sep) + os.sep)


def _stat_or_none(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def input_conflict(out: str | os.PathLike, inputs: Sequence) -> str | None:
    """Why writing `out` would destroy one of `inputs` (paths; None entries skipped), or None: out is the same file
    as an input (same device and inode, or the same real path; through symlinks), out is (or will be) a directory
    that holds an input, or an input is a directory that out lies inside. A character device read and written
    (/dev/null, a terminal) is no conflict."""
    import stat

    out = os.fspath(out)
    out_real = _real(out)
    out_st = _stat_or_none(out)
    for inp in inputs:
        if inp is None:
            continue
        inp = os.fspath(inp)
        in_real = _real(inp)
        in_st = _stat_or_none(inp)
        if out_st is not None and in_st is not None:
            same = (out_st.st_dev, out_st.st_ino) == (in_st.st_dev, in_st.st_ino)
            if same and stat.S_ISCHR(out_st.st_mode):
                continue
        else:
            same = out_real == in_real
        if same:
            return f"is the same file as the input {inp}; give another output (an input is never overwritten)"
        if _inside(in_real, out_real) and out_st is not None and stat.S_ISDIR(out_st.st_mode):
            return f"holds the input {inp}; give an output directory that holds no input"
        if _inside(out_real, in_real) and in_st is not None and stat.S_ISDIR(in_st.st_mode):
            return f"lies inside the input directory {inp}; give an output outside it"
    return None


def check_not_input(out: str | os.PathLike | None, inputs: Sequence) -> None:
    """Refuse (InputError naming both, before anything is read) an output that would destroy an input
    (input_conflict)."""
    if out is None:
        return
    why = input_conflict(out, inputs)
    if why is not None:
        raise InputError(os.fspath(out), why)


# Links through these point at a process's open file (a terminal, a pipe, a shell's `>>` log): never replaced
_FD_LINK_DIRS = ("/proc/", "/dev/fd/", "/dev/stdout", "/dev/stderr")


def output_target(path: str | os.PathLike) -> tuple[str, bool]:
    """Where an output at path is written: (the path to write, whether to write it in place).

    In place (opened and written, never replaced) when path exists and is not a regular file (a character device
    such as /dev/null, a FIFO, a socket; a symlink to one), or when path or a link on the way to its file goes
    through /proc/*/fd, /dev/fd or /dev/stdout (the file a process already holds open: a shell's `> log` or
    `>> log` must not be replaced behind its back). Otherwise the file is replaced atomically; a symlink to a
    regular file (or to a name not yet created) is followed, so its target is replaced and the link kept."""
    import stat

    path = os.fspath(path)
    seen = 0
    current = path
    while True:
        absolute = os.path.abspath(current)
        if absolute.startswith(_FD_LINK_DIRS):
            return path, True
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return current, False
        except OSError:
            return path, False
        if stat.S_ISLNK(st.st_mode):
            seen += 1
            if seen > 40:       # a loop of links: let open() report it
                return path, True
            target = os.readlink(current)
            current = os.path.join(os.path.dirname(absolute), target)
            continue
        if stat.S_ISREG(st.st_mode):
            return current, False
        if stat.S_ISDIR(st.st_mode):
            return current, False   # refused by check_output / the rename below
        return path, True
