"""Sharded, resumable jobs (featurize, score): the unit of work is a shard of rows, written atomically as one Parquet
file and recorded in DIR/_manifest.json. A rerun of an interrupted job with the same inputs and settings reuses every
completed shard and produces identical output. Nothing here knows where shards run: run_job receives a Runner from its
caller (jobs.local.LocalRunner in this process, jobs.ray.RayRunner on an actor pool), and both run the same
run_shard().

The parts live in modules of their own and are re-exported here under the names they always had: jobs.errors
(JobOptionError, WorkerError, JobInterrupted), jobs.spec (JobSpec), jobs.worker (WorkerState, run_shard),
jobs.manifest (Manifest); this module runs a job: run_job."""
from __future__ import annotations

import dataclasses
import os
import sys
from typing import Callable, Protocol, Sequence

from peet_fast.io import InputError
from peet_fast.jobs.errors import (  # noqa: F401
    JobInterrupted,
    JobOptionError,
    JobStopped,
    WorkerError,
    check_at_least_one,
)
from peet_fast.jobs.layout import JobLock, remove_temp_files
from peet_fast.jobs.manifest import Manifest
from peet_fast.jobs.plan import AdaptivePlan
from peet_fast.jobs.sizing import (  # noqa: F401 -- DEFAULT_SHARD_ROWS re-exported
    DEFAULT_SHARD_ROWS,
    recorded_shard_rows,
    small_job_runner,
    texts_per_row,
)
from peet_fast.jobs.sources import Shard, plan
from peet_fast.jobs.spec import SETTING_NAMES, JobSpec, setting_differences  # noqa: F401 -- re-exported
from peet_fast.jobs.worker import RowMeter, WorkerState, run_shard  # noqa: F401 -- re-exported


class Runner(Protocol):
    """Where a job's shards run: this process (jobs.local.LocalRunner) or a Ray actor pool (jobs.ray.RayRunner)."""

    distributed: bool     # True: shards run in other processes (their output must go to a directory)

    def run(self, spec: JobSpec, shards: Sequence[Shard], out_dir: str, on_done: Callable[[dict], None]) -> None:
        """Compute these shards of the job (run_shard) into out_dir, calling on_done with each one's manifest entry
        as it finishes (in any order), and, where on_done has a `rows` attribute, on_done.rows(shard index, rows of
        it done) while a shard runs (every second or two: WorkerState.on_rows)."""

    def start(self, spec: JobSpec, out_dir: str, shards: int) -> None:
        """Get ready for a job of this many shards (start workers) without waiting: called by run_job as soon as
        the job's settings are final, before it verifies an earlier run's shards."""

    def close(self) -> None:
        """Release what start or run took, however the job ended (called by run_job)."""


