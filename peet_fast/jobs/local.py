"""The in-process runner: a job's shards computed one after another in this process, no Ray."""
from __future__ import annotations

from typing import Callable, Sequence

from peet_fast.jobs.shards import JobSpec, WorkerState, run_shard
from peet_fast.jobs.sources import Shard


class LocalRunner:
    """Loads the pipeline and the model once (WorkerState), then computes the shards in order."""

    distributed = False
    workers = 1

    def start(self, spec: JobSpec, out_dir: str, shards: int) -> None:
        """Nothing to start: the pipeline loads in run."""

    def close(self) -> None:
        """Nothing to release."""

    def run(self, spec: JobSpec, shards: Sequence[Shard], out_dir: str, on_done: Callable[[dict], None]) -> None:
        state = WorkerState(spec)
        state.on_rows = getattr(on_done, "rows", None)      # progress inside a shard (Runner.run)
        for shard in shards:
            on_done(run_shard(state, shard, out_dir))
