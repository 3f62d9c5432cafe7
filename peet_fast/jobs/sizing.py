"""How a job is cut into shards and where a small one runs.

Shard size. A JobSpec whose shard_rows is None sizes its shards itself: DEFAULT_SHARD_ROWS rows, except that an input
with fewer shards than workers is cut into shards of floor(rows / workers) rows, so that every worker gets work. The
size chosen is part of the job's signature and recorded in its manifest (`shard_rows`); a rerun into the same
directory takes the recorded size whenever the job is otherwise the same, so a job resumes under any
--workers (a different explicit --shard-rows is another job, refused as before).

Small jobs. Ray pays off only above a size: starting a local instance, warming its actors (each loads the spaCy
pipeline) and shutting it down costs a fixed ~6-7 s on a 2-core machine (benchmarks/scaling.py reports the parts),
while one process parses ~900-1,000 sentences/s; two workers won from ~12,000 sentences (README "Large corpora").
A local Ray runner (not one joining a cluster) given a job of fewer than `min_sentences` sentences to parse (rows x
texts per row) runs it in this process instead, with one notice; the output is identical. PEET_FAST_RAY_MIN_SENTENCES
overrides the threshold (0: always Ray)."""
from __future__ import annotations

import dataclasses
import math
import os
import sys
from typing import Sequence

from peet_fast.io import InputError, json_loads
from peet_fast.jobs.layout import MANIFEST
from peet_fast.jobs.sources import Shard, plan

DEFAULT_SHARD_ROWS = 20_000
# Below this many sentences to parse a local Ray run costs more than it saves (measured: see the module docstring
# and README "Large corpora"); PEET_FAST_RAY_MIN_SENTENCES overrides it.
RAY_MIN_SENTENCES = 12_000
MIN_SENTENCES_ENV = "PEET_FAST_RAY_MIN_SENTENCES"


def ray_min_sentences() -> int:
    """The small-job threshold: PEET_FAST_RAY_MIN_SENTENCES if set (a whole number >= 0), else RAY_MIN_SENTENCES."""
    value = os.environ.get(MIN_SENTENCES_ENV, "").strip()
    if not value:
        return RAY_MIN_SENTENCES
    if not value.isdigit():
        raise InputError(MIN_SENTENCES_ENV, f"must be a whole number >= 0, not {value!r}")
    return int(value)


def texts_per_row(spec) -> int:
    """Sentences parsed per row: one per text file side by side, two (MO, TRG) per row of a table of pairs."""
    return len(spec.source.paths) if spec.source.kind == "text" else 2


def small_job_runner(spec, runner, total: int):
    """runner, or its in-process replacement (runner.in_process(), after one notice on stderr) where runner is a local
    Ray runner with a small-job threshold and the job has fewer sentences to parse."""
    min_sentences = getattr(runner, "min_sentences", 0)
    if not min_sentences:
        return runner
    per_row = texts_per_row(spec)
    min_rows = math.ceil(min_sentences / per_row)
    if total >= min_rows:
        return runner
    unit = "lines" if spec.source.kind == "text" else "rows"
    files = f" of {per_row} files" if spec.source.kind == "text" and per_row > 1 else ""
    print(f"peet-fast {spec.kind}: {total} {unit}: running in this process (below {min_rows} {unit}{files} Ray's "
          f"start-up costs more than it saves); --workers ignored", file=sys.stderr)
    return runner.in_process()


def auto_shard_rows(total: int, workers: int) -> int:
    """The automatic shard size: DEFAULT_SHARD_ROWS, or floor(total / workers) (at least 1) where fewer shards than
    workers would leave a worker idle: then there are at least min(workers, total) shards, the ones past the
    workers' first round holding fewer than `workers` rows in all."""
    if workers > 1 and total < workers * DEFAULT_SHARD_ROWS:
        return max(1, total // workers)
    return DEFAULT_SHARD_ROWS


def recorded_shard_rows(spec, out_dir: str) -> int | None:
    """The shard size an earlier run of the same job recorded in out_dir's manifest, or None (no manifest, a
    damaged one, another job's)."""
    try:
        with open(os.path.join(out_dir, MANIFEST), encoding="utf-8") as fh:
            old = json_loads(fh.read(64 << 20))
    except (OSError, ValueError):
        return None
    rows = old.get("shard_rows") if isinstance(old, dict) else None
    if not isinstance(rows, int) or isinstance(rows, bool) or rows < 1:
        return None
    if dataclasses.replace(spec, shard_rows=rows).signature() != old.get("signature"):
        return None
    return rows


def sized(spec, shards: Sequence[Shard], total: int, out_dir: str, workers: int) -> tuple[object, Sequence[Shard]]:
    """(spec with its shard size resolved, its shards): spec and shards (planned with spec.shard_rows, or
    DEFAULT_SHARD_ROWS where it is None) as they are when spec.shard_rows is set, else planned again with the size
    an earlier run recorded in out_dir or auto_shard_rows."""
    if spec.shard_rows is not None:
        return spec, shards
    rows = recorded_shard_rows(spec, out_dir) or auto_shard_rows(total, workers)
    if rows != DEFAULT_SHARD_ROWS:
        shards, total = plan(spec.source, rows)
    return dataclasses.replace(spec, shard_rows=rows), shards
