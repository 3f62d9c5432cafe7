"""RayRunner runs a job's shards on Ray actors. jobs/ray*.py are the only modules that import Ray: this one (the
runner, its actor class), jobs.raystart (starting and stopping the instance), jobs.raypool (the actors' side of the
dispatch), jobs.raylog (Ray's known noise); jobs.raywatch (the local instance's watchdog) never imports it.

Each actor loads the spaCy pipeline and the model once (jobs.worker.WorkerState) and computes the shards it is handed
with jobs.worker.run_shard, writing each shard's Parquet file atomically into the output directory (a shared
filesystem on a multi-node cluster). A shard travels as its rows and byte offsets, never the text itself. The driver
keeps one shard in flight per actor, hands an actor the next shard as soon as it returns one, and records each finished
shard in the manifest as it comes back, so an interrupted run resumes where it stopped. An actor that dies (a killed
worker, a lost node) is not restarted by Ray (a restart waits for ever where the lost node took the last free CPU):
jobs.raypool hands its shard to the first free actor and asks for a new actor in its place, and stops a cluster job
whose actors are all gone with no replacement within a bounded wait (JobStopped, exit 2, finished shards kept); shard
output is deterministic, so a retried shard is identical. A local instance that does not start leaves the job to the
driver (start_failed: one notice, the same output). The actors are created as soon as the job's settings are final (RayRunner.start, called by run_job), so
that their start and spaCy load overlap with the driver's own work, and killed when the job ends (close).

Plain actors, not a Ray Data actor pool (which this module used until the parse-cache issue): a shard is already a
self-contained unit that reads its own input and writes its own file, so Ray Data's blocks, operators and streaming
executor only added a fixed cost -- on the 2-core machine a 10,000-pair job on 2 workers took 16.5 s (30.0 CPU-s in
the workers) through Ray Data and 12.7 s (24.2 CPU-s, the work itself) with plain actors; see
benchmarks/scaling.py -- and Ray Data creates its actors only once the dataset runs, after all of the driver's
planning.

Actors import the driver's peet_fast, whatever the working directory: Ray puts the driver's working directory (and its
script's directory) first on every worker's sys.path, so a run started from a source checkout would import the
checkout's uncompiled sources. On a cluster, the job's runtime_env therefore gives the workers an empty working
directory of their own (Ray then adds neither). A local instance gets no runtime_env (it costs ~1.7 s at ray.init and
~0.9 s at each actor's start on 2 cores: Ray's runtime-env agent prepares every worker): ray.init runs from an empty
directory of the user's (jobs.raystart._empty_dir), which is what Ray puts on the workers' sys.path, and with the
directory the driver imported peet_fast from first on PYTHONPATH where it is not a site directory (a checkout,
PYTHONPATH); Ray's processes, and so the workers, inherit that environment (jobs.raystart._started_here). Each actor
then changes to the driver's working directory, so that relative input paths read, and name, the same files as in
one process.

Failures come back as the driver would see them in one process: an actor catches the exception of its constructor or
of a shard and returns it (with its traceback, for --debug) instead of raising it through Ray, so that no retry
hides it and the driver re-raises the original exception (InputError, OSError, ...). An actor that dies before any of
our code runs (its import fails) fails the job at once (no replacement actors), as a WorkerError of one line.

Local: `--workers N` starts a local Ray instance with N CPUs (at most one per CPU and per 1 GB of memory available:
jobs.sizing.local_workers). Cluster: `--ray-address auto` (inside a Ray cluster: `ray submit`, `ray job submit --
peet-fast ...`) or `--ray-address ray://HOST:PORT` joins it, with one actor per CPU the cluster has when the job
starts, or `--workers` actors (one CPU each), and watches its head (jobs.rayhead): a lost head stops the job in one
line within seconds. Under `ray job submit` the job's own runtime_env applies."""
from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Callable, Sequence

