"""Sharded inputs for long jobs: plan shards over a corpus without loading it, and read one shard anywhere.

A source is either line-aligned text files (one sentence per line; several files read side by side, e.g. hypotheses
and references) or one table of pairs: JSONL (one object per line), TSV (a header line naming the columns) or Parquet,
with named columns (default `mo`, `trg`, optional `id`). Shards are ranges of rows [start, stop); a shard is read by
byte offsets (text, JSONL, TSV) or row groups (Parquet), so a worker never reads the whole corpus. A UTF-8 byte order
mark at the start of a file is part of no line (shard 0 starts after it; its digest covers it). A source without
rows, and a TSV file whose header lacks a required column, are refused when planned. Errors name the file, the shard
and the line or row."""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from typing import Sequence

from peet_fast.formats.pairs import pair_format
from peet_fast.io import (MAX_LINE_READ, UTF8_BOM, InputError, json_loads, no_lines, open_input, plural,
                          without_bom)

_EOL = re.compile(rb"\r\n|\r|\n")
_BLOCK = 1 << 24


@dataclass(frozen=True)
class Shard:
    index: int
    start: int                     # first row (0-based)
    stop: int                      # one past the last row
    offsets: tuple = ()            # per file: (byte start, byte stop) for line-based files
    digest: str = ""               # sha256 of the shard's input bytes: a rerun reuses a shard whose input is unchanged
    file: str = ""                 # its part file's name where not part-NNNNN (index): a shard cut as the job runs


