"""Shards sized as a job runs (a JobSpec without shard_rows): AdaptivePlan cuts the input into shards one at a time,
each as the next free worker asks for it, the size chosen by jobs.sizing.ShardSizer from the rate this run has
measured so far.

The input is indexed once, without loading it: the byte offset of every `unit`-th row start (text, JSONL and TSV;
Parquet needs none), where unit = ceil(rows / MAX_UNITS), so the index is at most MAX_UNITS offsets per file
whatever the corpus size; a shard starts on a unit boundary and ends on one or at the last row. A shard is named by
its first row: index = start, file part-SSSSSSSSSS.parquet (ten digits, so that file names sort in row order and
`pyarrow.parquet.read_table(DIR)` reads the rows in order). Its input digest is computed exactly as for a planned
shard (sources.plan): the sha256 of its bytes (and a TSV header; Parquet: the file's fingerprint).

Resuming: a rerun keeps each recorded shard whose range lies on this input's unit boundaries, overlaps no other kept
shard and whose input bytes are unchanged (accepts, keep), and cuts only the gaps between them, so a rerun under any
--workers reuses the finished shards exactly and the rows equal an uninterrupted run's whatever the boundaries."""
from __future__ import annotations

import math
from time import monotonic
from typing import Callable, Iterator

from peet_fast.formats.pairs import pair_format
from peet_fast.io import InputError, no_lines, plural
from peet_fast.jobs.sizing import ShardSizer
from peet_fast.jobs.sources import Shard, Source, _header_end, _line_starts, _tsv_columns, _with_digests, no_rows

MAX_UNITS = 1 << 16          # row boundaries indexed per file at most (unit = ceil(rows / MAX_UNITS))
FILE_DIGITS = 10             # part-SSSSSSSSSS.parquet: the shard's first row


def unit_for(total: int) -> int:
    """The rows between two indexed row starts of an input of `total` rows."""
    return max(1, math.ceil(total / MAX_UNITS))


