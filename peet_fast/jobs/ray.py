"""The only module that imports Ray: RayRunner runs a job's shards on a Ray Data actor pool.

The shards still to do become a Ray Dataset (one row per shard: its rows and byte offsets, never the text itself);
`map_batches` sends them to a pool of actors, each of which loads the spaCy pipeline and the model once
(jobs.shards.WorkerState) and computes shards with jobs.shards.run_shard, writing each shard's Parquet file atomically
into the output directory (a shared filesystem on a multi-node cluster). The driver records each finished shard in the
manifest as results stream back, so an interrupted run resumes where it stopped. Actors that die (a killed worker, a
lost node) are restarted and their shard retried; shard output is deterministic, so a retried shard is identical.

Actors import the driver's peet_fast, whatever the working directory: Ray puts the driver's working directory (and its
script's directory) first on every worker's sys.path, so a run started from a source checkout would import the
checkout's uncompiled sources. The job's runtime_env therefore gives the workers an empty working directory of their
own (Ray then adds neither), and on a local instance puts the directory the driver imported peet_fast from first on
their PYTHONPATH where it is not a site directory (a checkout, PYTHONPATH). Each actor then changes to the driver's
working directory, so that relative input paths read, and name, the same files as in one process.

Failures come back as the driver would see them in one process: an actor catches the exception of its constructor or
of a shard and returns it (with its traceback, for --debug) instead of raising it through Ray, so that no retry
hides it and the driver re-raises the original exception (InputError, OSError, ...). An actor that dies before any of
our code runs (its import fails) fails the job at once (no replacement actors), as a WorkerError of one line.

Local: `--workers N` starts a local Ray instance with N CPUs. Cluster: `--ray-address auto` (inside a Ray cluster:
`ray submit`, `ray job submit -- peet-fast ...`) or `--ray-address ray://HOST:PORT` joins it, and `--workers` is the
number of actors (one CPU each). Under `ray job submit` the job's own runtime_env applies."""
from __future__ import annotations

import contextlib
import importlib
import io
import json
import logging
import os
import re
import signal
import site
import tempfile
import threading
import traceback
from typing import Callable, Sequence

import peet_fast
from peet_fast.jobs.raylog import quiet_auth_notice, stderr_without_known_noise
from peet_fast.jobs.shards import JobSpec, WorkerError, WorkerState, run_shard
from peet_fast.jobs.sources import Shard