@dataclass
class Source:
    """What to read: kind 'text' (paths read side by side) or 'table' (one JSONL/TSV/Parquet file of pairs)."""
    kind: str
    paths: tuple[str, ...]
    columns: dict = field(default_factory=lambda: {"mo": "mo", "trg": "trg", "id": "id"})
    extra: tuple[str, ...] = ()    # tables: more columns to read as they are (e.g. time, src), see read_shard

    def fingerprint(self) -> str:
        """Identifies the inputs (paths, sizes, modification times, column names) for the resume manifest."""
        h = hashlib.sha256()
        for p in self.paths:
            try:
                st = os.stat(p)
            except OSError as exc:
                raise InputError(p, f"cannot read: {exc.strerror or exc}") from None
            h.update(f"{os.path.abspath(p)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
        h.update(json.dumps([self.kind, self.columns], sort_keys=True).encode())
        return h.hexdigest()


def _line_starts(path: str, every: int, skip: int = 0) -> tuple[list[int], int, int]:
    """Byte offsets of lines skip, skip+every, skip+2*every, ... (line ends as Python's text mode: \\n, \\r\\n, \\r),
    the number of lines after the first `skip`, and the file size. A byte order mark at the start is part of no
    line: the first line starts after it."""
    fh = open_input(path)
    starts: list[int] = []
    line = 0          # lines completed so far
    pos = 0           # file offset of the block
    pending_cr = False
    last_end = 0      # offset just past the last line end seen
    with fh:
        if fh.read(len(UTF8_BOM)) == UTF8_BOM:
            pos = last_end = len(UTF8_BOM)
        else:
            fh.seek(0)
        while True:
            block = fh.read(_BLOCK)
            if not block:
                break
            i0 = 0
            if pending_cr:
                pending_cr = False
                if block[:1] == b"\n":      # the \r\n was split across blocks: one line end
                    i0 = 1
                    last_end = pos + 1
            for m in _EOL.finditer(block, i0):
                if m.end() == len(block) and m.group() == b"\r":
                    pending_cr = True        # may be the first half of \r\n
                if line >= skip and (line - skip) % every == 0:
                    starts.append(last_end)
                line += 1
                last_end = pos + m.end()
            pos += len(block)
            if pos - last_end > MAX_LINE_READ:      # a binary file, /dev/zero: refused without reading it all
                raise InputError(path, f"a line longer than {MAX_LINE_READ:,} bytes (not a text file of "
                                       f"sentences?); refused after reading {pos:,} bytes", line + 1)
    size = pos
    if last_end < size:                       # a last line without a line end
        if line >= skip and (line - skip) % every == 0:
            starts.append(last_end)
        line += 1
    return starts, max(0, line - skip), size


def _header_end(path: str) -> tuple[int, bytes]:
    """The offset just past a TSV file's header line and the line's bytes (with a byte order mark, if any)."""
    with open_input(path) as fh:
        head = fh.read(1 << 20)
    m = _EOL.search(head)
    if m is None:
        return len(head), head
    return m.end(), head[:m.start()]


def _tsv_columns(source: Source, end: int, header: bytes) -> list[str]:
    """The column names of a TSV source's header line (end, header: _header_end); refuses an empty file, a blank
    header line and a header without the mo and trg columns (InputError at line 1)."""
    path = source.paths[0]
    text = without_bom(header).decode("utf-8", "replace")
    if not text.strip():
        if end == len(header) and not text:
            raise InputError(path, "the file is empty: a TSV file starts with a header line naming its columns")
        raise InputError(path, "the first line is blank: a TSV file starts with a header line naming its columns", 1)
    names = text.split("\t")
    missing = [c for c in (source.columns["mo"], source.columns["trg"]) if c not in names]
    if missing:
        raise InputError(path, f"missing column(s) {', '.join(missing)} in the header (columns: {names})", 1)
    return names


def no_rows(path: str) -> InputError:
    """The error for a table of pairs (TSV, JSONL, Parquet) with no rows."""
    return InputError(path, {"tsv": "no rows after the header line", "jsonl": "no rows (the file is empty)",
                             "parquet": "no rows (the table is empty)"}[pair_format(path)])


def plan(source: Source, shard_rows: int, *, allow_empty: bool = False) -> tuple[list[Shard], int]:
    """Shards of at most shard_rows rows covering the source; returns (shards, total rows). Refuses line-aligned
    files whose line counts differ (naming every file and its count), a TSV header without the mo and trg columns,
    and (unless allow_empty) a source with no rows."""
    if shard_rows < 1:
        raise ValueError("shard_rows must be >= 1")
    if source.kind == "text":
        per_file = []
        for p in source.paths:
            starts, n, size = _line_starts(p, shard_rows)
            per_file.append((starts, n, size))
        counts = {n for _, n, _ in per_file}
        if len(counts) > 1:
            detail = ", ".join(f"{p}: {plural(n, 'line')}" for p, (_, n, _) in zip(source.paths, per_file))
            raise InputError(source.paths[0], f"parallel files differ in line count ({detail})")
        total = per_file[0][1] if per_file else 0
        if total == 0 and not allow_empty:
            raise no_lines(source.paths)
        shards = []
        for k in range(0, (total + shard_rows - 1) // shard_rows):
            offs = []
            for starts, _, size in per_file:
                offs.append((starts[k], starts[k + 1] if k + 1 < len(starts) else size))
            shards.append(Shard(k, k * shard_rows, min(total, (k + 1) * shard_rows), tuple(offs)))
        return _with_digests(source.paths, shards), total
    path = source.paths[0]
    kind = pair_format(path)
    if kind == "parquet":
        import pyarrow.parquet as pq

        try:
            meta = pq.ParquetFile(path).metadata
        except Exception as exc:   # noqa: BLE001 - pyarrow raises several types for unreadable files
            raise InputError(path, f"cannot read as Parquet: {exc}") from None
        total = meta.num_rows
        if total == 0 and not allow_empty:
            raise no_rows(path)
        fp = source.fingerprint()      # row groups have no cheap byte ranges: a changed file redoes every shard
        shards = [Shard(k, a, min(total, a + shard_rows), (), fp) for k, a in enumerate(range(0, total, shard_rows))]
        return shards, total
    skip = 1 if kind == "tsv" else 0
    if kind == "tsv":
        end, header = _header_end(path)
        _tsv_columns(source, end, header)
    starts, total, size = _line_starts(path, shard_rows, skip)
    if total == 0 and not allow_empty:
        raise no_rows(path)
    shards = [Shard(k, k * shard_rows, min(total, (k + 1) * shard_rows),
                    ((starts[k], starts[k + 1] if k + 1 < len(starts) else size),))
              for k in range((total + shard_rows - 1) // shard_rows)]
    if kind == "tsv":      # the header names the columns: part of every shard's input
        shards = [Shard(s.index, s.start, s.stop, s.offsets, hashlib.sha256(header).hexdigest()) for s in shards]
    return _with_digests(source.paths, shards), total


def _with_digests(paths: Sequence[str], shards: list[Shard]) -> list[Shard]:
    out = []
    handles = [open(p, "rb") for p in paths]
    try:
        boms = [len(UTF8_BOM) if fh.read(len(UTF8_BOM)) == UTF8_BOM else 0 for fh in handles]
        for sh in shards:
            h = hashlib.sha256(sh.digest.encode())
            for fh, bom, (lo, hi) in zip(handles, boms, sh.offsets):
                if bom and lo == bom:         # shard 0 of a file with a byte order mark: its digest covers the mark
                    lo = 0
                fh.seek(lo)
                left = hi - lo
                while left > 0:
                    block = fh.read(min(left, _BLOCK))
                    if not block:
                        break
                    h.update(block)
                    left -= len(block)
                h.update(b"\0")
            out.append(Shard(sh.index, sh.start, sh.stop, sh.offsets, h.hexdigest(), sh.file))
    finally:
        for fh in handles:
            fh.close()
    return out


def _decode_lines(path: str, shard: Shard, lo: int, hi: int, first_line: int) -> list[str]:
    try:
        with open(path, "rb") as fh:
            fh.seek(lo)
            data = fh.read(hi - lo)
    except OSError as exc:
        raise InputError(path, f"cannot read (shard {shard.index}): {exc.strerror or exc}") from None
    if len(data) != hi - lo:
        raise InputError(path, f"file changed during the run (shard {shard.index})")
    nul = data.find(b"\x00")
    if nul >= 0:
        line = first_line + len(_EOL.findall(data[:nul]))
        raise InputError(path, f"contains a NUL byte (shard {shard.index})", line)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + len(_EOL.findall(data[:exc.start]))
        raise InputError(path, f"invalid UTF-8 (shard {shard.index})", line) from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != shard.stop - shard.start:
        raise InputError(path, f"file changed during the run (shard {shard.index})")
    return lines


def read_shard(source: Source, shard: Shard) -> dict:
    """The rows of one shard: {"id": list, "columns": [list of str per text file]} for text sources, or
    {"id": list, "mo": list, "trg": list, "extra": {name: list}} for tables. The extra columns (source.extra) are
    returned unvalidated, one value per row: TSV field strings, JSON values (None where a row lacks the field),
    Parquet values (None for nulls); an extra column missing from a TSV header or Parquet schema is left out."""
    if source.kind == "text":
        cols = [_decode_lines(p, shard, lo, hi, shard.start + 1) for p, (lo, hi) in zip(source.paths, shard.offsets)]
        return {"id": list(range(shard.start, shard.stop)), "columns": cols}
    path = source.paths[0]
    kind = pair_format(path)
    c_mo, c_trg, c_id = source.columns["mo"], source.columns["trg"], source.columns.get("id")
    if kind == "parquet":
        return _read_parquet_shard(path, shard, c_mo, c_trg, c_id, source.extra)
    skip = 1 if kind == "tsv" else 0
    lo, hi = shard.offsets[0]
    lines = _decode_lines(path, shard, lo, hi, shard.start + 1 + skip)
    ids, mo, trg = [], [], []
    if kind == "tsv":
        names = _tsv_columns(source, *_header_end(path))
        i_mo, i_trg = names.index(c_mo), names.index(c_trg)
        i_id = names.index(c_id) if c_id in names else None
        extra = {c: [] for c in source.extra if c in names}
        i_extra = [(names.index(c), extra[c]) for c in extra]
        for k, line in enumerate(lines):
            f = line.split("\t")
            if len(f) != len(names):
                raise InputError(path, f"row has {len(f)} fields, the header {len(names)} (shard {shard.index})",
                                 shard.start + k + 2)
            mo.append(f[i_mo])
            trg.append(f[i_trg])
            ids.append(f[i_id] if i_id is not None else shard.start + k)
            for i, values in i_extra:
                values.append(f[i])
        return {"id": ids, "mo": mo, "trg": trg, "extra": extra}
    extra = {c: [] for c in source.extra}
    for k, line in enumerate(lines):
        where = shard.start + k + 1
        try:
            row = json_loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"malformed JSON row (shard {shard.index}): {exc.msg}", where) from None
        except ValueError as exc:      # nested too deeply
            raise InputError(path, f"malformed JSON row (shard {shard.index}): {exc}", where) from None
        if not isinstance(row, dict):
            raise InputError(path, f"row is not a JSON object (shard {shard.index})", where)
        for c in (c_mo, c_trg):
            if c not in row:
                raise InputError(path, f"row has no {c!r} field (shard {shard.index})", where)
            if not isinstance(row[c], str):
                raise InputError(path, f"field {c!r} is not a string (shard {shard.index})", where)
        mo.append(row[c_mo])
        trg.append(row[c_trg])
        ids.append(row.get(c_id, shard.start + k) if c_id else shard.start + k)
        for c, values in extra.items():
            values.append(row.get(c))
    return {"id": ids, "mo": mo, "trg": trg, "extra": extra}


def _read_parquet_shard(path: str, shard: Shard, c_mo: str, c_trg: str, c_id: str | None,
                        extra_cols: Sequence[str] = ()) -> dict:
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:   # noqa: BLE001
        raise InputError(path, f"cannot read as Parquet (shard {shard.index}): {exc}") from None
    names = pf.schema_arrow.names
    missing = [c for c in (c_mo, c_trg) if c not in names]
    if missing:
        raise InputError(path, f"missing column(s) {', '.join(missing)} (columns: {names})")
    extra_cols = [c for c in extra_cols if c in names]
    want = list(dict.fromkeys([c_mo, c_trg] + ([c_id] if c_id in names else []) + extra_cols))
    meta = pf.metadata
    tables = []
    row = 0
    for g in range(meta.num_row_groups):
        n = meta.row_group(g).num_rows
        if row + n > shard.start and row < shard.stop:
            t = pf.read_row_group(g, columns=want)
            a = max(shard.start - row, 0)
            b = min(shard.stop - row, n)
            tables.append(t.slice(a, b - a))
        row += n
    import pyarrow as pa

    t = pa.concat_tables(tables) if tables else None
    out = {}
    for key, c in (("mo", c_mo), ("trg", c_trg)):
        col = t.column(c) if t is not None else pa.array([], pa.string())
        if not pa.types.is_string(col.type) and not pa.types.is_large_string(col.type):
            raise InputError(path, f"column {c!r} is {col.type}, not strings")
        if col.null_count:
            vals = col.to_pylist()
            k = next(i for i, v in enumerate(vals) if v is None)
            raise InputError(path, f"row {shard.start + k} has no {c!r} value (shard {shard.index})")
        out[key] = col.to_pylist()
    out["id"] = (t.column(c_id).to_pylist() if t is not None and c_id in names
                 else list(range(shard.start, shard.stop)))
    out["extra"] = {c: t.column(c).to_pylist() if t is not None else [] for c in extra_cols}
    return out


_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
_INT64 = range(-2 ** 63, 2 ** 63)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value in _INT64


def _first_id(path: str, kind: str, c_id: str | None):
    """The first row's id of a JSONL or TSV table (None where there is no id column or no row, or the first line is
    not a JSON object: the shard that holds it reports that)."""
    if not c_id:
        return None
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as fh:
        if kind == "tsv":
            names = fh.readline().rstrip("\r\n").split("\t")
            fields = fh.readline().rstrip("\r\n").split("\t")
            return fields[names.index(c_id)] if c_id in names and len(fields) == len(names) else None
        try:
            row = json.loads(fh.readline())
        except ValueError:
            return None
    return row.get(c_id) if isinstance(row, dict) else None


def id_type(source: Source):
    """The Arrow type of a table source's id column in its sharded output: the Parquet column's own type; for JSONL
    and TSV the type of the first row's id (int64 for a JSON integer or a TSV field written as an integer, string
    otherwise); int64 where there is no id column (the ids are the 0-based row numbers). typed_ids then holds every
    row to it: ids are all integers or all strings, never a mix."""
    import pyarrow as pa

    path, c_id = source.paths[0], source.columns.get("id")
    kind = pair_format(path)
    if kind == "parquet":
        import pyarrow.parquet as pq

        try:
            schema = pq.read_schema(path)
        except Exception as exc:   # noqa: BLE001 - pyarrow raises several types for unreadable files
            raise InputError(path, f"cannot read as Parquet: {exc}") from None
        return schema.field(c_id).type if c_id and c_id in schema.names else pa.int64()
    first = _first_id(path, kind, c_id)
    if first is None:
        return pa.int64()
    if kind == "tsv":
        return pa.int64() if _INTEGER.fullmatch(first) and int(first) in _INT64 else pa.string()
    return pa.int64() if _is_int(first) else pa.string()


def typed_ids(source: Source, shard: Shard, ids: Sequence, type_):
    """One shard's ids (read_shard's) as an Arrow array of the job's id_type; a JSONL or TSV row whose id is not of
    that type is refused, naming the file and line."""
    import pyarrow as pa

    path = source.paths[0]
    kind = pair_format(path)
    if kind == "parquet":
        return pa.array(ids, type_)
    want_int = pa.types.is_integer(type_)
    out = []
    for k, value in enumerate(ids):
        if want_int and kind == "tsv" and isinstance(value, str) and _INTEGER.fullmatch(value):
            value = int(value)
        if not (_is_int(value) if want_int else isinstance(value, str)):
            raise InputError(path, f"id {value!r} is not {'an integer' if want_int else 'a string'}, as the first "
                                   f"row's id is: ids must be all integers or all strings (shard {shard.index})",
                             shard.start + k + (2 if kind == "tsv" else 1))
        out.append(value)
    return pa.array(out, type_)


def text_source(paths: Sequence[str]) -> Source:
    return Source("text", tuple(os.fspath(p) for p in paths))


def table_source(path: str, mo: str = "mo", trg: str = "trg", id: str | None = "id",
                 extra: Sequence[str] = ()) -> Source:
    pair_format(path)
    return Source("table", (os.fspath(path),), {"mo": mo, "trg": trg, "id": id}, tuple(extra))