class SourceIndex:
    """Every unit-th row start of a source (per file), so that a shard of any rows [start, stop) on unit boundaries
    can be cut and its input digest computed without reading anything else."""

    def __init__(self, source: Source):
        self.source = source
        self.base = ""                       # a TSV header's digest, a Parquet file's fingerprint
        if source.kind == "text":
            counts = [_line_starts(p, 1 << 62)[1] for p in source.paths]
            if len(set(counts)) > 1:
                detail = ", ".join(f"{p}: {plural(n, 'line')}" for p, n in zip(source.paths, counts))
                raise InputError(source.paths[0], f"parallel files differ in line count ({detail})")
            self.total = counts[0] if counts else 0
            if self.total == 0:
                raise no_lines(source.paths)
            self.unit = unit_for(self.total)
            self.files = [_line_starts(p, self.unit)[::2] for p in source.paths]
            return
        path = source.paths[0]
        kind = pair_format(path)
        if kind == "parquet":
            from peet_fast.jobs.sources import plan

            _, self.total = plan(source, 1 << 62)        # the row count and Parquet's own refusals
            self.unit, self.files = 1, []
            self.base = source.fingerprint()
            return
        skip = 1 if kind == "tsv" else 0
        if kind == "tsv":
            import hashlib

            end, header = _header_end(path)
            _tsv_columns(source, end, header)
            self.base = hashlib.sha256(header).hexdigest()
        self.total = _line_starts(path, 1 << 62, skip)[1]
        if self.total == 0:
            raise no_rows(path)
        self.unit = unit_for(self.total)
        starts, _, size = _line_starts(path, self.unit, skip)
        self.files = [(starts, size)]

    def on_boundary(self, row: int) -> bool:
        return 0 <= row <= self.total and (row % self.unit == 0 or row == self.total)

    def shard(self, start: int, stop: int) -> Shard:
        """The shard of rows [start, stop) (both on unit boundaries), named by its first row, with its digest."""
        name = f"part-{start:0{FILE_DIGITS}d}.parquet"
        if not self.files:                                   # Parquet: row ranges, the file's fingerprint
            return Shard(start, start, stop, (), self.base, name)
        offsets = tuple((starts[start // self.unit],
                         starts[stop // self.unit] if stop < self.total else size) for starts, size in self.files)
        return _with_digests(self.source.paths, [Shard(start, start, stop, offsets, self.base, name)])[0]


class AdaptivePlan:
    """The shards of a job whose size is chosen as it runs: pop() cuts the next one (from the first rows not yet
    kept or handed out) of the size the sizer chooses now, finished(entry) tells the sizer how long it took. Used by
    the runners as a stack of shards (pop, bool; iterating pops until none is left); len() is an estimate of the
    shards still to cut. clock: time.monotonic unless a test gives its own."""

    def __init__(self, source: Source, per_row: int, workers: int = 1, clock: Callable[[], float] | None = None):
        self.index = SourceIndex(source)
        self.total = self.index.total
        self.unit = self.index.unit
        self.sizer = ShardSizer(per_row, workers)
        self.clock = clock if clock is not None else monotonic     # (this module's: a test may replace it)
        self.shards: dict[int, Shard] = {}       # index -> shard: handed out this run, or kept from an earlier one
        self.kept: list[tuple[int, int]] = []     # row ranges of the shards kept from an earlier run, sorted
        self._free: list[tuple[int, int]] | None = None    # the row ranges not yet cut, once the first is cut
        self.cutting = False                      # a shard was cut: no earlier run's shard is kept any more
        self._handed: dict[int, float] = {}
        self._back: list[Shard] = []              # shards handed out but lost (their worker died): handed out first

    # -- an earlier run's shards ------------------------------------------------------------------------------------
    def accepts(self, entry: dict) -> bool:
        """Whether an earlier run's manifest entry is a shard of this input: its range on unit boundaries, named by
        its first row, overlapping no kept shard, its input bytes unchanged (read: the digest is computed)."""
        start, stop, index = entry.get("start"), entry.get("stop"), entry.get("index")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, stop, index)):
            return False
        if index != start or not start < stop or not (self.index.on_boundary(start) and self.index.on_boundary(stop)):
            return False
        if index in self.shards:
            shard = self.shards[index]
            return (shard.start, shard.stop, shard.digest) == (start, stop, entry.get("input"))
        if any(a < stop and start < b for a, b in self.kept) or self.cutting:
            return False
        shard = self.index.shard(start, stop)
        return shard.file == entry.get("file") and shard.digest == entry.get("input")

    def keep(self, entry: dict) -> None:
        """Record an accepted shard as done (its rows are not cut again)."""
        start, stop = entry["start"], entry["stop"]
        if start not in self.shards:
            self.kept.append((start, stop))
            self.kept.sort()
            self.shards[start] = self.index.shard(start, stop)

    def covered(self, entries) -> bool:
        """Whether these entries (an old manifest's, unverified) cover every row exactly, one after another."""
        row = 0
        for e in sorted(entries, key=lambda e: e.get("start") if isinstance(e.get("start"), int) else -1):
            if e.get("start") != row or not isinstance(e.get("stop"), int) or e["stop"] <= row:
                return False
            row = e["stop"]
        return row == self.total

    # -- cutting shards ---------------------------------------------------------------------------------------------
    def _gaps(self) -> list[tuple[int, int]]:
        if self._free is None or not self.cutting:
            free, row = [], 0
            for a, b in self.kept:
                if a > row:
                    free.append((row, a))
                row = max(row, b)
            if row < self.total:
                free.append((row, self.total))
            self._free = free
        return self._free

    def rows_left(self) -> int:
        return sum(b - a for a, b in self._gaps())

    def __bool__(self) -> bool:
        return bool(self._back) or bool(self._gaps())

    def append(self, shard: Shard) -> None:
        """A shard handed out whose worker was lost: the next pop hands it out again, with the same rows."""
        self._handed.pop(shard.index, None)
        self._back.append(shard)

    def next_index(self) -> int | None:
        """The index of the shard the next pop hands out (None when none is left)."""
        if self._back:
            return self._back[-1].index
        free = self._gaps()
        return free[0][0] if free else None

    def __len__(self) -> int:
        left = self.rows_left()
        if self._back:
            return len(self._back) + (0 if not left else math.ceil(left / max(1, min(self.sizer.next_rows(left), left))))
        return 0 if not left else math.ceil(left / max(1, min(self.sizer.next_rows(left), left)))

    def pop(self) -> Shard:
        """The next shard: the first free rows, as many as the sizer chooses (rounded up to a unit boundary)."""
        if self._back:
            shard = self._back.pop()
            self._handed[shard.index] = self.clock()
            return shard
        free = self._gaps()
        self.cutting = True
        if not free:
            raise IndexError("pop from a finished plan")
        a, b = free[0]
        n = self.sizer.next_rows(self.rows_left())
        stop = min(b, math.ceil((a + n) / self.unit) * self.unit)
        free[0:1] = [(stop, b)] if stop < b else []
        shard = self.shards[a] = self.index.shard(a, stop)
        self.sizer.handed(stop - a)
        self._handed[a] = self.clock()
        return shard

    def stack(self) -> AdaptivePlan:
        """What a runner pops shards from (a planned list is reversed into one; this plan is one already)."""
        return self

    def __iter__(self) -> Iterator[Shard]:
        while self:
            yield self.pop()

    def finished(self, entry: dict) -> None:
        """A shard handed out by pop is done: the sizer learns its rows per second."""
        t = self._handed.pop(entry["index"], None)
        if t is not None:
            self.sizer.observe(entry["stop"] - entry["start"], self.clock() - t)


def stack(shards) -> list | AdaptivePlan:
    """The shards a runner pops from, in order: an AdaptivePlan as it is, a list of planned shards reversed."""
    return shards.stack() if hasattr(shards, "stack") else list(reversed(shards))
