"""The persistent parse cache's store: records (bytes) keyed by 16-byte digests, in append-only segment files.

Layout: ``ROOT/<fingerprint id>/`` holds one fingerprint's entries (everything that can change a parse hashed into
the id; ``fingerprint.json`` spells it out) as ``*.seg`` files. A segment file is::

    header   MAGIC (8 bytes) | record count (u32) | CRC-32 of the index (u32) | CRC-32 of the header's first 16 bytes
    index    count x (digest 16 bytes, offset u64, length u32, CRC-32 of the record u32), sorted by digest
    records  the payloads, back to back

Why segment files rather than SQLite in WAL mode: every writer writes a new file under a temporary name and renames
it into place (``os.replace`` is atomic), so processes and Ray workers never wait on a lock and a reader never sees
a half-written entry; a segment is never modified, so a reader memory-maps it and looks a whole batch up with one
``numpy.searchsorted`` over its sorted index, never one query per sentence; eviction is deleting whole files, oldest
first, which returns their space at once (SQLite needs a VACUUM, with a lock over the whole database, to shrink); and
WAL mode needs shared memory on one host, while renamed files also work on a directory several nodes share. The
cost, many small files, is bounded by compaction: past MAX_SEGMENTS in a directory the smaller half are merged into
one (two processes merging at once only duplicate entries, which are equal).

Damage (a truncated file, flipped bytes) is caught by the CRCs: the header and index when a segment is opened, each
record when it is read. A damaged segment is reported once (one warning line on stderr), no record of it is used
unless its own CRC holds, and it is removed, so the sentences it held are parsed again and written anew. A cache that
cannot be written (a read-only or full disk) is reported once and the run goes on without writing. Hits refresh a
segment's modification time (once per process), so eviction under ``max_size`` drops the least recently used
segments."""
from __future__ import annotations

import gc
import json
import mmap
import os
import struct
import time
import zlib
from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

from peet_fast.cache.directory import (
    _TAG,
    CACHEDIR_TAG,
    DEFAULT_MAX_SIZE,
    FINGERPRINT_FILE,
    evict,
    fingerprint_id,
    read_fingerprint,
    warn,
)

MAGIC = b"PFSEG001"
HEADER = struct.Struct("<8sIII")
INDEX_DTYPE = np.dtype([("digest", "S16"), ("offset", "<u8"), ("length", "<u4"), ("crc", "<u4")])
MAX_SEGMENTS = 64


class Damaged(ValueError):
    """A segment file that fails its checks."""


@dataclass
class Segment:
    """One open (memory-mapped) segment file."""
    path: str
    index: np.ndarray
    data: mmap.mmap | bytes
    touched: bool = False

    @classmethod
    def open(cls, path: str) -> "Segment":
        """Map and check a segment's header and index (Damaged when they fail; FileNotFoundError when it is gone)."""
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < HEADER.size:
                raise Damaged(f"truncated ({size} bytes)")
            data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        magic, count, index_crc, header_crc = HEADER.unpack_from(data)
        if magic != MAGIC or zlib.crc32(data[:16]) != header_crc:
            raise Damaged("bad header")
        end = HEADER.size + count * INDEX_DTYPE.itemsize
        if end > size or zlib.crc32(data[HEADER.size:end]) != index_crc:
            raise Damaged("truncated" if end > size else "index checksum mismatch")
        index = np.frombuffer(data, INDEX_DTYPE, count, HEADER.size)
        if count and int((index["offset"].astype(np.uint64) + index["length"]).max()) > size:
            raise Damaged("truncated")
        return cls(path, index, data)

    def record(self, k: int) -> bytes:
        """The k-th record's bytes (Damaged when its CRC fails)."""
        row = self.index[k]
        lo = int(row["offset"])
        payload = self.data[lo:lo + int(row["length"])]
        if zlib.crc32(payload) != int(row["crc"]):
            raise Damaged("record checksum mismatch")
        return payload

    def records(self) -> Iterable[tuple[bytes, bytes]]:
        digests = self.index["digest"].tobytes()      # not tolist(): numpy drops a digest's trailing NUL bytes
        for k in range(len(self.index)):
            yield digests[16 * k:16 * k + 16], self.record(k)