def run_job(spec: JobSpec, out_dir: str, runner: Runner,
            progress: Callable[[int, int], None] | None = None) -> Manifest:
    """Plan the shards (of spec.shard_rows rows; where it is None, cut as the job runs, sized from its measured rate:
    jobs.plan, jobs.sizing; a small job for a local Ray runner runs in this process instead), skip those an earlier
    run completed, compute the rest with runner, and
    return the manifest. progress, if given, sees progress(rows done, total rows) once the shards are planned, while
    shards run (rows of finished shards plus those done in running ones) and after each shard; its describe(text)
    method, where it has one, hears the number of shards. A rerun says on stderr how many shards it reused, or that
    the job is already complete (then no runner is started: no Ray for nothing to do). While it runs,
    DIR/_lock stops a second job on the directory. However the run ends (an error, SIGINT or SIGTERM as
    KeyboardInterrupt), the finished shards are recorded and temporary files removed; an interruption is raised as
    JobInterrupted. A directory this run created is removed again when it ends before any shard finished (nothing
    to resume, no output left behind)."""
    check_at_least_one(shard_rows=spec.shard_rows)
    recorded = recorded_shard_rows(spec, out_dir) if spec.shard_rows is None else None
    if recorded is not None:                   # a directory of an earlier version, sized up front: resumed so
        spec = dataclasses.replace(spec, shard_rows=recorded)
    if spec.shard_rows is not None:
        shards, total = plan(spec.source, spec.shard_rows)
        runner = small_job_runner(spec, runner, total)
    else:                                      # cut as the job runs, sized from its measured rate (jobs.sizing)
        shards = AdaptivePlan(spec.source, texts_per_row(spec))
        total = shards.total
        runner = small_job_runner(spec, runner, total)
        shards.sizer.workers = max(1, getattr(runner, "workers", 1))    # (a cluster's: known once it is joined)
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise InputError(out_dir, "is not a directory")
    created = not os.path.exists(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    lock = JobLock(out_dir)
    lock.acquire()
    manifest = None
    try:
        manifest = Manifest(out_dir, spec, shards, total)
        previous = manifest.check_directory()
        maybe_complete = _recorded_complete(manifest, *previous[:2])
        if not maybe_complete:
            runner.start(spec, out_dir, len(shards))     # Ray's actors warm up while this process verifies
            if manifest.plan is not None:
                manifest.plan.sizer.workers = max(1, getattr(runner, "workers", 1))
        manifest.verify_previous(*previous)
        remove_temp_files(out_dir)            # left by a run that was killed (we hold the lock)
        manifest.write()
        _say_reused(manifest, out_dir)
        if maybe_complete and not manifest.complete():
            runner.start(spec, out_dir, manifest.n_shards - len(manifest.done))    # a recorded shard did not verify
        _run_shards(manifest, runner, progress)
        return manifest
    except BaseException:
        if created and (manifest is None or not manifest.done):
            import shutil

            lock.release()
            shutil.rmtree(out_dir, ignore_errors=True)
        raise
    finally:
        runner.close()
        lock.release()


def _recorded_complete(manifest: Manifest, parts: dict[int, str], recorded: dict[int, dict]) -> bool:
    """Whether the old manifest lists every planned shard of this job with its part file present (cheap: nothing
    read but the listing): then the rerun most likely has nothing to compute, and starts no runner unless the
    verification finds a shard missing."""
    if manifest.plan is not None:
        return all(recorded[i].get("file") == parts.get(i) for i in recorded) and manifest.plan.covered(
            recorded.values())
    return bool(manifest.shards) and all(
        index in recorded and recorded[index].get("file") == parts.get(index) and manifest._planned(recorded[index])
        for index in manifest.shards)


def _say_reused(manifest: Manifest, out_dir: str) -> None:
    """One line on stderr when a rerun keeps shards of an earlier run: how many it reused, or that it is complete."""
    done, n = len(manifest.done), manifest.n_shards
    if not done:
        return
    what = manifest.spec.kind
    if manifest.plan is not None:
        if manifest.complete():
            print(f"peet-fast {what}: {out_dir}: the job is already complete ({done} shard{'s' * (done != 1)}); "
                  f"nothing to compute", file=sys.stderr)
        else:
            print(f"peet-fast {what}: {out_dir}: {done} shard{'s' * (done != 1)} already done "
                  f"({manifest.rows_done():,} of {manifest.total:,} rows), reused", file=sys.stderr)
        return
    if done == n:
        print(f"peet-fast {what}: {out_dir}: the job is already complete ({n} of {n} shards); nothing to compute",
              file=sys.stderr)
    else:
        print(f"peet-fast {what}: {out_dir}: {done} of {n} shards already done, reused", file=sys.stderr)


def _run_shards(manifest: Manifest, runner: Runner, progress: Callable[[int, int], None] | None) -> None:
    adaptive = manifest.plan
    todo = adaptive if adaptive is not None else [s for s in manifest.shards.values() if s.index not in manifest.done]
    total = manifest.total
    done_rows = manifest.rows_done()
    running: dict[int, int] = {}      # rows done so far in each running shard
    shown = done_rows

    def show() -> None:
        nonlocal shown
        shown = max(shown, done_rows + sum(running.values()))     # a retried shard starts again: never back
        if progress is not None:
            progress(shown, total)

    def finished(entry: dict) -> None:
        nonlocal done_rows
        manifest.add(entry)
        if adaptive is not None:
            adaptive.finished(entry)            # the sizer learns this run's rate
        running.pop(entry["index"], None)
        done_rows += entry["stop"] - entry["start"]
        show()

    def rows(index: int, n: int) -> None:
        shard = manifest.shards.get(index)
        if shard is None or index in manifest.done:
            return
        running[index] = max(0, min(n, shard.stop - shard.start))
        show()

    finished.rows = rows                      # type: ignore[attr-defined]   (see Runner.run)

    if progress is not None:
        if hasattr(progress, "describe"):
            n = manifest.n_shards
            where = getattr(runner, "where", None)          # a cluster's: how many workers, on which cluster
            shards = "shards sized as it runs" if adaptive is not None else f"{n} shard{'s' * (n != 1)}"
            progress.describe(f"{where}; {shards}" if where else shards)
        progress(done_rows, total)

    if not todo:
        return
    try:
        runner.run(manifest.spec, todo, manifest.out_dir, finished)
    except BaseException as exc:
        try:
            manifest.record_finished()
            manifest.write()
        except (OSError, InputError):
            pass                              # (a full disk): the rerun recovers them from the part files
        finally:
            remove_temp_files(manifest.out_dir)
        if isinstance(exc, JobStopped):
            exc.kept(len(manifest.done))          # its line says how many shards the rerun will reuse
        if isinstance(exc, KeyboardInterrupt) and not isinstance(exc, JobInterrupted):
            raise JobInterrupted(len(manifest.done), None if adaptive is not None else manifest.n_shards) from exc
        raise
