"""A job directory on disk: one Parquet file per shard (part-NNNNN.parquet), DIR/_manifest.json listing the
completed ones, and DIR/_lock while a job runs; read back as one dataset, shard by shard in row order.

Each part file also records its own manifest entry (the job's signature, the shard's rows and input digest) in its
Parquet key-value metadata and carries page checksums, so a finished shard that the manifest does not list (a driver
killed between the two writes, results of Ray workers still in flight) or a damaged manifest is recovered from the
part files that verify."""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import socket
import sys
import time

from peet_fast.io import InputError, json_loads

MANIFEST = "_manifest.json"   # "_" prefix: pyarrow.parquet.read_table(DIR) skips it
LOCK = "_lock"
FORMAT = "peet-fast-job"
SHARD_KEY = "peet_fast.shard"          # a part file's key-value metadata: its manifest entry and the job signature
SIGNATURE_KEY = "peet_fast.signature"  # and how to reproduce its figures (metrics.signature.job_signature)
PART = re.compile(r"part-(\d{5,})\.parquet")
TMP = re.compile(r"\.peet-fast-.*\.tmp")   # io.atomic_write's temporary files


def shard_file(index: int) -> str:
    return f"part-{index:05d}.parquet"


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def notice(message: str) -> None:
    """One line on stderr about something done on the user's behalf (a stale lock taken over, a manifest rebuilt)."""
    print(f"peet-fast: {message}", file=sys.stderr)


def is_job_file(name: str) -> bool:
    """Whether a directory entry belongs to a job directory (parts, manifest, lock, temporary files)."""
    return name == MANIFEST or name.startswith(LOCK) or bool(PART.fullmatch(name) or TMP.fullmatch(name))


def remove_temp_files(out_dir: str) -> None:
    """Remove the temporary files of unfinished writes (only while holding the directory's lock)."""
    with contextlib.suppress(OSError):
        for name in os.listdir(out_dir):
            if TMP.fullmatch(name):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(out_dir, name))


def part_entry(path: str) -> dict | None:
    """The manifest entry recorded in a part file (with the job's signature under "signature"), read from its footer,
    or None when it has none or its footer cannot be read."""
    import pyarrow.parquet as pq

    try:
        meta = pq.read_metadata(path).metadata or {}
        entry = json_loads(meta[SHARD_KEY.encode()])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return entry if isinstance(entry, dict) else None


def part_verifies(path: str, rows: int) -> bool:
    """Whether a part file reads back whole: every page checksum holds and it has `rows` rows."""
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path, page_checksum_verification=True).read().num_rows == rows
    except (OSError, ValueError):
        return False


class JobLock:
    """DIR/_lock: created atomically (O_EXCL) with its owner's host, pid and start time; stops a second job on the
    same directory. A lock of this host whose process is gone is stale: taken over with one notice."""

    def __init__(self, out_dir: str):
        self.path = os.path.join(out_dir, LOCK)
        self.owner = {"host": socket.gethostname(), "pid": os.getpid(), "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
                      "proc_start": _proc_start(os.getpid())}
        self.held = False

    def acquire(self) -> None:
        """Take the lock, or raise InputError naming its live owner."""
        for _ in range(3):
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                self._take_over_if_stale()
                continue
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(self.owner, fh)
                fh.write("\n")
            self.held = True
            return
        raise InputError(self.path, "could not be created (another job keeps taking it); try again")

    def _take_over_if_stale(self) -> None:
        try:
            with open(self.path, encoding="utf-8") as fh:
                text = fh.read()
        except FileNotFoundError:
            return                     # released meanwhile: try again
        try:
            other = json_loads(text)
            host, pid = other["host"], int(other["pid"])
        except (ValueError, KeyError, TypeError):
            other, host, pid = {}, None, None
        if host is None and time.time() - _mtime(self.path) < 10:
            return                     # being written by its owner right now
        if host is not None and (host != self.owner["host"] or _alive(pid, other.get("proc_start"))):
            raise InputError(os.path.dirname(self.path),
                             f"in use by another peet-fast job (host {host}, pid {pid}, started "
                             f"{other.get('started', '?')}); wait for it to end, or delete {self.path} if it is "
                             f"not running")
        stale = f"{self.path}.stale-{os.getpid()}"
        try:
            os.rename(self.path, stale)
        except FileNotFoundError:
            return                     # another job took it over first
        with open(stale, encoding="utf-8") as fh:
            moved = fh.read()
        if moved != text:              # we moved a fresh lock that replaced the stale one: put it back
            os.rename(stale, self.path)
            return
        os.unlink(stale)
        notice(f"took over the stale lock {self.path} (pid {pid} on {host} is not running)" if host is not None
               else f"replaced the unreadable lock {self.path}")

    def release(self) -> None:
        """Remove the lock if this process still holds it."""
        if not self.held:
            return
        self.held = False
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            with open(self.path, encoding="utf-8") as fh:
                if json_loads(fh.read())["pid"] != self.owner["pid"]:
                    return
            os.unlink(self.path)


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def _proc_start(pid: int) -> int | None:
    """The start time (clock ticks since boot) of a process, where /proc says it (tells a reused pid apart)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return int(fh.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def _alive(pid: int, proc_start: int | None) -> bool:
    """Whether process pid of this host runs (and is the same process, where its start time was recorded)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    now = _proc_start(pid)
    return proc_start is None or now is None or now == proc_start


