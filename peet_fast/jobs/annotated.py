"""Reading time-annotated pairs (`train --data`, `explain --data`) from a .tsv, .jsonl or .parquet file through the
jobs' table reader (sources.py), validated; the rows become peet.train's Annotated, which the PEET protocol takes.

Here rather than in peet/: the PEET model imports nothing of jobs/ (the arrow points one way, jobs -> peet)."""
from __future__ import annotations

import math
import os
from typing import Sequence

import numpy as np

from peet_fast.formats.pairs import pair_format
from peet_fast.io import InputError, decimal, read_prefix, without_bom
from peet_fast.jobs.errors import Wording, with_wording
from peet_fast.jobs.sources import no_rows, plan, read_shard, table_source
from peet_fast.peet.train import Annotated


def _where(kind: str, k: int) -> tuple[str, int | None]:
    """(message suffix, line) naming data row k (0-based): TSV line k+2 (after the header), JSONL line k+1, Parquet
    row k."""
    if kind == "parquet":
        return f" (row {k})", None
    return "", k + (2 if kind == "tsv" else 1)


def _parse_time(value, kind: str, path: str, k: int, column: str) -> float:
    suffix, line = _where(kind, k)
    if value is None:
        raise InputError(path, f"no {column!r} value{suffix}", line)
    if kind == "tsv":
        x = decimal(value)                   # peet_fast.io.numbers: ASCII digits only (no 1_5, no ٣)
        if x is None:
            raise InputError(path, f"{column} {value!r} is not a number{suffix}", line)
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(path, f"{column} {value!r} is not a number{suffix}", line)
    else:
        x = float(value)
    if not math.isfinite(x):
        raise InputError(path, f"{column} {value!r} is not a finite number{suffix}", line)
    if x < 0:
        raise InputError(path, f"{column} {value!r} is negative{suffix}", line)
    return x


def read_annotated(path: str, source_mode: str = "mo-trg", *, need_time: bool = True, mo: str = "mo",
                   trg: str = "trg", src: str = "src", time: str = "time") -> Annotated:
    """Read and validate time-annotated pairs from a .tsv (header line), .jsonl or .parquet file. Refuses, naming
    the file and line (or row): a missing mo/trg column, a missing time column (need_time) or src column
    (src-mo-trg), a file with no rows, and times that are missing, not numbers, not finite or negative."""
    path = os.fspath(path)
    kind = pair_format(path)
    source = table_source(path, mo, trg, id=None, extra=(time, src) if source_mode == "src-mo-trg" else (time,))
    shards, _ = plan(source, 1 << 40, allow_empty=True)     # the columns are checked first, then the rows
    mos: list = []
    trgs: list = []
    extra: dict = {time: [], src: []}
    present = {time: kind == "jsonl", src: kind == "jsonl"}
    for shard in shards:
        rows = read_shard(source, shard)
        mos += rows["mo"]
        trgs += rows["trg"]
        for c, values in rows["extra"].items():
            extra[c] += values
            present[c] = True
    if kind != "jsonl" and not shards:         # an empty table: is the header/schema complete?
        present = _columns_present(path, kind, (time, src))
    wanted = [(time, need_time)] + ([(src, True)] if source_mode == "src-mo-trg" else [])
    for c, required in wanted:
        if required and not present[c]:
            line = 1 if kind == "tsv" else None
            if c != src:
                raise InputError(path, f"no {c!r} column", line)
            why = Wording("no {column} column (needed by {source_mode} src-mo-trg)", column=repr(c))
            raise with_wording(InputError(path, str(why), line), why)
    if not mos:
        raise no_rows(path)
    times = None
    if present[time] and (need_time or any(v is not None for v in extra[time])):
        times = np.array([_parse_time(v, kind, path, k, time) for k, v in enumerate(extra[time])], dtype=np.float64)
    srcs = None
    if source_mode == "src-mo-trg":
        for k, v in enumerate(extra[src]):
            if not isinstance(v, str):
                suffix, line = _where(kind, k)
                raise InputError(path, f"no {src!r} text{suffix}" if v is None else
                                 f"{src} is not a string{suffix}", line)
        srcs = extra[src]
    return Annotated(path, mos, trgs, srcs, times)


def _columns_present(path: str, kind: str, columns: Sequence[str]) -> dict:
    if kind == "parquet":
        import pyarrow.parquet as pq

        names = pq.ParquetFile(path).schema_arrow.names
    else:
        head = without_bom(read_prefix(path, 1 << 20)).split(b"\n", 1)[0]      # the header: 1 MiB at most
        names = head.decode("utf-8", "replace").rstrip("\r\n").split("\t")
    return {c: c in names for c in columns}
