"""The only module that imports Ray: RayRunner runs a job's shards on a Ray Data actor pool.

The shards still to do become a Ray Dataset (one row per shard: its rows and byte offsets, never the text itself);
`map_batches` sends them to a pool of actors, each of which loads the spaCy pipeline and the model once
(jobs.shards.WorkerState) and computes shards with jobs.shards.run_shard, writing each shard's Parquet file atomically
into the output directory (a shared filesystem on a multi-node cluster). The driver records each finished shard in the
manifest as results stream back, so an interrupted run resumes where it stopped. Actors that die (a killed worker, a
lost node) are restarted and their shard retried; shard output is deterministic, so a retried shard is identical.

Local: `--workers N` starts a local Ray instance with N CPUs. Cluster: `--ray-address auto` (inside a Ray cluster:
`ray submit`, `ray job submit -- peet-fast ...`) or `--ray-address ray://HOST:PORT` joins it, and `--workers` is the
number of actors (one CPU each)."""
from __future__ import annotations

import logging
import os
from typing import Callable, Sequence

from peet_fast.jobs.shards import JobSpec, WorkerState, run_shard
from peet_fast.jobs.sources import Shard


class _ShardWorker:
    """A Ray Data actor: loads the pipeline once, then computes shards."""

    def __init__(self, spec: JobSpec, out_dir: str):
        self.state = WorkerState(spec)
        self.out_dir = out_dir

    def __call__(self, batch: dict) -> dict:
        entries = []
        for k in range(len(batch["index"])):
            shard = Shard(int(batch["index"][k]), int(batch["start"][k]), int(batch["stop"][k]),
                          tuple(tuple(int(x) for x in pair) for pair in batch["offsets"][k]), str(batch["digest"][k]))
            entries.append(run_shard(self.state, shard, self.out_dir))
        return {key: [e[key] for e in entries] for key in ("index", "start", "stop", "file", "rows", "sha256", "input")}


def init_ray(workers: int, address: str | None) -> None:
    import ray

    if ray.is_initialized():
        return
    logging.getLogger("ray.data").setLevel(logging.ERROR)
    kwargs = {"ignore_reinit_error": True, "log_to_driver": False, "include_dashboard": False,
              "logging_level": logging.WARNING}
    if address:
        ray.init(address=address, **{k: v for k, v in kwargs.items() if k != "include_dashboard"})
    else:
        # "local": always a new local instance of N CPUs, never a cluster that happens to run on this machine
        ray.init(address="local", num_cpus=workers, **kwargs)


class RayRunner:
    """Runs shards on `workers` Ray actors: a new local Ray instance of that many CPUs, or the cluster at address
    ('auto', ray://HOST:PORT)."""

    distributed = True

    def __init__(self, workers: int, address: str | None = None):
        self.workers = workers
        self.address = address

    def run(self, spec: JobSpec, shards: Sequence[Shard], out_dir: str, on_done: Callable[[dict], None]) -> None:
        import ray
        from ray.data import ActorPoolStrategy, DataContext

        init_ray(self.workers, self.address)
        ctx = DataContext.get_current()
        ctx.execution_options.preserve_order = False
        ctx.enable_progress_bars = False
        ctx.max_errored_blocks = 0
        items = [{"index": s.index, "start": s.start, "stop": s.stop, "offsets": [list(o) for o in s.offsets],
                  "digest": s.digest} for s in shards]
        ds = ray.data.from_items(items, override_num_blocks=len(items))
        results = ds.map_batches(
            _ShardWorker, fn_constructor_kwargs={"spec": spec, "out_dir": os.path.abspath(out_dir)},
            batch_size=1, compute=ActorPoolStrategy(size=min(self.workers, len(items))), num_cpus=1,
            batch_format="numpy")
        # (Ray Data restarts dead actors and retries their tasks without limit by default: a killed worker's shard is
        # recomputed by its restarted actor.)
        for row in results.iter_rows():
            on_done({k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()})
