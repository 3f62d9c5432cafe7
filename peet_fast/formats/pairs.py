"""Pair files and Arrow / Parquet tables, with the one table of file-name suffixes peet-fast knows.

Pairs of (MO, TRG) sentences are read from and written to JSONL (one object a line), TSV (a header line naming the
columns) and Parquet (jobs.sources reads them shard by shard; write_pairs writes them). Feature and prediction tables
are Parquet or Arrow IPC files (TableWriter streams them out, iter_table_batches streams them in)."""
from __future__ import annotations

import json
import os
from typing import Iterable

from peet_fast.io import InputError, atomic_write

# suffix -> format; the first suffix of a format is the one messages name
SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet",
            ".arrow": "arrow", ".ipc": "arrow", ".feather": "arrow", ".csv": "csv"}
PAIR_FORMATS = ("jsonl", "tsv", "parquet")
TABLE_FORMATS = {"parquet": "Parquet", "arrow": "Arrow IPC"}
# per-sentence result files (score --out FILE): text tables, JSON lines, or an Arrow table
SENTENCE_FORMATS = ("tsv", "csv", "jsonl", "parquet", "arrow")


def _format(path: str) -> str | None:
    p = path.lower()
    return next((fmt for suffix, fmt in SUFFIXES.items() if p.endswith(suffix)), None)


def _suffixes(fmt: str) -> list[str]:
    return [suffix for suffix, f in SUFFIXES.items() if f == fmt]


def pair_format(path: str | os.PathLike) -> str:
    """'jsonl', 'tsv' or 'parquet' from a pair file's name, or InputError."""
    path = os.fspath(path)
    fmt = _format(path)
    if fmt not in PAIR_FORMATS:
        names = [_suffixes(f)[0] for f in PAIR_FORMATS]
        raise InputError(path, f"unknown pairs format: use {', '.join(names[:-1])} or {names[-1]}")
    return fmt


def table_format(path: str | os.PathLike) -> str:
    """'parquet' or 'arrow' (Arrow IPC file) from the file name's suffix."""
    path = os.fspath(path)
    fmt = _format(path)
    if fmt not in TABLE_FORMATS:
        kinds = [f"{'/'.join(_suffixes(f))} ({name})" for f, name in TABLE_FORMATS.items()]
        raise InputError(path, f"unknown table format: use a {' or '.join(kinds)} file name")
    return fmt


def head_column(path: str | os.PathLike, column: str, n: int = 1000) -> list[str]:
    """Up to n values of a column from the start of a pair or table file (a sample; unreadable or odd content gives
    what could be read, the full reader reports errors)."""
    from peet_fast.io import json_loads, read_head

    path = os.fspath(path)
    fmt = _format(path)
    try:
        if fmt in ("tsv", "jsonl"):
            lines = read_head(path, n + 1)          # at most 1 MiB: never a whole /dev/zero
            if fmt == "jsonl":
                rows = (json_loads(line) for line in lines if line.strip())
                return [r[column] for r in rows if isinstance(r, dict) and isinstance(r.get(column), str)]
            header = lines[0].split("\t") if lines else []
            k = header.index(column) if column in header else None
            return [] if k is None else [f[k] for f in (line.split("\t") for line in lines[1:]) if len(f) > k]
        if fmt in ("parquet", "arrow"):
            _, batches = iter_table_batches(path, [column], batch_rows=n)
            return [v for v in next(batches, None).column(0).to_pylist() if isinstance(v, str)]
    except (OSError, ValueError, KeyError, AttributeError, InputError):
        pass
    return []


def sentence_format(path: str | os.PathLike) -> str:
    """'tsv', 'csv', 'jsonl', 'parquet' or 'arrow' from a per-sentence result file's name, or InputError."""
    path = os.fspath(path)
    fmt = _format(path)
    if fmt not in SENTENCE_FORMATS:
        names = [_suffixes(f)[0] for f in SENTENCE_FORMATS]
        raise InputError(path, f"unknown per-sentence format: use a {', '.join(names[:-1])} or {names[-1]} file, or "
                               "a directory (no suffix) for a sharded job")
    return fmt


def _check_pairs(pairs: Iterable) -> list[tuple[str, str]]:
    out = []
    for n, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not all(isinstance(s, str) for s in pair):
            raise ValueError(f"pair {n} is not a (mo, trg) pair of strings: {pair!r}")
        out.append((pair[0], pair[1]))
    return out


