"""Sharded, resumable jobs (featurize, score): the unit of work is a shard of rows, written atomically as one Parquet
file and recorded in DIR/_manifest.json. A rerun of an interrupted job with the same inputs and settings reuses every
completed shard and produces identical output. Nothing here knows where shards run: run_job receives a Runner from its
caller (jobs.local.LocalRunner in this process, jobs.ray.RayRunner on an actor pool), and both run the same
run_shard()."""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from typing import Callable, Protocol, Sequence

from peet_fast import __version__
from peet_fast.en.annotator import Annotator
from peet_fast.en.features import featurize_table
from peet_fast.en.parse import DEFAULT_MAX_LINE_TOKENS
from peet_fast.formats.pairs import pair_format
from peet_fast.io import InputError, atomic_write, lines_located
from peet_fast.jobs.layout import FORMAT, MANIFEST, file_sha256, shard_file
from peet_fast.jobs.sources import Shard, Source, plan, read_shard
from peet_fast.model import from_json
from peet_fast.scoring import score_chunks, sentence_schema, sentence_table

DEFAULT_SHARD_ROWS = 20_000


class JobOptionError(InputError):
    """An invalid job option; `option` names the parameter (workers, ray_address, shard_rows, ...), so that a
    command line can name its own flag instead."""

    def __init__(self, option: str, message: str):
        self.option = option
        self.message = message
        super().__init__(option, message)


class WorkerError(RuntimeError):
    """The machinery that runs shards failed (a Ray worker that cannot start, a lost node or cluster): an environment
    fault, not bad input; str() is one line naming the cause."""


def check_at_least_one(**options: int) -> None:
    """Refuse any of the given counts (shard_rows=..., batch_size=...) that is below 1."""
    for name, value in options.items():
        if value < 1:
            raise JobOptionError(name, "must be at least 1")


@dataclass
class JobSpec:
    """Everything that determines a job's output (and so its resume signature)."""
    kind: str                                  # "featurize" | "score"
    source: Source
    feature_set: str = "small"
    model: dict | None = None                  # score: the model's JSON
    system_names: tuple[str, ...] = ()         # score: one per hypothesis file (the first paths of a text source)
    n_refs: int = 0                            # score: the last n_refs paths are references
    spacy_model: str | None = None
    batch_size: int = 256
    shard_rows: int = DEFAULT_SHARD_ROWS
    max_line_tokens: int = DEFAULT_MAX_LINE_TOKENS   # en.parse's line limits (0: none); applied by every worker
    extra: dict = field(default_factory=dict)

    def signature(self) -> str:
        d = asdict(self)
        # the inputs' contents are checked shard by shard (Shard.digest), so fixing a bad line keeps the other shards
        d["source"] = {"kind": self.source.kind, "paths": [os.path.abspath(p) for p in self.source.paths],
                       "columns": self.source.columns}
        d["peet_fast"] = __version__
        d.pop("batch_size")        # parse batching does not change results
        d.pop("max_line_tokens")   # nor does a limit: it refuses a line, or the result is the same
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()


class WorkerState:
    """What a worker loads once and keeps: the annotator (spaCy pipeline) and the model."""

    def __init__(self, spec: JobSpec):
        self.spec = spec
        self.annotator = Annotator(spacy_model=spec.spacy_model, batch_size=spec.batch_size,
                                   max_line_tokens=spec.max_line_tokens)
        self.model = from_json(spec.model, "<job model>") if spec.model is not None else None


def run_shard(state: WorkerState, shard: Shard, out_dir: str) -> dict:
    """Compute one shard and write it atomically; returns its manifest entry."""
    import pyarrow.parquet as pq

    spec = state.spec
    rows = read_shard(spec.source, shard)
    with _lines_of_shard(spec.source, shard, rows):
        table = _compute_shard(state, shard, rows)
    path = os.path.join(out_dir, shard_file(shard.index))
    try:
        with atomic_write(path, "wb") as fh:
            pq.write_table(table, fh, compression="zstd")
        sha256 = file_sha256(path)
    except OSError as exc:        # disk full, permission: name the directory and the shard
        raise OSError(exc.errno, f"{exc.strerror or exc} (shard {shard.index})", out_dir) from exc
    return {"index": shard.index, "start": shard.start, "stop": shard.stop, "file": shard_file(shard.index),
            "rows": table.num_rows, "sha256": sha256, "input": shard.digest}


def _lines_of_shard(source: Source, shard: Shard, rows: dict):
    """lines_located for a shard's rows: file and line (a Parquet table: row) of a sentence too long to parse."""
    suffix = f" (shard {shard.index})"
    if source.kind == "text":
        return lines_located(list(zip(source.paths, rows["columns"])), shard.start + 1, suffix)
    path = source.paths[0]
    kind = pair_format(path)
    first = None if kind == "parquet" else shard.start + (2 if kind == "tsv" else 1)
    return lines_located([(path, rows["mo"]), (path, rows["trg"])], first, suffix)


