"""How a job is cut into shards and where a small one runs.

Shard size, from this run's rate. A JobSpec whose shard_rows is None has its shards cut as it runs
(jobs.plan.AdaptivePlan), each as a worker becomes free, of the size ShardSizer.next_rows chooses then: the first
shards are FIRST_SHARD_S (1 s) of work at the rate one worker is expected to parse at (EXPECTED_SENTENCES_PER_S
sentences/s, cold parse cache; two sentences a row for featurize's pairs, one per file for score), so that a shard
is kept within seconds even on a busy machine (at load 10-15 on 2 cores, 2 s shards took 28-36 s to the first part
file of a --workers 2 command, spaCy's load and Ray's start included: benchmarks/busy_machine.py); once shards have
finished, the next ones are TARGET_SHARD_S (20 s) of work at the rate measured over the last RECENT shards (rows per
second of one worker), growing by at most GROWTH (2x) a step and never over MAX_SHARD_SENTENCES sentences; near the
end no shard takes more than its share of the rows left (rows left / workers, but not under MIN_SHARD_S of work once
the rate is known), so the last shards of a run end close together. The output does not depend on the boundaries
(rows are computed one by one); the manifest records each shard's row range, and a rerun keeps them (jobs.plan), so
a job resumes under any --workers. An explicit shard_rows (--shard-rows) cuts the input into shards of that many
rows before the job starts, as before (a different explicit size is another job); so does the size an earlier
version chose and recorded in the job's directory (recorded_shard_rows), so that its interrupted jobs resume.

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

import math
import os
import sys
from collections import deque

from peet_fast.io import InputError
from peet_fast.jobs.errors import Wording, said

DEFAULT_SHARD_ROWS = 20_000      # a JobSpec's size unless given (None: cut as the job runs, ShardSizer)
# The expected parse rate of one worker on a quiet 2-core machine (README "How it scales": 20,000 pairs in 43 s in
# process, ~930 sentences/s; a busy machine gives a half to a quarter of that): only the first shards' size
# depends on it, the later ones on the rate measured in the run.
EXPECTED_SENTENCES_PER_S = 800
FIRST_SHARD_S = 1.0              # the first shards: seconds of work at the expected rate (see the docstring)
TARGET_SHARD_S = 20.0            # later shards: seconds of work at the measured rate
MIN_SHARD_S = 1.0                # the last shards (a share of the rows left): not under this, once measured
GROWTH = 2.0                     # a shard at most this many times the largest one before it
MAX_SHARD_SENTENCES = 40_000     # the cap, whatever the rate
RECENT = 4                       # the rate: over the last RECENT finished shards
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
    if not (value.isascii() and value.isdigit()):
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
    on = Wording("{workers} {n}", n=workers) if workers else "Ray"
    notice = Wording("{total} {unit}{files} {verb} too few to pay for starting Ray ({min_rows} or more do), so the job "
                     "runs in this process instead of on {on}.", total=total, unit=unit, files=files,
                     verb="is" if total == 1 else "are", min_rows=min_rows, on=on)
    print(f"peet-fast {spec.kind}: {said(notice)}", file=sys.stderr)
    return runner.in_process()


def recorded_shard_rows(spec, out_dir: str) -> int | None:
    """The shard size an earlier version recorded in out_dir's manifest for this job run without --shard-rows (it
    sized shards up front and recorded the size chosen), so that its directory resumes with that size; None where
    there is no such manifest (none, a damaged one, another job's, or shards cut as the job ran)."""
    import dataclasses
    import os

    from peet_fast.io import json_loads, read_prefix
    from peet_fast.jobs.layout import MANIFEST, MAX_MANIFEST_BYTES

    try:
        old = json_loads(read_prefix(os.path.join(out_dir, MANIFEST), MAX_MANIFEST_BYTES).decode("utf-8"))
    except (OSError, ValueError):
        return None
    rows = old.get("shard_rows") if isinstance(old, dict) else None
    if not isinstance(rows, int) or isinstance(rows, bool) or rows < 1:
        return None
    return rows if dataclasses.replace(spec, shard_rows=rows).signature() == old.get("signature") else None


def piece_rows(per_row: int) -> int:
    """Rows computed between two exact progress reports inside a shard: about PIECE_SENTENCES sentences."""
    return max(1, PIECE_SENTENCES // max(1, per_row))


class ShardSizer:
    """The size of the next shard of a job cut as it runs (see the module docstring): next_rows(rows left), from the
    shards handed out (handed(rows)) and the rows per second of those finished (observe(rows, seconds)). Pure: the
    caller measures the time (jobs.plan.AdaptivePlan, with a clock a test can replace)."""

    def __init__(self, per_row: int = 2, workers: int = 1):
        self.per_row = max(1, per_row)
        self.workers = max(1, workers)
        self.recent: deque[tuple[int, float]] = deque(maxlen=RECENT)
        self.largest = 0

    def rows_of(self, seconds: float, rate: float | None = None) -> int:
        """Rows of `seconds` of one worker's work at `rate` rows/s (default: the expected rate)."""
        rate = EXPECTED_SENTENCES_PER_S / self.per_row if rate is None else rate
        return max(1, int(seconds * rate))

    def rate(self) -> float | None:
        """Rows per second of one worker over the last RECENT finished shards; None before any finished."""
        seconds = sum(s for _, s in self.recent)
        return sum(r for r, _ in self.recent) / seconds if self.recent and seconds > 0 else None

    def observe(self, rows: int, seconds: float) -> None:
        if rows > 0 and seconds > 0:
            self.recent.append((rows, seconds))

    def handed(self, rows: int) -> None:
        self.largest = max(self.largest, rows)

    def next_rows(self, rows_left: int) -> int:
        """Rows of the next shard, where rows_left rows are not yet handed out (at least 1, at most rows_left)."""
        first = self.rows_of(FIRST_SHARD_S)
        rate = self.rate()
        if rate is None:
            rows, least = first, 1
        else:
            rows = min(self.rows_of(TARGET_SHARD_S, rate), int(GROWTH * max(self.largest, first)))
            least = self.rows_of(MIN_SHARD_S, rate)
        rows = min(rows, max(1, MAX_SHARD_SENTENCES // self.per_row))
        rows = min(rows, max(math.ceil(rows_left / self.workers), least))     # the last shards: a share each
        return max(1, min(rows, rows_left))


# A local worker's memory budget: docs/jobs.md's one budget (Memory: 1 GB per Ray worker actor at peak, measured
# 0.55-0.89 GB over a million distinct sentences; the driver's 0.75 GB fits within it).
WORKER_BYTES = 2**30


def machine_cpus() -> int:
    """The CPUs this process may run on (its affinity, else the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def available_memory() -> int | None:
    """Bytes of memory available to new processes now (Linux's MemAvailable); None where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def local_workers(requested: int, cpus: int, available: int | None) -> int:
    """How many workers a local Ray instance runs for `requested`: at most one per CPU and one per WORKER_BYTES of
    available memory (unknown: no memory bound), at least one. More would only share the CPUs and push the
    machine into swap: each loads its own spaCy pipeline (issue 43: --workers 9999 started 6-15 actors on 2 CPUs)."""
    by_memory = requested if available is None else available // WORKER_BYTES
    return max(1, min(requested, cpus, by_memory))


def bound_notice(kind: str, requested: int, workers: int, cpus: int, available: int | None) -> str:
    """The one line saying that a local job runs on fewer workers than asked for, and why."""
    memory = "" if available is None else \
        f", {available / 2**30:.1f} GB of memory available at {WORKER_BYTES / 2**30:g} GB a worker"
    notice = Wording("{workers} {requested} is more than this machine runs at once ({cpus} CPU{s}{memory}), so the job "
                     "runs on {n} worker{ns}", requested=requested, cpus=cpus, s="s" * (cpus != 1), memory=memory,
                     n=workers, ns="s" * (workers != 1))
    return f"peet-fast {kind}: {said(notice)}"