def write_pairs(path: str | os.PathLike, pairs: Iterable[tuple[str, str]], ids: bool = True) -> None:
    """Write pairs to ``.tsv`` (header ``id<TAB>mo<TAB>trg``), ``.jsonl`` (``{"id", "mo", "trg"}`` a line) or
    ``.parquet`` (columns ``id`` int64, ``mo``, ``trg`` string), chosen by the suffix (pair_format); ids are 0-based
    line numbers and omitted with ``ids=False``. Written to a temporary file beside ``path`` and renamed over it on
    success.

    TSV fields are written raw, unquoted (read them back with ``quoting=csv.QUOTE_NONE``), so a field containing a
    tab or a line break is refused with ValueError; so is an unknown suffix (InputError, a ValueError)."""
    path = os.fspath(path)
    fmt = pair_format(path)
    rows = _check_pairs(pairs)
    if fmt == "tsv":
        for n, (mo, trg) in enumerate(rows):
            for name, s in (("mo", mo), ("trg", trg)):
                if any(c in s for c in "\t\n\r"):
                    raise ValueError(f"{path}: pair {n}: {name} contains a tab or line break; cannot write TSV")
        with atomic_write(path, "w") as fh:
            fh.write("id\tmo\ttrg\n" if ids else "mo\ttrg\n")
            for n, (mo, trg) in enumerate(rows):
                fh.write(f"{n}\t{mo}\t{trg}\n" if ids else f"{mo}\t{trg}\n")
    elif fmt == "jsonl":
        with atomic_write(path, "w") as fh:
            for n, (mo, trg) in enumerate(rows):
                rec = {"id": n, "mo": mo, "trg": trg} if ids else {"mo": mo, "trg": trg}
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        cols = {"mo": pa.array([r[0] for r in rows], pa.string()), "trg": pa.array([r[1] for r in rows], pa.string())}
        if ids:
            cols = {"id": pa.array(range(len(rows)), pa.int64()), **cols}
        table = pa.table(cols)
        with atomic_write(path, "wb") as fh:
            pq.write_table(table, fh, compression="zstd")


class TableWriter:
    """Streams record batches to a Parquet or Arrow IPC file, atomically (temporary file, renamed on success)."""

    def __init__(self, path: str | os.PathLike, schema):
        self.path = os.fspath(path)
        self.schema = schema
        self.format = table_format(self.path)
        self._ctx = None
        self._writer = None

    def __enter__(self):
        import pyarrow as pa
        import pyarrow.parquet as pq

        self._ctx = atomic_write(self.path, "wb")
        fh = self._ctx.__enter__()
        if self.format == "parquet":
            self._writer = pq.ParquetWriter(fh, self.schema, compression="zstd")
        else:
            self._writer = pa.ipc.new_file(fh, self.schema)
        return self

    def write(self, table_or_batch) -> None:
        if self.format == "parquet":
            import pyarrow as pa

            if isinstance(table_or_batch, pa.RecordBatch):
                table_or_batch = pa.Table.from_batches([table_or_batch])
            self._writer.write_table(table_or_batch)
        else:
            self._writer.write(table_or_batch)

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self._writer.close()
            else:
                try:
                    self._writer.close()
                except Exception:
                    pass
        finally:
            return self._ctx.__exit__(exc_type, exc, tb)


def iter_table_batches(path: str | os.PathLike, columns=None, batch_rows: int = 1 << 20):
    """(schema, iterator of record batches) of a Parquet file or an Arrow IPC file (memory-mapped, zero-copy)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = os.fspath(path)
    fmt = table_format(path)
    if not os.path.exists(path):
        raise InputError(path, "no such file")
    try:
        if fmt == "parquet":
            pf = pq.ParquetFile(path)
            schema = pf.schema_arrow

            def gen():
                yield from pf.iter_batches(batch_size=batch_rows, columns=columns)
        else:
            reader = pa.ipc.open_file(pa.memory_map(path, "r"))
            schema = reader.schema

            def gen():
                for i in range(reader.num_record_batches):
                    b = reader.get_batch(i)
                    b = b.select(columns) if columns is not None else b
                    # zero-copy slices of at most batch_rows rows: the arithmetic stays in cache
                    for lo in range(0, b.num_rows, batch_rows):
                        yield b.slice(lo, batch_rows)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(path, f"cannot read as {fmt}: {exc}") from None
    return schema, gen()