from peet_fast.jobs.errors import WorkerError, Wording, ray_reason, said
from peet_fast.jobs.raylog import errors_to_stderr, stderr_without_known_noise, stop_error_listener
# jobs.raypool: the actors' side of the dispatch; jobs.raystart: Ray's start and stop. Their public names (and those
# the tests use) stay importable from here, as before the split.
from peet_fast.jobs.raypool import (  # noqa: F401 -- re-exported
    POLL_S,
    RemoteTraceback,
    _ActorPool,
    _signals_kept,
    exception_from_record,
    exception_record,
    worker_failure,
)
from peet_fast.jobs.raystart import (  # noqa: F401 -- re-exported
    _LOCAL_INSTANCE,
    SHUTDOWN_WAIT,
    _abandon_cluster,
    _can_start_in_background,
    _empty_dir,
    _node_id,
    _ours,
    _RayStarter,
    _stop_quietly,
    init_ray,
    no_cluster,
    unreachable,
)
from peet_fast.jobs.plan import stack
from peet_fast.jobs.shards import JobSpec, WorkerState, run_shard
from peet_fast.jobs.sources import Shard

_ENTRY_KEYS = ("index", "start", "stop", "file", "rows", "sha256", "input")


def _count(n: int, unit: str) -> str:
    return f"{n:,} {unit}{'s' * (n != 1)}"


def _gcs_address(ray) -> str | None:
    """The GCS address (HOST:PORT) of the cluster this process is connected to; None where Ray does not say (a
    ray:// client)."""
    with contextlib.suppress(Exception):
        address = ray.get_runtime_context().gcs_address
        return address if isinstance(address, str) and address else None
    return None


class _ShardActor:
    """A Ray actor: loads the pipeline and the model once (WorkerState), then computes the shards it is given. Every
    method but rows returns a dict: {"entry": the shard's manifest entry}, {} (ready), or {"error":
    exception_record(...)} for what the constructor or the shard raised. A threaded actor of two threads, so that
    rows() answers while a shard runs (the driver calls only one shard at a time)."""

    def __init__(self, spec: JobSpec, out_dir: str, cwd: str):
        self.out_dir = out_dir
        self.failure: dict | None = None
        self.progress: tuple[int, int] | None = None     # (shard index, rows of it done) of the running shard
        with contextlib.suppress(OSError):
            os.chdir(cwd)          # absent on another node: relative inputs are then not found, and say so
        try:
            self.state = WorkerState(spec)
            self.state.on_rows = self._rows_done
        except Exception as exc:   # noqa: BLE001 -- every failure goes back to the driver, which raises it
            self.failure = {"error": exception_record(exc)}

    def _rows_done(self, index: int, rows: int) -> None:
        self.progress = (index, rows)

    def rows(self) -> tuple[int, int] | None:
        """(shard index, rows of it done) of the shard running or last run, None before the first report."""
        return self.progress

    def ready(self) -> dict:
        """{"node": (its node's IP address, its node id)} once the pipeline is loaded, or the failure of the
        constructor."""
        if self.failure is not None:
            return self.failure
        import ray

        return {"node": (ray.util.get_node_ip_address(), ray.get_runtime_context().get_node_id())}

    def shard(self, shard: Shard) -> dict:
        if self.failure is not None:
            return self.failure
        try:
            entry = run_shard(self.state, shard, self.out_dir)
        except Exception as exc:   # noqa: BLE001
            return {"error": exception_record(exc)}
        return {"entry": {key: entry[key] for key in _ENTRY_KEYS}}

