"""How a job is cut into shards and where a small one runs.

Shard size, by time. A JobSpec whose shard_rows is None sizes its shards itself (auto_shard_rows), from the rate one
worker is expected to parse at (EXPECTED_SENTENCES_PER_S sentences/s, cold parse cache) and the sentences each row
holds (two for featurize's pairs, one per file for score): a shard is about TARGET_SHARD_S (20 s) of one worker's
work, smaller where that leaves fewer than SHARDS_PER_WORKER (4) shards per worker, but not under MIN_SHARD_S (2.5 s)
of work, except that an input with fewer shards than workers is cut into shards of floor(rows / workers) rows, so
that every worker gets work. So an interruption loses at most one shard per worker, and the last shards of a run
finish close together. The size chosen is part of the job's signature and recorded in its manifest (`shard_rows`);
a rerun into the same directory takes the recorded size whenever the job is otherwise the same, so a job resumes
under any --workers; an explicit --shard-rows always wins (a different explicit size is another job, refused as
before).

Progress inside a shard. A shard is computed in pieces of about 2,048 sentences (piece_rows), and within a piece the
parser reports every batch (256 sentences), so a running shard reports its rows done every second or two
(jobs.worker.run_shard, WorkerState.on_rows); the output does not depend on the piece size.

Small jobs. Ray pays off only above a size: starting a local instance, warming its actors (each loads the spaCy
pipeline) and shutting it down costs a fixed ~6-7 s on a 2-core machine (benchmarks/scaling.py reports the parts),
while one process parses ~900-1,000 sentences/s; two workers won from ~12,000 sentences (docs/jobs.md).
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

DEFAULT_SHARD_ROWS = 20_000      # a JobSpec's size unless given (None: auto_shard_rows); the first plan's size
# Shards sized by time (see the module docstring): the parse rate of one worker on a quiet 2-core machine (README
# "How it scales": 20,000 pairs in 43 s in process, ~930 sentences/s; a machine shared with other work gives half of
# that: the issue-22 run, 30,000 pairs on 2 workers, ~375 sentences/s each), a shard of about 20 s of its work (20-45 s
# on a loaded machine), at least 4 shards per worker where that leaves shards of 2.5 s or more.
EXPECTED_SENTENCES_PER_S = 800
TARGET_SHARD_S = 20.0
MIN_SHARD_S = 2.5
SHARDS_PER_WORKER = 4
PIECE_SENTENCES = 2048           # sentences computed between two exact progress reports inside a shard
# Below this many sentences to parse a local Ray run costs more than it saves (measured: see the module docstring
# and docs/jobs.md); PEET_FAST_RAY_MIN_SENTENCES overrides it.
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
    unit = ("line" if spec.source.kind == "text" else "row") + ("" if total == 1 else "s")
    files = f" of {per_row} files" if spec.source.kind == "text" and per_row > 1 else ""
    workers = getattr(runner, "workers", None)
    print(f"peet-fast {spec.kind}: {total} {unit}{files} {'is' if total == 1 else 'are'} too few to pay for starting "
          f"Ray ({min_rows} or more do), so the job runs in this process instead of on "
          f"{f'--workers {workers}' if workers else 'Ray'}.", file=sys.stderr)
    return runner.in_process()


def auto_shard_rows(total: int, workers: int, per_row: int = 2) -> int:
    """The automatic shard size of `total` rows of `per_row` sentences each on `workers` workers: the rows of
    TARGET_SHARD_S seconds of one worker's work at EXPECTED_SENTENCES_PER_S, fewer where that leaves fewer than
    SHARDS_PER_WORKER shards per worker, but at least MIN_SHARD_S seconds' rows; then, where fewer shards than workers
    would leave a worker idle, floor(total / workers) (at least 1), so that there are at least min(workers, total)
    shards, the ones past the workers' first round holding fewer than `workers` rows in all."""
    rate = EXPECTED_SENTENCES_PER_S / max(1, per_row)           # rows per second of one worker
    most = max(1, int(TARGET_SHARD_S * rate))
    least = max(1, int(MIN_SHARD_S * rate))
    rows = min(most, max(least, math.ceil(total / (SHARDS_PER_WORKER * workers))))
    if workers > 1 and math.ceil(total / rows) < workers:
        return max(1, total // workers)
    return rows


def piece_rows(per_row: int) -> int:
    """Rows computed between two exact progress reports inside a shard: about PIECE_SENTENCES sentences."""
    return max(1, PIECE_SENTENCES // max(1, per_row))


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
    DEFAULT_SHARD_ROWS where it is None) as they are when spec.shard_rows is set (an explicit size wins), else planned
    again with the size an earlier run of the same job recorded in out_dir, or else auto_shard_rows."""
    if spec.shard_rows is not None:
        return spec, shards
    rows = recorded_shard_rows(spec, out_dir) or auto_shard_rows(total, workers, texts_per_row(spec))
    if rows != DEFAULT_SHARD_ROWS:
        shards, total = plan(spec.source, rows)
    return dataclasses.replace(spec, shard_rows=rows), shards
