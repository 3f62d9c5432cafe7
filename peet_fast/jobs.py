"""Sharded, resumable jobs (featurize, score): the unit of work is a shard of rows, written atomically as one Parquet
file and recorded in DIR/manifest.json. A rerun of an interrupted job with the same inputs and settings reuses every
completed shard and produces identical output. Nothing here knows whether it runs in this process or in a Ray actor
(peet_fast.distributed runs the same run_shard() in an actor pool)."""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from typing import Callable, Sequence

import numpy as np

from peet_fast import __version__
from peet_fast.io import InputError, atomic_write
from peet_fast.sources import Shard, Source, plan, read_shard

MANIFEST = "_manifest.json"   # "_" prefix: pyarrow.parquet.read_table(DIR) skips it
FORMAT = "peet-fast-job"
DEFAULT_SHARD_ROWS = 20_000


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
    extra: dict = field(default_factory=dict)

    def signature(self) -> str:
        d = asdict(self)
        # the inputs' contents are checked shard by shard (Shard.digest), so fixing a bad line keeps the other shards
        d["source"] = {"kind": self.source.kind, "paths": [os.path.abspath(p) for p in self.source.paths],
                       "columns": self.source.columns}
        d["peet_fast"] = __version__
        d.pop("batch_size")        # parse batching does not change results
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()


class WorkerState:
    """What a worker loads once and keeps: the annotator (spaCy pipeline) and the model."""

    def __init__(self, spec: JobSpec):
        from peet_fast.en.annotator import Annotator
        from peet_fast.model import from_json

        self.spec = spec
        self.annotator = Annotator(spacy_model=spec.spacy_model, batch_size=spec.batch_size)
        self.model = from_json(spec.model, "<job model>") if spec.model is not None else None


def shard_file(index: int) -> str:
    return f"part-{index:05d}.parquet"


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run_shard(state: WorkerState, shard: Shard, out_dir: str) -> dict:
    """Compute one shard and write it atomically; returns its manifest entry."""
    import pyarrow.parquet as pq

    spec = state.spec
    rows = read_shard(spec.source, shard)
    if spec.kind == "featurize":
        from peet_fast.en.features import featurize_table

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

        from peet_fast.scoring import score_chunks, sentence_table

        cols = rows["columns"]
        n_h = len(cols) - spec.n_refs
        contrib = bool(spec.extra.get("contributions", False))
        tables = [sentence_table(state.model, spec.system_names, ch, contrib)
                  for ch in score_chunks(state.annotator, state.model, cols[:n_h], cols[n_h:], offset=shard.start)]
        table = pa.concat_tables(tables) if tables else None
        if table is None:
            from peet_fast.scoring import sentence_schema
            table = sentence_schema(state.model, contrib).empty_table()
    else:
        raise ValueError(f"unknown job kind {spec.kind!r}")
    path = os.path.join(out_dir, shard_file(shard.index))
    with atomic_write(path, "wb") as fh:
        pq.write_table(table, fh, compression="zstd")
    return {"index": shard.index, "start": shard.start, "stop": shard.stop, "file": shard_file(shard.index),
            "rows": table.num_rows, "sha256": _sha256(path), "input": shard.digest}


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
            if os.path.exists(p) and _sha256(p) == entry["sha256"]:
                self.done[entry["index"]] = entry

    def add(self, entry: dict) -> None:
        self.done[entry["index"]] = entry
        self.write()

    def write(self) -> None:
        d = {"format": FORMAT, "version": 1, "kind": self.spec.kind, "signature": self.signature,
             "total_rows": self.total, "shard_rows": self.spec.shard_rows, "shards_total": self.n_shards,
             "complete": len(self.done) == self.n_shards,
             "shards": [self.done[k] for k in sorted(self.done)]}
        with atomic_write(self.path) as fh:
            json.dump(d, fh, indent=1)
            fh.write("\n")


def run_job(spec: JobSpec, out_dir: str, workers: int = 1, ray_address: str | None = None,
            progress: Callable[[int], None] | None = None) -> Manifest:
    """Plan the shards, skip those an earlier run completed, compute the rest (here, or on Ray when workers > 1 or an
    address is given), and return the manifest."""
    if workers < 1:
        raise InputError("--workers", "must be at least 1")
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
            progress(done_rows)

    if todo:
        if workers == 1 and ray_address is None:
            state = WorkerState(spec)
            for shard in todo:
                finished(run_shard(state, shard, out_dir))
        else:
            from peet_fast.distributed import run_shards

            run_shards(spec, todo, out_dir, workers, ray_address, finished)
    return manifest


def shard_paths(out_dir: str) -> list[str]:
    """The shard files of a completed job directory, in row order."""
    path = os.path.join(out_dir, MANIFEST)
    try:
        with open(path, encoding="utf-8") as fh:
            m = json.load(fh)
    except (OSError, ValueError) as exc:
        raise InputError(path, f"cannot read the job manifest: {exc}") from None
    if not m.get("complete"):
        raise InputError(out_dir, "the job is not complete (rerun it to finish the missing shards)")
    return [os.path.join(out_dir, e["file"]) for e in sorted(m["shards"], key=lambda e: e["index"])]


def score_summary(out_dir: str, system_names: Sequence[str], hyp_files: Sequence[str], total: int):
    """System scores from a completed score job's per-sentence shards (correctly rounded means)."""
    import pyarrow.parquet as pq

    from peet_fast.scoring import SystemScore, system_mean

    parts: dict[str, list] = {name: [] for name in system_names}
    for p in shard_paths(out_dir):
        t = pq.read_table(p, columns=["system", "seconds"])
        systems = np.asarray(t.column("system").to_pylist(), dtype=object)
        secs = t.column("seconds").to_numpy()
        for name in system_names:
            parts[name].append(secs[systems == name])
    return [SystemScore(name, f, system_mean(parts[name]), total) for name, f in zip(system_names, hyp_files)]