MAX_MANIFEST_BYTES = 64 << 20        # a manifest lists one short entry per shard: a few MB for a huge job


def shard_paths(out_dir: str) -> list[str]:
    """The shard files of a completed job directory, in row order. Every entry is checked: a file named in the
    manifest must be a part file's plain name whose real path lies inside out_dir (never `../outside.parquet`, an
    absolute path, or a link leading out); anything else is refused naming the manifest."""
    path = os.path.join(out_dir, MANIFEST)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_MANIFEST_BYTES + 1)
        if len(raw) > MAX_MANIFEST_BYTES:
            raise ValueError(f"larger than {MAX_MANIFEST_BYTES >> 20} MiB")
        m = json_loads(raw)
    except (OSError, ValueError) as exc:
        raise InputError(path, f"cannot read the job manifest: {exc.strerror if isinstance(exc, OSError) else exc}"
                         ) from None
    if not isinstance(m, dict) or not isinstance(m.get("shards"), list) or \
            not all(isinstance(e, dict) for e in m["shards"]):
        raise InputError(path, "not a peet-fast job manifest (no list of shards)")
    if not m.get("complete"):
        raise InputError(out_dir, "the job is not complete (rerun it to finish the missing shards)")
    entries = m["shards"]
    for e in entries:
        index = e.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            raise InputError(path, f"a shard entry has no integer index: {str(e)[:200]}")
    return [contained_file(out_dir, e.get("file"), path) for e in sorted(entries, key=lambda e: e["index"])]


def contained_file(directory: str, name, source: str, pattern: re.Pattern = PART) -> str:
    """The path of `name`, a file name read from `source` (a file we wrote in `directory`), checked: a plain file
    name matching pattern, not a link, whose real path lies inside directory; InputError naming source otherwise."""
    if not isinstance(name, str) or not pattern.fullmatch(name) or os.sep in name or name in (".", ".."):
        raise InputError(source, f"names a file outside its directory or not its own: {str(name)[:200]!r}; refused")
    path = os.path.join(directory, name)
    real_dir = os.path.realpath(directory)
    if os.path.islink(path) or os.path.dirname(os.path.realpath(path)) != real_dir:
        raise InputError(source, f"{name} leads outside {directory} (a link); refused")
    return path


def iter_dataset_batches(path: str, columns=None, batch_rows: int = 1 << 20):
    """(schema, iterator of record batches) of a completed job directory (part-*.parquet listed in its manifest),
    read shard by shard in row order."""
    import pyarrow.parquet as pq

    files = shard_paths(path)
    if not files:
        raise InputError(path, "the dataset has no rows")
    schema = pq.ParquetFile(files[0]).schema_arrow

    def gen():
        for f in files:
            yield from pq.ParquetFile(f).iter_batches(batch_size=batch_rows, columns=columns)
    return schema, gen()
