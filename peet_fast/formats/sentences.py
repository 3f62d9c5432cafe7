"""Per-sentence result files (``score --out FILE``): the rows of scoring.sentence_table, streamed chunk by chunk into
one file whose format its suffix names (formats.pairs.sentence_format), written atomically.

- ``.parquet`` / ``.arrow``: the Arrow table as is (``edits``, when present, a list-of-strings column);
- ``.jsonl``: one JSON object a row, keys in column order, ``edits`` a JSON list of strings;
- ``.tsv`` / ``.csv``: a header line naming the columns, then one line a row; TSV fields are raw (unquoted), CSV is
  quoted as Python's csv module quotes it; ``edits`` holds the M2 ``A`` lines joined by EDITS_SEPARATOR (empty for
  a pair without edits).

Numbers are written so that they read back exactly: integers in decimal, floats as Python's shortest round-trip
repr; a missing value (``seconds_per_word`` of a sentence without MO words) is an empty TSV/CSV field and ``null``
in JSONL."""
from __future__ import annotations

import csv
import json
import os

from peet_fast.formats.pairs import TableWriter, sentence_format
from peet_fast.io import InputError, atomic_write

EDITS_SEPARATOR = " ;; "    # between the A lines of one pair in TSV and CSV (JSONL and Arrow keep a list)


class SentenceWriter:
    """Streams per-sentence tables (pyarrow Tables with one schema) to a file, atomically: the file appears, whole,
    when the block ends without an error."""

    def __init__(self, path: str | os.PathLike, schema):
        self.path = os.fspath(path)
        self.schema = schema
        self.format = sentence_format(self.path)
        self._ctx = None
        self._fh = None
        self._rows = 0

    def __enter__(self) -> "SentenceWriter":
        if self.format in ("parquet", "arrow"):
            self._ctx = TableWriter(self.path, self.schema)
            self._ctx.__enter__()
            return self
        self._ctx = atomic_write(self.path, "w")
        self._fh = self._ctx.__enter__()
        if self.format == "csv":
            self._csv = csv.writer(self._fh, lineterminator="\n")
            self._csv.writerow(self.schema.names)
        elif self.format == "tsv":
            self._fh.write("\t".join(self.schema.names) + "\n")
        return self

    def write(self, table) -> None:
        """Append the rows of a table with the writer's schema."""
        if self.format in ("parquet", "arrow"):
            self._ctx.write(table)
            return
        names = self.schema.names
        columns = [table.column(n).to_pylist() for n in names]
        for values in zip(*columns):
            row = dict(zip(names, values))
            if self.format == "jsonl":
                self._fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            else:
                self._write_text_row([_text(row[n]) for n in names])
            self._rows += 1

    def _write_text_row(self, fields: list[str]) -> None:
        if self.format == "csv":
            self._csv.writerow(fields)
            return
        for field in fields:
            if any(c in field for c in "\t\n\r"):
                raise InputError(self.path, f"row {self._rows + 1}: a field contains a tab or line break; cannot "
                                            "write TSV (use .csv, .jsonl or .parquet)")
        self._fh.write("\t".join(fields) + "\n")

    def __exit__(self, exc_type, exc, tb):
        return self._ctx.__exit__(exc_type, exc, tb)


def _text(value) -> str:
    """A value of a per-sentence row as a TSV/CSV field; a missing value (null) is an empty field."""
    if value is None:
        return ""
    if isinstance(value, list):
        return EDITS_SEPARATOR.join(value)
    if isinstance(value, float):
        return repr(value)
    return str(value)