_ENTRY_KEYS = ("index", "start", "stop", "file", "rows", "sha256", "input")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a Ray actor (the __cause__ of the exception re-raised here)."""

    def __str__(self) -> str:
        return "\n" + self.args[0]


def exception_record(exc: BaseException) -> dict:
    """exc as JSON-able data for the driver (see exception_from_record): its class, args and attributes (an OSError:
    errno, strerror, filename) and its formatted traceback; only its class name and message where its data is not
    JSON."""
    rec = {"type": f"{type(exc).__module__}:{type(exc).__qualname__}", "args": list(exc.args),
           "attrs": dict(vars(exc)), "traceback": "".join(traceback.format_exception(exc))}
    if isinstance(exc, OSError):
        rec["os"] = [exc.errno, exc.strerror, exc.filename]
    try:
        json.dumps(rec)
    except (TypeError, ValueError):
        rec = {"type": None, "message": f"{type(exc).__name__}: {exc}", "traceback": rec["traceback"]}
    return rec


def exception_from_record(rec: dict) -> BaseException:
    """The exception exception_record described (a WorkerError where its class is not an importable Exception), its
    remote traceback as __cause__."""
    cls = None
    if rec["type"] is not None:
        module, _, qualname = rec["type"].partition(":")
        with contextlib.suppress(ImportError, AttributeError):
            cls = importlib.import_module(module)
            for part in qualname.split("."):
                cls = getattr(cls, part)
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        exc: BaseException = WorkerError(rec.get("message") or f"{rec['type']}: {rec.get('args')}")
    elif "os" in rec:
        exc = cls(*rec["os"])
    else:
        exc = cls.__new__(cls)
        exc.args = tuple(rec["args"])
        exc.__dict__.update(rec["attrs"])
    exc.__cause__ = RemoteTraceback(rec["traceback"])
    return exc


class _ShardWorker:
    """A Ray Data actor: loads the pipeline once, then computes shards. Returns for each shard a JSON `result`: its
    manifest entry, or the exception that the constructor or the shard raised (exception_record)."""

    def __init__(self, spec: JobSpec, out_dir: str, cwd: str):
        self.out_dir = out_dir
        self.failure: str | None = None
        with contextlib.suppress(OSError):
            os.chdir(cwd)          # absent on another node: relative inputs are then not found, and say so
        try:
            self.state = WorkerState(spec)
        except Exception as exc:   # noqa: BLE001 -- every failure goes back to the driver, which raises it
            self.failure = json.dumps({"error": exception_record(exc)})

    def __call__(self, batch: dict) -> dict:
        results = []
        for k in range(len(batch["index"])):
            if self.failure is not None:
                results.append(self.failure)
                continue
            shard = Shard(int(batch["index"][k]), int(batch["start"][k]), int(batch["stop"][k]),
                          tuple(tuple(int(x) for x in pair) for pair in batch["offsets"][k]), str(batch["digest"][k]))
            try:
                entry = run_shard(self.state, shard, self.out_dir)
            except Exception as exc:   # noqa: BLE001
                results.append(json.dumps({"error": exception_record(exc)}))
                continue
            results.append(json.dumps({"entry": {key: entry[key] for key in _ENTRY_KEYS}}))
        return {"result": results}


def _import_root() -> str:
    """The directory the driver imported peet_fast from (site-packages, a checkout, a PYTHONPATH entry)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(peet_fast.__file__)))


def _runtime_env(working_dir: str, local: bool) -> dict | None:
    """The job's runtime_env: an empty working_dir of the workers' own (so Ray does not put the driver's working
    directory first on their sys.path); on a local instance, the driver's import root first on their PYTHONPATH
    unless it is a site directory (where the workers find it anyway). None inside `ray job submit`, whose job has
    its own runtime_env."""
    if "RAY_JOB_CONFIG_JSON_ENV_VAR" in os.environ:
        return None
    env: dict = {"working_dir": working_dir}
    root = _import_root()
    sites = {os.path.abspath(p) for p in [*site.getsitepackages(), site.getusersitepackages()]}
    if local and root not in sites:
        inherited = [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        env["env_vars"] = {"PYTHONPATH": os.pathsep.join(dict.fromkeys([root, *inherited]))}
    return env


def init_ray(workers: int, address: str | None) -> None:
    import ray
    import ray.data  # noqa: F401 -- its import configures its loggers: before they are quieted here

    if ray.is_initialized():
        return
    logging.getLogger("ray.data").setLevel(logging.ERROR)
    logging.getLogger("ray._private.runtime_env").setLevel(logging.WARNING)
    quiet_auth_notice()
    kwargs = {"ignore_reinit_error": True, "log_to_driver": False, "include_dashboard": False,
              "logging_level": logging.WARNING}
    with tempfile.TemporaryDirectory(prefix="peet-fast-ray-") as empty:    # uploaded by ray.init: only needed here
        runtime_env = _runtime_env(empty, local=not address)
        if runtime_env is not None:
            kwargs["runtime_env"] = runtime_env
        sigterm = signal.getsignal(signal.SIGTERM)
        if address:
            ray.init(address=address, **{k: v for k, v in kwargs.items() if k != "include_dashboard"})
        else:
            # "local": always a new local instance of N CPUs, never a cluster that happens to run on this machine
            ray.init(address="local", num_cpus=workers, **kwargs)
        if sigterm is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, sigterm)    # ray.init installs its own (sys.exit): keep the caller's