class RayRunner:
    """Runs shards with `workers` workers: on a new local Ray instance of that many CPUs, this process (the driver) is
    one of them and Ray's actors the others; on the cluster at address ('auto', ray://HOST:PORT), or on a Ray
    instance its caller started, `workers` actors. run_job runs a job of fewer than min_sentences sentences to parse
    in its own process instead (jobs.sizing; 0: never).

    run_job calls start() as soon as the job's settings are final. On a new local instance, start() begins Ray's
    start in a thread (_RayStarter) and loads the driver's own pipeline meanwhile, and run() computes shards in this
    process at once: the first rows are done within seconds, while Ray and its actors (each loads the spaCy pipeline)
    are still starting. Otherwise start() starts Ray and the actors without waiting for them, so that their warm-up
    overlaps with what the driver still does (the manifest, verifying an earlier run's shards). run() hands each
    worker one shard at a time as it becomes free, the next as soon as one finishes (no shard waits behind a slow
    worker; the last shards finish within one shard's time of each other); close() stops the actors however the job
    ended."""

    distributed = True
    actor_class = _ShardActor

    def __init__(self, workers: int | None, address: str | None = None, min_sentences: int = 0):
        self.per_cpu = workers is None              # on a cluster: one actor per CPU it has when the job starts
        self.workers = 1 if workers is None else workers
        self.address = address
        self.min_sentences = min_sentences
        self._actors: list = []
        self._started_for: tuple | None = None
        self._stderr: contextlib.ExitStack | None = None
        self._own: WorkerState | None = None        # the driver's own worker (a new local instance)
        self._starter: _RayStarter | None = None    # Ray's start in the background, while it runs
        self._actor_limit = workers
        self._args: tuple = ()                      # the actors' constructor arguments (replacements get the same)
        self._kind = "job"                          # the command (spec.kind) that names our lines
        self.ray_start_s: float | None = None       # how long the last start of Ray (ray.init) took
        self.ray_failed: str | None = None          # why the local instance did not start (the driver went alone)
        self.lost = 0                               # actors lost (a killed process, a lost node) in the last run
        self._connected = False                     # this runner connected this process to Ray (not its caller)
        self.where: str | None = None               # on a cluster: how many workers, where (the progress label)
        self._head = None                           # on a cluster: the watch on its head (jobs.rayhead.HeadWatch)

    @staticmethod
    def in_process():
        """The runner of a job too small for Ray (jobs.sizing): this process."""
        from peet_fast.jobs.local import LocalRunner

        return LocalRunner()

    def start(self, spec: JobSpec, out_dir: str, shards: int) -> None:
        """Get min(workers, shards) workers ready for spec without waiting for Ray's actors: they load their
        pipelines while the driver goes on (see the class)."""
        key = (spec.signature(), os.path.abspath(out_dir))
        wanted = max(1, min(self.workers, shards))
        if self._started_for == key and (self._starter is not None or
                                         len(self._actors) + (self._own is not None) >= wanted):
            return
        self._end_start()
        self._kill_actors()
        self._own = None
        ray = sys.modules.get("ray")        # not imported here unless it is (Ray's import takes a second)
        args = (spec, os.path.abspath(out_dir), os.getcwd())
        # a local instance of this runner's own (not one its caller started): the driver is one of the workers
        own = self.address is None and (ray is None or not ray.is_initialized() or _ours(ray))
        if own:
            wanted = max(1, min(self._bound_to_machine(spec.kind), shards))
        self._actor_limit = wanted - 1 if own else wanted
        self._started_for = key
        self._kind = spec.kind
        self._args = args
        if own and wanted == 1:
            pass                                  # one shard: the driver computes it, no Ray
        elif own and _can_start_in_background():
            from peet_fast.jobs.raywatch import start_watchdog

            # the driver's pipeline first: Ray's start shares this process's interpreter lock and, begun first,
            # puts the first rows ~1 s later (measured: first movement 3.1-4.7 s this way, 5.1-5.9 s the other)
            self._own = WorkerState(spec)
            start_watchdog()      # before any of Ray's processes (init_ray keeps this one)
            self._starter = _RayStarter(self, args)
            self._starter.start()
        else:
            try:
                self._init_ray(own)     # first: the processes it starts keep the real stderr
                if not own:
                    self._size_to_cluster(shards)
                self._quiet_output()
                self._create_actors(args)
            except Exception as exc:  # noqa: BLE001 -- any failure of Ray's start: our own instance is not needed
                if not own:
                    raise
                self.start_failed(exc)
        if own and self._own is None:
            self._own = WorkerState(spec)

    def _init_ray(self, own: bool) -> None:
        """init_ray, timed (ray_start_s); own: the instance is this runner's own, recorded as such (_ours)."""
        import ray

        t = time.perf_counter()
        self._connected = self._connected or not ray.is_initialized()
        init_ray(self.workers, self.address)
        self.ray_start_s = time.perf_counter() - t
        if own:
            _LOCAL_INSTANCE[:] = [_node_id(ray)]

    def _bound_to_machine(self, kind: str) -> int:
        """A local instance's workers: at most one per CPU and per 1 GB of available memory (jobs.sizing), said
        in one notice where that is fewer than asked for."""
        from peet_fast.jobs.sizing import available_memory, bound_notice, local_workers, machine_cpus

        cpus, available = machine_cpus(), available_memory()
        workers = local_workers(self.workers, cpus, available)
        if workers < self.workers:
            print(bound_notice(kind, self.workers, workers, cpus, available), file=sys.stderr, flush=True)
            self.workers = workers
        return workers

    def _size_to_cluster(self, shards: int) -> None:
        """On a cluster (joined, or its caller's): one actor per CPU it has now (per_cpu), or `workers`; the words
        for the progress label (where); the watch on its head."""
        import ray

        from peet_fast.jobs.rayhead import HeadWatch

        cpus = int(ray.cluster_resources().get("CPU", 0))
        address = _gcs_address(ray)
        at = f" at {address}" if address else ""
        if self.per_cpu:
            self.workers = max(1, cpus)
            self.where = f"{_count(self.workers, 'worker')}: one per CPU of the cluster{at}"
        else:
            self.where = f"{_count(self.workers, 'worker')} on the cluster{at} ({_count(cpus, 'CPU')})"
        self._actor_limit = max(1, min(self.workers, shards))
        if address and self._head is None:
            self._head = HeadWatch(address, on_silent=stop_error_listener)

    def head_lost(self, confirm: bool = False) -> None:
        """Raise JobStopped where the watch on the cluster's head has seen it lost (jobs.rayhead); confirm: where
        it does not answer now (an actor was just lost), wait for it up to the watch's time before raising."""
        head = self._head
        if head is not None and (head.lost is not None or confirm and not head.answers()):
            from peet_fast.jobs.errors import JobStopped

            raise JobStopped(f"the Ray cluster's head at {head.address} was lost (its GCS has not answered for "
                             f"{head.lost_after:g} s: {head.lost}); its workers are gone with it")

    def start_failed(self, exc: BaseException) -> None:
        """Ray's start of this runner's own local instance failed or timed out (exc): the driver computes the job
        alone, after one notice on stderr saying why (ray_failed)."""
        if isinstance(exc, OSError) and exc.strerror:
            why = f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
        else:
            why = ray_reason(str(exc)) if str(exc).strip() else type(exc).__name__
        self.ray_failed = why
        self._actors = []
        self._actor_limit = 0
        notice = Wording("Ray did not start ({why}), so this process computes the job alone (the same output as "
                         "{workers} 1)", why=why)
        print(f"peet-fast {self._kind}: {said(notice)}", file=sys.stderr, flush=True)

    def _quiet_output(self) -> None:
        if self._stderr is None:
            self._stderr = contextlib.ExitStack()
            self._stderr.enter_context(stderr_without_known_noise())    # Ray's known false alarm (jobs.raylog)
            # Ray's driver prints the errors it hears of (a worker died, a task is retried) to sys.stdout, which may
            # be the user's output piped to a file: to stderr while the job runs (nothing of ours prints meanwhile)
            self._stderr.enter_context(contextlib.redirect_stdout(sys.stderr))
            errors_to_stderr()      # (a Ray its caller started too): a lost node's dumps in Ray's logs only

    def _create_actors(self, args: tuple) -> None:
        import ray

        # replaced where a worker dies (a killed process, a lost node), its shard handed to another: shard output is
        # deterministic, so a retried shard is identical; a constructor that raises is not retried (jobs.raypool)
        # two threads: rows() answers while a shard runs (progress inside a shard); one shard at a time per actor
        self._actors = [self.new_actor() for _ in range(max(0, self._actor_limit))]

    def new_actor(self):
        """A new actor of actor_class with this job's arguments (a replacement for a lost one, jobs.raypool). Ray never
        restarts it, nor retries its calls: a restart waits for a CPU that a lost node took with it, for ever; the
        driver hands a lost actor's shard to a live actor and replaces it itself, within a bounded wait
        (raypool.REPLACE_WAIT_S)."""
        import ray

        actor = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0, max_concurrency=2)(self.actor_class)
        return actor.remote(*self._args)

    def _end_start(self, wait: bool = True) -> None:
        """A background start of Ray creates no actors once it is over; wait for it to be over, unless this process
        is a command line that ends with the job (jobs.raywatch.watched: the instance's watchdog stops whatever
        the start leaves)."""
        starter = self._starter
        if starter is not None:
            with starter.lock:
                starter.cancelled = True
            if wait:
                starter.ready.wait()
            self._starter = None

    def close(self) -> None:
        """Stop the actors (their CPUs are free for the next job) and restore stderr."""
        from peet_fast.jobs.raywatch import watched

        self._end_start(wait=not watched())
        self._kill_actors()
        self._own = None
        self._started_for = None
        if self._head is not None:
            self._head.stop()
            self._head = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _kill_actors(self, keep: int = 0) -> None:
        """Stop the actors past the first `keep` (all of them by default)."""
        if self._head is not None and self._head.lost is not None:
            self._actors = []          # the head is gone: Ray can no longer kill them (it would wait for its GCS)
        if len(self._actors) > keep:
            import ray

            for a in self._actors[keep:]:
                with contextlib.suppress(Exception):
                    ray.kill(a, no_restart=True)
        del self._actors[keep:]
        if not self._actors and self._own is None:
            self._started_for = None

    def run(self, spec: JobSpec, shards: Sequence[Shard], out_dir: str, on_done: Callable[[dict], None]) -> None:
        self.start(spec, out_dir, len(shards))
        keep = len(shards) - (self._own is not None)      # a resumed job with fewer shards left than workers
        starter = self._starter
        with starter.lock if starter is not None else contextlib.nullcontext():
            self._actor_limit = min(self._actor_limit, keep)
            self._kill_actors(keep=keep)
        try:
            self._dispatch(shards, out_dir, on_done)
        except BaseException:
            # an interruption or a failure: stop the Ray this runner started or joined (its actors with it) at once
            # and quietly; the driver then records what finished. A Ray instance its caller connected to stays
            # (close() kills the job's actors there)
            if self._starter is not None:
                with self._starter.lock:
                    self._starter.cancelled = True
            if self._head is not None and self._head.lost is not None:
                _abandon_cluster()            # the head is gone: Ray's shutdown would wait for its GCS
                self._actors = []
            elif self._connected and "ray" in sys.modules:     # (a one-shard job of the driver's own: no Ray)
                _stop_quietly()
                self._actors = []
            raise
        finally:
            self.close()

    def driver_takes_next(self, taken: int, handed: int) -> bool:
        """Whether the driver's own worker takes the next shard now, having taken `taken` shards while the actors
        were handed `handed`: always. A hook: a subclass may hold the driver back (a test holds it until an actor has
        a shard, so that what it checks does not depend on how fast Ray starts on a busy machine); meanwhile the
        driver only serves the actors, and takes shards again once they can no longer come (Ray failed to start)."""
        return True

    def _dispatch(self, shards: Sequence[Shard], out_dir: str, on_done: Callable[[dict], None]) -> None:
        """Each worker gets a shard once it is ready and the next one whenever it finishes one: the driver's own
        worker (where there is one) computes its shards here, and between its parse batches hands the actors theirs;
        every POLL_S seconds each busy actor is asked for its rows done (on_done.rows, where on_done has it:
        Runner.run)."""
        on_rows = getattr(on_done, "rows", None)
        pool = _ActorPool(self, out_dir, on_done, on_rows)
        self.lost = 0
        todo = pool.todo = stack(shards)        # a list popped from the end, or shards cut as they are popped
        own = self._own
        with _signals_kept() as raise_kept:
            pool.raise_kept = raise_kept
            if own is not None:
                def rows(index: int, n: int) -> None:
                    if on_rows is not None:
                        on_rows(index, n)
                    pool.step(block=False)

                own.on_rows = rows
            taken = 0
            # the driver (where it computes) takes the next shard unless driver_takes_next holds it back while actors
            # may still come; a shard an actor lost comes back to todo, for whoever is free first
            while todo or pool.busy():
                if todo and own is not None and (self.driver_takes_next(taken, pool.handed)
                                                 or not pool.may_have_actors()):
                    shard = todo.pop()
                    taken += 1
                    on_done(run_shard(own, shard, out_dir))
                    pool.step(block=False)
                elif todo and not pool.busy() and not pool.may_have_actors():
                    raise WorkerError("no Ray actor started, and shards are left")
                else:
                    pool.step(block=True)
            raise_kept()