def _compute_shard(state: WorkerState, shard: Shard, rows: dict):
    """The table of one shard's rows."""
    spec = state.spec
    if spec.kind == "featurize":
        if spec.source.kind == "text":
            mo, trg = rows["columns"]
        else:
            mo, trg = rows["mo"], rows["trg"]
        table = featurize_table(state.annotator, mo, trg, spec.feature_set, start=shard.start)
        if spec.source.kind == "table":
            import pyarrow as pa

            table = table.add_column(1, pa.field("id", pa.string()), pa.array([str(i) for i in rows["id"]]))
    elif spec.kind == "score":
        import pyarrow as pa

        cols = rows["columns"]
        n_h = len(cols) - spec.n_refs
        contrib = bool(spec.extra.get("contributions", False))
        tables = [sentence_table(state.model, spec.system_names, ch, contrib)
                  for ch in score_chunks(state.annotator, state.model, cols[:n_h], cols[n_h:], offset=shard.start)]
        table = pa.concat_tables(tables) if tables else None
        if table is None:
            table = sentence_schema(state.model, contrib).empty_table()
    else:
        raise ValueError(f"unknown job kind {spec.kind!r}")
    return table


class Manifest:
    """DIR/manifest.json: the job's signature and its completed shards, rewritten atomically after each shard."""

    def __init__(self, out_dir: str, spec: JobSpec, shards: Sequence[Shard], total: int):
        self.shards = {s.index: s for s in shards}
        self.out_dir = out_dir
        self.path = os.path.join(out_dir, MANIFEST)
        self.signature = spec.signature()
        self.spec = spec
        self.total = total
        self.n_shards = len(shards)
        self.done: dict[int, dict] = {}

    def load_previous(self) -> None:
        """Keep the completed shards of an earlier run of the same job (checksums verified); refuse a directory that
        holds another job's output."""
        if not os.path.exists(self.path):
            leftovers = [f for f in os.listdir(self.out_dir) if f.startswith("part-")]
            if leftovers:
                raise InputError(self.out_dir, "holds shard files but no manifest; use an empty directory")
            return
        try:
            with open(self.path, encoding="utf-8") as fh:
                old = json.load(fh)
        except (OSError, ValueError) as exc:
            raise InputError(self.path, f"unreadable manifest: {exc}") from None
        if old.get("format") != FORMAT or old.get("signature") != self.signature:
            raise InputError(self.out_dir, "holds the output of a different job (other inputs or settings); use "
                                           "another directory, or remove it to start again")
        for entry in old.get("shards", []):
            sh = self.shards.get(entry.get("index"))
            if sh is None or (sh.start, sh.stop, sh.digest) != (entry.get("start"), entry.get("stop"),
                                                                entry.get("input")):
                continue                      # rows or their input changed: compute the shard again
            p = os.path.join(self.out_dir, entry["file"])
            if os.path.exists(p) and file_sha256(p) == entry["sha256"]:
                self.done[entry["index"]] = entry

    def add(self, entry: dict) -> None:
        self.done[entry["index"]] = entry
        self.write()

    def write(self) -> None:
        d = {"format": FORMAT, "version": 1, "kind": self.spec.kind, "signature": self.signature,
             "total_rows": self.total, "shard_rows": self.spec.shard_rows, "shards_total": self.n_shards,
             "complete": len(self.done) == self.n_shards,
             "shards": [self.done[k] for k in sorted(self.done)]}
        try:
            with atomic_write(self.path) as fh:
                json.dump(d, fh, indent=1)
                fh.write("\n")
        except OSError as exc:        # disk full, permission: name the manifest
            raise OSError(exc.errno, exc.strerror or str(exc), self.path) from exc


class Runner(Protocol):
    """Where a job's shards run: this process (jobs.local.LocalRunner) or a Ray actor pool (jobs.ray.RayRunner)."""

    distributed: bool     # True: shards run in other processes (their output must go to a directory)

    def run(self, spec: JobSpec, shards: Sequence[Shard], out_dir: str, on_done: Callable[[dict], None]) -> None:
        """Compute these shards of the job (run_shard) into out_dir, calling on_done with each one's manifest entry
        as it finishes (in any order)."""


def run_job(spec: JobSpec, out_dir: str, runner: Runner,
            progress: Callable[[int, int], None] | None = None) -> Manifest:
    """Plan the shards, skip those an earlier run completed, compute the rest with runner, and return the
    manifest. progress, if given, sees progress(rows done, total rows) once the shards are planned and after each
    shard; its describe(text) method, where it has one, hears the number of shards."""
    check_at_least_one(shard_rows=spec.shard_rows)
    shards, total = plan(spec.source, spec.shard_rows)
    os.makedirs(out_dir, exist_ok=True)
    manifest = Manifest(out_dir, spec, shards, total)
    manifest.load_previous()
    todo = [s for s in shards if s.index not in manifest.done]
    manifest.write()
    done_rows = total - sum(s.stop - s.start for s in todo)

    def finished(entry: dict) -> None:
        nonlocal done_rows
        manifest.add(entry)
        done_rows += entry["stop"] - entry["start"]
        if progress is not None:
            progress(done_rows, total)

    if progress is not None:
        if hasattr(progress, "describe"):
            progress.describe(f"{len(shards)} shards")
        progress(done_rows, total)

    if todo:
        runner.run(spec, todo, out_dir, finished)
    return manifest