def encode_segment(items: dict[bytes, bytes]) -> bytes:
    """A segment file's bytes holding items {digest: record}."""
    digests = list(items)
    digests = [digests[i] for i in np.argsort(np.array(digests, dtype="S16"), kind="stable")]  # numpy's order
    index = np.zeros(len(digests), INDEX_DTYPE)
    offset = HEADER.size + len(digests) * INDEX_DTYPE.itemsize
    for k, d in enumerate(digests):
        payload = items[d]
        index[k] = (d, offset, len(payload), zlib.crc32(payload))
        offset += len(payload)
    index_bytes = index.tobytes()
    head = struct.pack("<8sII", MAGIC, len(digests), zlib.crc32(index_bytes))
    return b"".join([head, struct.pack("<I", zlib.crc32(head)), index_bytes, *(items[d] for d in digests)])


class Store:
    """One fingerprint's directory of segments: get() a batch of digests, put() new records."""

    def __init__(self, root: str, fingerprint: dict, max_size: int = DEFAULT_MAX_SIZE):
        self.root = root
        self.dir = os.path.join(root, fingerprint_id(fingerprint))
        self.fingerprint = fingerprint
        self.max_size = max_size
        self.segments: dict[str, Segment | None] = {}     # file name -> segment (None: damaged or gone)
        self.writable = True
        self.fingerprint_checked = False

    def _check_fingerprint(self) -> None:
        """Once per process, where the directory exists: a fingerprint file that is missing, damaged or not this
        directory's is one warning and written again (the entries stay: the directory's name is the fingerprint's
        hash, so they are this fingerprint's)."""
        if self.fingerprint_checked or not os.path.isdir(self.dir):
            return
        self.fingerprint_checked = True
        fp_path = os.path.join(self.dir, FINGERPRINT_FILE)
        found = read_fingerprint(fp_path)
        if found == self.fingerprint:
            return
        if found is not None or os.path.lexists(fp_path):
            warn(f"{fp_path}: damaged or not this directory's; written again")
        if not self.writable:
            return
        try:
            write_atomic(fp_path, json.dumps(self.fingerprint, indent=1, sort_keys=True).encode())
        except OSError as exc:
            self._disable(exc)

    def _refresh(self) -> None:
        """Open the segments other processes have written since the last look (regular files only: a link or
        anything else named *.seg is never followed)."""
        self._check_fingerprint()
        try:
            names = [e.name for e in os.scandir(self.dir)
                     if e.name.endswith(".seg") and e.is_file(follow_symlinks=False)]
        except FileNotFoundError:
            names = []                  # removed (peet-fast cache clear): nothing of it is kept open
        except OSError as exc:
            self._disable(exc)
            return
        for name in names:
            if name not in self.segments:
                self.segments[name] = self._open(name)
        listed = set(names)
        for name in [n for n in self.segments if n not in listed]:
            del self.segments[name]     # merged or evicted meanwhile: its map is closed, the dict stays bounded

    def _open(self, name: str) -> Segment | None:
        path = os.path.join(self.dir, name)
        try:
            return Segment.open(path)
        except FileNotFoundError:
            return None                 # evicted or merged by another process meanwhile
        except (Damaged, ValueError, OSError) as exc:
            self._drop(path, exc)
            return None

    def _drop(self, path: str, why: Exception) -> None:
        warn(f"{path}: damaged ({why}); ignored and removed, its sentences are parsed again")
        self.segments[os.path.basename(path)] = None
        try:
            os.unlink(path)
        except OSError:
            pass

    def _disable(self, exc: OSError) -> None:
        if self.writable:
            warn(f"{self.dir}: cannot use it ({exc.strerror or exc}); continuing without writing to the cache")
        self.writable = False

    def get(self, digests: list[bytes], decode: Callable[[bytes], object] | None = None) -> dict[bytes, object]:
        """The records found for a batch of digests: one sorted-index search per segment. decode, if given, turns
        each record into its value and checks it field by field (ValueError, IndexError, struct.error where it
        does not hold): a record that fails, though its checksum holds, is damage like a failed checksum: one
        warning, its segment dropped, its sentences missing (parsed and written again)."""
        self._refresh()
        found: dict[bytes, bytes] = {}
        left = np.arange(len(digests))          # positions in digests not found yet
        want = np.array(digests, dtype="S16")
        for seg in list(self.segments.values()):
            if seg is None or not len(left) or not len(seg.index):
                continue
            keys = seg.index["digest"]
            pos = np.minimum(np.searchsorted(keys, want[left]), len(keys) - 1)
            hit = keys[pos] == want[left]
            if not hit.any():
                continue
            try:
                got = {digests[i]: seg.record(k) for k, i in zip(pos[hit].tolist(), left[hit].tolist())}
                if decode is not None:
                    collecting = gc.isenabled()     # decoding makes many objects and no cycles: the cyclic
                    gc.disable()                    # collector's passes over them would only cost time
                    try:
                        got = {d: decode(r) for d, r in got.items()}
                    except (ValueError, IndexError, OverflowError, struct.error) as exc:
                        raise Damaged(f"invalid record ({exc})") from None
                    finally:
                        if collecting:
                            gc.enable()
                found.update(got)
            except Damaged as exc:        # none of its records used: they are parsed and written again
                self._drop(seg.path, exc)
                continue
            self._touch(seg)
            left = np.array([i for i in left.tolist() if digests[i] not in found], dtype=np.int64)
        return found

    def _touch(self, seg: Segment) -> None:
        """Mark a segment recently used (its mtime), once per process: eviction drops the least recently used."""
        if not seg.touched:
            seg.touched = True
            try:
                os.utime(seg.path)
            except OSError:
                pass

    def put(self, items: dict[bytes, bytes]) -> None:
        """Write new records as one segment (temporary name, then renamed), then keep the directory and the whole
        cache within bounds (compaction, eviction)."""
        if not items or not self.writable:
            return
        try:
            os.makedirs(self.dir, exist_ok=True)
            if not os.path.lexists(os.path.join(self.root, CACHEDIR_TAG)):
                write_atomic(os.path.join(self.root, CACHEDIR_TAG), _TAG)
            self._check_fingerprint()
            name = write_atomic(os.path.join(self.dir, segment_name()), encode_segment(items))
            self.segments[os.path.basename(name)] = self._open(os.path.basename(name))
            self._compact()
            evict(self.root, self.max_size)
        except OSError as exc:
            self._disable(exc)

    def _compact(self) -> None:
        """Past MAX_SEGMENTS here, merge the smaller half of the segments into one."""
        live = {n: s for n, s in self.segments.items() if s is not None and os.path.exists(s.path)}
        if len(live) <= MAX_SEGMENTS:
            return
        small = sorted(live, key=lambda n: len(live[n].data))[:len(live) // 2]
        merged: dict[bytes, bytes] = {}
        for n in small:
            try:
                merged.update(live[n].records())
            except Damaged as exc:
                self._drop(live[n].path, exc)
        name = write_atomic(os.path.join(self.dir, segment_name()), encode_segment(merged))
        for n in small:
            self.segments[n] = None
            try:
                os.unlink(live[n].path)
            except FileNotFoundError:
                pass
        self.segments[os.path.basename(name)] = self._open(os.path.basename(name))


def segment_name() -> str:
    return f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(4).hex()}.seg"


def write_atomic(path: str, data: bytes) -> str:
    """Write data under a temporary name in path's directory, then rename it to path."""
    tmp = f"{path}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path
