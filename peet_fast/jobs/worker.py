"""What one worker does, wherever it runs (this process, a Ray actor): WorkerState loads the pipeline and the model
once; run_shard computes one shard a piece at a time (RowMeter reports its rows done) and writes its Parquet file
atomically, returning the shard's manifest entry."""
from __future__ import annotations

import json
import os
from typing import Callable

from peet_fast.en.annotator import Annotator
from peet_fast.en.features import featurize_table
from peet_fast.formats.pairs import pair_format
from peet_fast.io import atomic_write, lines_located
from peet_fast.jobs.layout import SHARD_KEY, SIGNATURE_KEY, file_sha256, shard_file
from peet_fast.jobs.sizing import piece_rows, texts_per_row
from peet_fast.jobs.sources import Shard, Source, id_type, read_shard, typed_ids
from peet_fast.jobs.spec import JobSpec
from peet_fast.metrics.signature import job_signature
from peet_fast.peet.model import from_json
from peet_fast.peet.scoring import score_chunks, sentence_schema, sentence_table


class WorkerState:
    """What a worker loads once and keeps: the annotator (spaCy pipeline) and the model. on_rows, where its runner
    sets it, hears on_rows(shard index, rows of the shard done) while run_shard computes a shard."""

    def __init__(self, spec: JobSpec):
        self.spec = spec
        self.signature = spec.signature()
        self.metric_signature = job_signature(spec.kind, spec.feature_set, spec.model, spec.n_refs, spec.spacy_model,
                                              spec.tokenise)        # how to reproduce the figures (docs/metrics.md)
        self.annotator = Annotator(spacy_model=spec.spacy_model, batch_size=spec.batch_size, tokenise=spec.tokenise,
                                   max_line_tokens=spec.max_line_tokens, **spec.cache)
        self.model = from_json(spec.model, "<job model>") if spec.model is not None else None
        self.on_rows: Callable[[int, int], None] | None = None
        self.id_type = id_type(spec.source) if spec.source.kind == "table" else None


class RowMeter:
    """Rows done of a computation that goes through `total` rows in pieces of `piece` rows: report(rows) after each
    piece (advance(stop)) and, inside a piece, after each parse batch of the annotator's parser (its share of the
    piece's sentences parsed, the bulk of the work); rows reported only ever grow. A context manager: the parser's
    progress hook is installed inside the block only."""

    def __init__(self, annotator, total: int, piece: int, report: Callable[[int], None]):
        self.parser = getattr(annotator, "parser", None)
        self.total = total
        self.piece = max(1, piece)
        self.report = report
        self.lo, self.hi = 0, min(total, self.piece)
        self.shown = 0
        self._saved = None

    def __enter__(self) -> RowMeter:
        if self.parser is not None and hasattr(self.parser, "progress"):
            self._saved = self.parser.progress
            self.parser.progress = self._parsed
        return self

    def __exit__(self, *exc) -> None:
        if self.parser is not None and hasattr(self.parser, "progress"):
            self.parser.progress = self._saved

    def _parsed(self, parsed: int, to_parse: int) -> None:
        if self._saved is not None:
            self._saved(parsed, to_parse)
        self._show(self.lo + (self.hi - self.lo) * parsed // max(1, to_parse))

    def advance(self, stop: int) -> None:
        """The rows up to `stop` are done; the next piece starts there."""
        self._show(stop)
        self.lo, self.hi = stop, min(self.total, stop + self.piece)

    def _show(self, rows: int) -> None:
        if rows > self.shown:
            self.shown = rows
            self.report(rows)


def run_shard(state: WorkerState, shard: Shard, out_dir: str) -> dict:
    """Compute one shard (in pieces, reporting its rows done to state.on_rows where set) and write it atomically;
    returns its manifest entry."""
    import pyarrow.parquet as pq

    spec = state.spec
    rows = read_shard(spec.source, shard)
    on_rows = state.on_rows
    report = (lambda n: on_rows(shard.index, n)) if on_rows is not None else (lambda n: None)
    with _lines_of_shard(spec.source, shard, rows), \
            RowMeter(state.annotator, shard.stop - shard.start, piece_rows(texts_per_row(spec)), report) as meter:
        table = _compute_shard(state, shard, rows, meter)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), SIGNATURE_KEY: state.metric_signature})
    name = shard.file or shard_file(shard.index)
    path = os.path.join(out_dir, name)
    entry = {"index": shard.index, "start": shard.start, "stop": shard.stop, "file": name,
             "rows": table.num_rows, "input": shard.digest}
    try:
        with atomic_write(path, "wb") as fh:
            with pq.ParquetWriter(fh, table.schema, compression="zstd", write_page_checksum=True) as writer:
                writer.write_table(table)
                writer.add_key_value_metadata({SHARD_KEY: json.dumps({**entry, "signature": state.signature})})
        entry["sha256"] = file_sha256(path)
    except OSError as exc:        # disk full, permission: name the directory and the shard
        raise OSError(exc.errno, f"{exc.strerror or exc} (shard {shard.index})", out_dir) from exc
    return entry


def _lines_of_shard(source: Source, shard: Shard, rows: dict):
    """lines_located for a shard's rows: file and line (a Parquet table: row) of a sentence too long to parse."""
    suffix = f" (shard {shard.index})"
    if source.kind == "text":
        return lines_located(list(zip(source.paths, rows["columns"])), shard.start + 1, suffix)
    path = source.paths[0]
    kind = pair_format(path)
    first = None if kind == "parquet" else shard.start + (2 if kind == "tsv" else 1)
    return lines_located([(path, rows["mo"]), (path, rows["trg"])], first, suffix)


def _compute_shard(state: WorkerState, shard: Shard, rows: dict, meter: RowMeter):
    """The table of one shard's rows, computed a piece (meter.piece rows) at a time."""
    import pyarrow as pa

    spec = state.spec
    if spec.kind == "featurize":
        if spec.source.kind == "text":
            mo, trg = rows["columns"]
        else:
            mo, trg = rows["mo"], rows["trg"]
        pieces = []
        for lo in range(0, len(mo), meter.piece):
            hi = min(len(mo), lo + meter.piece)
            pieces.append(featurize_table(state.annotator, mo[lo:hi], trg[lo:hi], spec.feature_set,
                                          start=shard.start + lo))
            meter.advance(hi)
        table = (pa.concat_tables(pieces) if pieces else
                 featurize_table(state.annotator, mo, trg, spec.feature_set, start=shard.start))
        if spec.source.kind == "table":
            table = table.add_column(1, pa.field("id", state.id_type),
                                     typed_ids(spec.source, shard, rows["id"], state.id_type))
    elif spec.kind == "score":
        cols = rows["columns"]
        n_h = len(cols) - spec.n_refs
        contrib = bool(spec.extra.get("contributions", False))
        edits = bool(spec.extra.get("edits", False))
        tables = []
        for ch in score_chunks(state.annotator, state.model, cols[:n_h], cols[n_h:], chunk=meter.piece,
                               offset=shard.start, edits=edits):
            tables.append(sentence_table(state.model, spec.system_names, ch, contrib))
            meter.advance(ch.stop - shard.start)
        table = pa.concat_tables(tables) if tables else None
        if table is None:
            table = sentence_schema(state.model, contrib, edits).empty_table()
    else:
        raise ValueError(f"unknown job kind {spec.kind!r}")
    return table