def worker_failure(exc: BaseException) -> WorkerError:
    """A Ray failure that carries no exception of ours (an actor whose import failed, a lost node or cluster) as one
    line: the last line of Ray's message, which names the cause."""
    lines = [ln.strip() for ln in _ANSI.sub("", str(exc)).splitlines() if ln.strip()]
    return WorkerError(f"a Ray worker failed: {lines[-1] if lines else type(exc).__name__}")


class RayRunner:
    """Runs shards on `workers` Ray actors: a new local Ray instance of that many CPUs, or the cluster at address
    ('auto', ray://HOST:PORT). run_job runs a job of fewer than min_sentences sentences to parse in its own process
    instead (jobs.sizing; 0: never)."""

    distributed = True

    def __init__(self, workers: int, address: str | None = None, min_sentences: int = 0):
        self.workers = workers
        self.address = address
        self.min_sentences = min_sentences

    @staticmethod
    def in_process():
        """The runner of a job too small for Ray (jobs.sizing): this process."""
        from peet_fast.jobs.local import LocalRunner

        return LocalRunner()

    def run(self, spec: JobSpec, shards: Sequence[Shard], out_dir: str, on_done: Callable[[dict], None]) -> None:
        init_ray(self.workers, self.address)    # first: the processes it starts keep the real stderr
        with stderr_without_known_noise():      # Ray's known false alarm (jobs.raylog)
            self._run(spec, shards, out_dir, on_done)

    def _run(self, spec: JobSpec, shards: Sequence[Shard], out_dir: str, on_done: Callable[[dict], None]) -> None:
        import ray
        from ray.data import ActorPoolStrategy, DataContext

        init_ray(self.workers, self.address)
        ctx = DataContext.get_current()
        ctx.execution_options.preserve_order = False
        ctx.enable_progress_bars = False
        ctx.max_errored_blocks = 0
        ctx.max_consecutive_actor_init_deaths = 0     # an actor that cannot start fails the job, not replaced
        items = [{"index": s.index, "start": s.start, "stop": s.stop, "offsets": [list(o) for o in s.offsets],
                  "digest": s.digest} for s in shards]
        ds = ray.data.from_items(items, override_num_blocks=len(items))
        results = ds.map_batches(
            _ShardWorker, fn_constructor_kwargs={"spec": spec, "out_dir": os.path.abspath(out_dir),
                                                 "cwd": os.getcwd()},
            batch_size=1, compute=ActorPoolStrategy(size=min(self.workers, len(items))), num_cpus=1,
            batch_format="numpy")
        # (Ray Data restarts dead actors and retries their tasks without limit by default: a killed worker's shard is
        # recomputed by its restarted actor.)
        rows = iter(results.iter_rows())
        try:
            for row in _rows_or_failure(rows):
                result = json.loads(row["result"])
                if "error" in result:
                    raise _as_driver_error(exception_from_record(result["error"]), out_dir)
                on_done(result["entry"])
        except KeyboardInterrupt:
            _stop_quietly(rows)       # the driver records what finished once the actors are gone
            raise
        finally:
            close = getattr(rows, "close", None)
            if close is not None:
                close()


def _stop_quietly(rows) -> None:
    """On an interruption: stop the actors (shut Ray down, which kills them, or on a cluster disconnects this job)
    without Ray's tracebacks or log lines on the terminal."""
    import ray

    logging.getLogger("ray").setLevel(logging.CRITICAL)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        with contextlib.suppress(Exception):
            ray.shutdown()         # first: no "actor killed, task retried" lines from closing the stream
        with contextlib.suppress(Exception):
            close = getattr(rows, "close", None)
            if close is not None:
                close()


def _rows_or_failure(rows):
    """rows, with a Ray failure that carries no exception of ours raised as a WorkerError."""
    import ray

    try:
        yield from rows
    except ray.exceptions.RayError as exc:
        raise worker_failure(exc) from exc


def _as_driver_error(exc: BaseException, out_dir: str) -> BaseException:
    """An exception from an actor as the driver names things: the output directory as it was given here."""
    if isinstance(exc, OSError) and exc.filename == os.path.abspath(out_dir):
        exc.filename = out_dir
    return exc
