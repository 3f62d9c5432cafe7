"""Sharded, resumable jobs and where their shards run.

    sources.py  plan shards over text files or a table of pairs without loading it; read one shard anywhere
    layout.py   a job directory on disk (part-*.parquet + _manifest.json), read back as one dataset
    spec.py     JobSpec: what determines a job's output (its signature); errors.py: the jobs' errors
    worker.py   WorkerState, run_shard: what one worker does, wherever it runs
    manifest.py DIR/_manifest.json: the finished shards, verified on a rerun
    shards.py   run_job(spec, out_dir, runner), the Runner protocol (and every name above, re-exported)
    local.py    LocalRunner: shards in this process
    ray.py      RayRunner: shards on Ray actors, one shard in flight per actor; raystart.py starts and stops Ray,
                raypool.py the actors' side, raylog.py Ray's noise, raywatch.py the watchdog, rayhead.py the watch
                on a cluster's head (only ray*.py import Ray; raywatch and rayhead do not)
    sizing.py   the shard size (one shard per worker on a small input) and the small-job threshold
    tasks.py    the library's long jobs, featurize() and score(): in process or sharded
    annotated.py  read_annotated: time-annotated pairs (train/explain --data) through the table reader, validated

The runner is chosen once, by runner_for(workers, ray_address), which validates both.

May import peet (the model and scoring its shards run), metrics, the languages and the ground floor; never evaluation, meta_eval, api or cli."""
from __future__ import annotations

import re

from peet_fast.jobs.layout import shard_paths
from peet_fast.jobs.local import LocalRunner
from peet_fast.jobs.ray import RayRunner
from peet_fast.jobs.shards import DEFAULT_SHARD_ROWS, JobOptionError, JobSpec, Runner, WorkerError, run_job
from peet_fast.jobs.sizing import ray_min_sentences
from peet_fast.jobs.sources import table_source, text_source

__all__ = ["DEFAULT_SHARD_ROWS", "JobOptionError", "JobSpec", "LocalRunner", "RayRunner", "Runner", "WorkerError",
           "run_job", "runner_for", "shard_paths", "table_source", "text_source"]

_RAY_ADDRESS = re.compile(r"auto|local|ray://[^\s/]+|[^\s/]+:[0-9]+")
_PORT = re.compile(r":([0-9]+)$")


def runner_for(workers: int | None = None, ray_address: str | None = None,
               small_jobs_in_process: bool = False) -> Runner:
    """This process for one worker (or None) and no cluster; otherwise `workers` Ray actors, on a new local Ray
    instance or on the cluster at ray_address ('auto' inside one, ray://HOST:PORT, or HOST:PORT); on a cluster,
    workers None is one actor per CPU the cluster has when the job starts. small_jobs_in_process: a local
    instance's job below jobs.sizing's threshold runs in this process instead (with a notice)."""
    if workers is not None and workers < 1:
        raise JobOptionError("workers", "must be at least 1")
    if ray_address is not None and not _RAY_ADDRESS.fullmatch(ray_address):
        raise JobOptionError("ray_address", f"must be 'auto', ray://HOST:PORT or HOST:PORT, not {ray_address!r}")
    port = _PORT.search(ray_address or "")
    if port is not None and not 0 < int(port.group(1)) < 65536:
        raise JobOptionError("ray_address", f"port {port.group(1)} is out of range (1-65535) in {ray_address!r}")
    if workers in (1, None) and ray_address is None:
        return LocalRunner()
    small = ray_min_sentences() if small_jobs_in_process and ray_address is None else 0
    return RayRunner(workers, ray_address, small)
