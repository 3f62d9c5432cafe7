"""Writing outputs atomically: a temporary file beside the target, renamed over it when complete (atomic_write), so
a failed or killed run leaves the old file or none, never half of one; JSON outputs (write_json)."""
from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Iterator

from peet_fast.io.checks import check_parent, output_target
from peet_fast.io.errors import InputError


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8") -> Iterator:
    """Write to a temporary file beside path and rename it over path only when the block succeeds.

    An existing output that is not a regular file (a device, a FIFO, a process's open file through /proc or
    /dev/fd; a symlink to one) is written in place instead, never replaced; a symlink to a regular file is
    followed: its target is replaced, the link kept (output_target)."""
    path = os.fspath(path)
    target, in_place = output_target(path)
    kwargs = {"encoding": encoding, "newline": "\n"} if "b" not in mode else {}
    if in_place:
        try:   # appended, never truncated: a process's stdout that is a file keeps what was written before
            fh = open(path, mode.replace("w", "a"), **kwargs)
        except OSError as exc:
            raise InputError(path, f"cannot write: {exc.strerror or exc}") from None
        with naming(path), fh:
            yield fh
        return
    directory = os.path.dirname(os.path.abspath(target))
    check_parent(path, directory)
    remove_stale_temp_files(directory)
    with naming(path):
        fd, tmp = tempfile.mkstemp(prefix=f"{_temp_prefix()}-", suffix=".tmp", dir=directory)
    try:
        with naming(path):
            os.chmod(tmp, 0o666 & ~current_umask())
            with os.fdopen(fd, mode, **kwargs) as fh:
                yield fh
            os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _host_tag() -> str:
    import hashlib
    import socket

    return hashlib.sha1(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]


def _temp_prefix() -> str:
    """The name start of this process's temporary output files: .peet-fast-<host tag>-<pid> (the owner, so that a
    later run can tell a file a killed run left behind from one a live run is writing)."""
    return f".peet-fast-{_host_tag()}-{os.getpid()}"


_TEMP_NAME = None


def temp_dir(directory: str, what: str) -> str:
    """A new temporary directory in `directory` for an output directory being written (`what`: report, ...),
    named as the temporary files are (.peet-fast-<host tag>-<pid>-<what>-*.tmp): one a killed run leaves is
    removed by the next run's remove_stale_temp_files."""
    return tempfile.mkdtemp(prefix=f"{_temp_prefix()}-{what}-", suffix=".tmp", dir=directory)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:          # not ours to signal: it exists
        return True
    return True


def remove_stale_temp_files(directory: str) -> list[str]:
    """Remove the temporary outputs in `directory` that a run of this host killed before it could (kill -9, a lost
    machine) left behind: .peet-fast-<host tag>-<pid>-*.tmp files and directories (temp_dir) whose process is gone.
    Those of other hosts (a shared file system), of live processes, and every other name are left alone. Returns
    the paths removed."""
    import re

    global _TEMP_NAME
    if _TEMP_NAME is None:
        _TEMP_NAME = re.compile(r"\.peet-fast-([0-9a-f]{8})-(\d+)-[^/]*\.tmp\Z")
    removed = []
    host = _host_tag()
    try:
        entries = [e for e in os.scandir(directory) if e.name.startswith(".peet-fast-")]
    except OSError:
        return removed
    for e in entries:
        m = _TEMP_NAME.match(e.name)
        if not m or m.group(1) != host:
            continue
        pid = int(m.group(2))
        if pid == os.getpid() or _pid_alive(pid):
            continue
        try:
            if e.is_file(follow_symlinks=False):
                os.unlink(e.path)
                removed.append(e.path)
            elif e.is_dir(follow_symlinks=False):
                import shutil

                shutil.rmtree(e.path)
                removed.append(e.path)
        except OSError:
            pass
    return removed


@contextlib.contextmanager
def naming(path: str) -> Iterator[None]:
    """Within the block, an OSError that names no file, or names a temporary file of ours, (a full disk on write(),
    a failed rename) names `path` instead: the user's output, never an internal name."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None or os.path.basename(str(exc.filename)).startswith(".peet-fast-"):
            raise OSError(exc.errno, exc.strerror or str(exc), path) from exc
        raise


def current_umask() -> int:
    """The process's file-mode creation mask (read by setting it and restoring it)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_json(path: str | os.PathLike, obj) -> None:
    """Write obj as indented UTF-8 JSON (non-ASCII kept as is), atomically."""
    import json

    with atomic_write(path) as fh:
        json.dump(obj, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
