"""The in-process runner: a job's shards computed one after another in this process, no Ray."""
from __future__ import annotations

from typing import Callable, Sequence

from peet_fast.jobs.shards import JobSpec, WorkerState, run_shard
from peet_fast.jobs.sources import Shard


class LocalRunner:
    """Loads the pipeline and the model once (WorkerState), then computes the shards in order."""

    distributed = False
    workers = 1

    def run(self, spec: JobSpec, shards: Sequence[Shard], out_dir: str, on_done: Callable[[dict], None]) -> None:
        state = WorkerState(spec)
        for shard in shards:
            on_done(run_shard(state, shard, out_dir))
