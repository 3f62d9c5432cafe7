"""The only module that imports Ray: RayRunner runs a job's shards on Ray actors.

Each actor loads the spaCy pipeline and the model once (jobs.shards.WorkerState) and computes the shards it is handed
with jobs.shards.run_shard, writing each shard's Parquet file atomically into the output directory (a shared
filesystem on a multi-node cluster). A shard travels as its rows and byte offsets, never the text itself. The driver
keeps one shard in flight per actor, hands an actor the next shard as soon as it returns one, and records each finished
shard in the manifest as it comes back, so an interrupted run resumes where it stopped. Actors that die (a killed
worker, a lost node) are restarted and their shard retried; shard output is deterministic, so a retried shard is
identical. The actors are created as soon as the job's settings are final (RayRunner.start, called by run_job), so
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
directory of the user's (jobs.ray._empty_dir), which is what Ray puts on the workers' sys.path, and with the directory the driver imported
peet_fast from first on PYTHONPATH where it is not a site directory (a checkout, PYTHONPATH); Ray's processes, and
so the workers, inherit that environment (jobs.ray._started_here). Each actor then changes to the driver's working
directory, so that relative input paths read, and name, the same files as in one process.

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
import sys
import tempfile
import threading
import time
import traceback
import warnings
from typing import Callable, Iterator, Sequence

import peet_fast
from peet_fast.jobs.raylog import errors_to_stderr, fd2_silenced, quiet_auth_notice, stderr_without_known_noise
from peet_fast.jobs.shards import JobSpec, WorkerError, WorkerState, run_shard
from peet_fast.jobs.sources import Shard

_ENTRY_KEYS = ("index", "start", "stop", "file", "rows", "sha256", "input")
POLL_S = 1.0            # how often the driver asks a busy actor for its rows done in the shard it runs
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
        """{} once the pipeline is loaded, or the failure of the constructor."""
        return self.failure or {}

    def shard(self, shard: Shard) -> dict:
        if self.failure is not None:
            return self.failure
        try:
            entry = run_shard(self.state, shard, self.out_dir)
        except Exception as exc:   # noqa: BLE001
            return {"error": exception_record(exc)}
        return {"entry": {key: entry[key] for key in _ENTRY_KEYS}}


def _import_root() -> str:
    """The directory the driver imported peet_fast from (site-packages, a checkout, a PYTHONPATH entry)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(peet_fast.__file__)))


def _in_submitted_job() -> bool:
    """Inside `ray job submit`, whose job has its own runtime_env (and working directory)."""
    return "RAY_JOB_CONFIG_JSON_ENV_VAR" in os.environ


def _local_pythonpath() -> str | None:
    """The PYTHONPATH of a local instance's workers: the driver's import root first, unless it is a site directory
    (where the workers find it anyway: None)."""
    root = _import_root()
    sites = {os.path.abspath(p) for p in [*site.getsitepackages(), site.getusersitepackages()]}
    if root in sites:
        return None
    inherited = [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return os.pathsep.join(dict.fromkeys([root, *inherited]))


@contextlib.contextmanager
def _started_here() -> Iterator[None]:
    """Within the block (ray.init of a local instance, whose processes inherit this one's environment and working
    directory): PYTHONPATH as _local_pythonpath gives it, and the working directory an empty directory of this
    user's (_empty_dir), so that Ray puts that directory, not the user's, first on the workers' sys.path; both are
    restored afterwards. Inside `ray job submit`: nothing changes."""
    if _in_submitted_job():
        yield
        return
    empty = _empty_dir()
    cwd = os.getcwd()
    saved = os.environ.get("PYTHONPATH")
    wanted = _local_pythonpath()
    try:
        if wanted is not None:
            os.environ["PYTHONPATH"] = wanted
        os.chdir(empty)
        yield
    finally:
        os.chdir(cwd)
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


def _empty_dir() -> str:
    """An empty directory of this user's for ray.init to start from: TMPDIR/peet-fast-ray-cwd-UID, the same on every
    run and never removed (Ray's processes run in it; a killed run leaves nothing new behind). Where that path is not
    an empty directory owned by this user (a file, a link, someone else's, anything inside it), a fresh private one,
    removed when this process exits."""
    import stat

    uid = os.getuid()
    path = os.path.join(tempfile.gettempdir(), f"peet-fast-ray-cwd-{uid}")
    with contextlib.suppress(OSError):
        os.mkdir(path, 0o700)
    try:
        st = os.lstat(path)
        if stat.S_ISDIR(st.st_mode) and st.st_uid == uid and not os.listdir(path):
            return path
    except OSError:
        pass
    import atexit
    import shutil

    path = tempfile.mkdtemp(prefix="peet-fast-ray-cwd-")
    atexit.register(shutil.rmtree, path, True)
    return path


def unreachable(address: str, timeout: float = 5.0) -> str | None:
    """Why a cluster address (HOST:PORT or ray://HOST:PORT) cannot be reached, from one TCP connection attempt, or
    None (reachable, or 'auto' / 'local', which Ray resolves itself). Ray's own attempt retries for minutes and
    only prints log lines of its C++ core meanwhile."""
    import socket

    if address in ("auto", "local"):
        return None
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except (OSError, ValueError) as exc:
        return (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or type(exc).__name__
    return None


def init_ray(workers: int, address: str | None) -> None:
    import ray

    if ray.is_initialized():
        return
    why = unreachable(address) if address else None
    if why is not None:
        raise WorkerError(f"cannot reach the Ray cluster at {address}: {why}")
    logging.getLogger("ray._private.runtime_env").setLevel(logging.WARNING)
    quiet_auth_notice()
    errors_to_stderr()      # Ray prints the errors pushed to the driver on stdout, where results may be going
    kwargs = {"ignore_reinit_error": True, "log_to_driver": False, "include_dashboard": False,
              "logging_level": logging.WARNING}
    sigterm = signal.getsignal(signal.SIGTERM)
    if address:
        # the workers' own empty working_dir (uploaded by ray.init: only needed here), so Ray does not put the
        # driver's working directory first on their sys.path
        with tempfile.TemporaryDirectory(prefix="peet-fast-ray-") as empty:
            if not _in_submitted_job():
                kwargs["runtime_env"] = {"working_dir": empty}
            try:
                with warnings.catch_warnings():     # Ray's UserWarning on a timeout: our one line says it
                    warnings.simplefilter("ignore")
                    ray.init(address=address, **{k: v for k, v in kwargs.items() if k != "include_dashboard"})
            except ConnectionError as exc:
                raise no_cluster(address, exc) from None
            except Exception as exc:      # noqa: BLE001 -- Ray raises several types: one line naming the address
                lines = [ln.strip() for ln in _ANSI.sub("", str(exc)).splitlines() if ln.strip()]
                raise WorkerError(f"cannot join the Ray cluster at {address}: "
                                  f"{lines[0] if lines else type(exc).__name__}") from exc
    else:
        from peet_fast.jobs.raywatch import start_watchdog

        start_watchdog()      # stops the instance's processes when this driver ends, however it ends
        # "local": always a new local instance of N CPUs, never a cluster that happens to run on this machine
        # no idle workers started ahead for tasks (Ray's default): this job runs actors only, and on a small
        # machine those processes take CPU from the actors' warm-up (ray.init ~0.5 s faster on 2 cores)
        with _started_here():
            ray.init(address="local", num_cpus=workers, _system_config={"prestart_worker_first_driver": False},
                     **kwargs)
    if sigterm is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, sigterm)    # ray.init installs its own (sys.exit): keep the caller's


def no_cluster(address: str, exc: ConnectionError) -> WorkerError:
    """The one line for a cluster that cannot be joined, in our words (Ray's names flags peet-fast does not have)."""
    text = str(exc)
    if "Could not find any running Ray instance" in text:
        why = "no Ray cluster was found (none running here, no RAY_ADDRESS)"
    elif "multiple active Ray instances" in text:
        found = re.search(r"\{[^}]*\}", text)
        why = f"several Ray instances run here{' ' + found.group(0) if found else ''}; give one as HOST:PORT"
    else:
        lines = [ln.strip() for ln in _ANSI.sub("", text).splitlines() if ln.strip()]
        why = f"could not join the cluster ({lines[0] if lines else type(exc).__name__})"
    return WorkerError(f"--ray-address {address}: {why}; to run on this machine instead, give --workers N without "
                       f"--ray-address")


def worker_failure(exc: BaseException) -> WorkerError:
    """A Ray failure that carries no exception of ours (an actor whose import failed, a lost node or cluster) as one
    line: the last line of Ray's message, which names the cause."""
    lines = [ln.strip() for ln in _ANSI.sub("", str(exc)).splitlines() if ln.strip()]
    return WorkerError(f"a Ray worker failed: {lines[-1] if lines else type(exc).__name__}")


def _own_working_directory() -> bool:
    """Give the calling thread a working directory of its own (Linux: unshare(CLONE_FS)), so that a chdir in it
    changes no other thread's; False where that cannot be done."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).unshare(0x200) == 0      # CLONE_FS
    except (OSError, AttributeError, TypeError):
        return False


_BACKGROUND_START: list[bool] = []      # whether a thread can have its own working directory (probed once)
_LOCAL_INSTANCE: list[str] = []         # the node id of the last local instance a RayRunner started


def _can_start_in_background() -> bool:
    """Whether ray.init of a local instance can run in another thread while this one computes: ray.init runs from
    an empty directory (_started_here), which must not become the working directory of this thread, which reads the
    user's relative paths meanwhile."""
    if not _BACKGROUND_START:
        probe = threading.Thread(target=lambda: _BACKGROUND_START.append(_own_working_directory()), daemon=True)
        probe.start()
        probe.join()
    return _BACKGROUND_START[0]


def _node_id(ray) -> str:
    return ray.get_runtime_context().get_node_id()


def _ours(ray) -> bool:
    """Whether the Ray instance this process is connected to is the local one a RayRunner started."""
    return bool(_LOCAL_INSTANCE) and _node_id(ray) == _LOCAL_INSTANCE[0]


class _RayStarter(threading.Thread):
    """Starts the local Ray instance (init_ray) in a thread of its own working directory, then the runner's actors,
    while the driver's own worker computes shards in the main thread. The thread then stays (a daemon, idle) for as
    long as the process: Ray starts its head processes (GCS, raylet) from it with a parent-death signal of SIGKILL,
    which Linux sends when the thread that started a process ends, not the process; and a raylet killed under a
    connected driver makes Ray's core worker end the driver (exit status 1). Even after ray.shutdown the thread
    stays: the shutdown may still be under way when it returns."""

    def __init__(self, runner: RayRunner, args: tuple):
        super().__init__(name="peet-fast-ray-start", daemon=True)
        self.runner = runner
        self.args = args
        self.ready = threading.Event()            # set once ray.init and the actors' creation are over
        self.error: BaseException | None = None
        self.cancelled = False                    # the job ended first: start no actors
        self.lock = threading.Lock()

    def run(self) -> None:
        try:
            if not _own_working_directory():
                raise WorkerError("Ray could not be started in the background")
            with _quiet_off_main_thread():
                self.runner._init_ray(own=True)
            with self.lock:
                if not self.cancelled:
                    self.runner._quiet_output()
                    self.runner._create_actors(self.args)
        except BaseException as exc:      # noqa: BLE001 -- the driver raises it in its own thread
            self.error = exc
        finally:
            self.ready.set()
        threading.Event().wait()     # never returns (see the class): its processes die with this thread


@contextlib.contextmanager
def _quiet_off_main_thread() -> Iterator[None]:
    """Without Ray's WARNING that ray.init outside the main thread installs no SIGTERM handler (ours stays)."""
    log = logging.getLogger("ray._private.worker")

    def not_the_sigterm_notice(record: logging.LogRecord) -> bool:
        return "SIGTERM handler is not set" not in record.getMessage()

    log.addFilter(not_the_sigterm_notice)
    try:
        yield
    finally:
        log.removeFilter(not_the_sigterm_notice)


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

    def __init__(self, workers: int, address: str | None = None, min_sentences: int = 0):
        self.workers = workers
        self.address = address
        self.min_sentences = min_sentences
        self._actors: list = []
        self._started_for: tuple | None = None
        self._stderr: contextlib.ExitStack | None = None
        self._own: WorkerState | None = None        # the driver's own worker (a new local instance)
        self._starter: _RayStarter | None = None    # Ray's start in the background, while it runs
        self._actor_limit = workers
        self.ray_start_s: float | None = None       # how long the last start of Ray (ray.init) took

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
        self._actor_limit = wanted - 1 if own else wanted
        self._started_for = key
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
            self._init_ray(own)     # first: the processes it starts keep the real stderr
            self._quiet_output()
            self._create_actors(args)
        if own and self._own is None:
            self._own = WorkerState(spec)

    def _init_ray(self, own: bool) -> None:
        """init_ray, timed (ray_start_s); own: the instance is this runner's own, recorded as such (_ours)."""
        t = time.perf_counter()
        init_ray(self.workers, self.address)
        self.ray_start_s = time.perf_counter() - t
        if own:
            import ray

            _LOCAL_INSTANCE[:] = [_node_id(ray)]

    def _quiet_output(self) -> None:
        if self._stderr is None:
            self._stderr = contextlib.ExitStack()
            self._stderr.enter_context(stderr_without_known_noise())    # Ray's known false alarm (jobs.raylog)
            # Ray's driver prints the errors it hears of (a worker died, a task is retried) to sys.stdout, which may
            # be the user's output piped to a file: to stderr while the job runs (nothing of ours prints meanwhile)
            self._stderr.enter_context(contextlib.redirect_stdout(sys.stderr))

    def _create_actors(self, args: tuple) -> None:
        import ray

        # restarted without limit where a worker dies (a killed process, a lost node), its shard retried: shard
        # output is deterministic, so a retried shard is identical; a constructor that raises is not retried (Ray)
        # two threads: rows() answers while a shard runs (progress inside a shard); one shard at a time per actor
        actor = ray.remote(num_cpus=1, max_restarts=-1, max_task_retries=-1, max_concurrency=2)(self.actor_class)
        self._actors = [actor.remote(*args) for _ in range(max(0, self._actor_limit))]

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
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _kill_actors(self, keep: int = 0) -> None:
        """Stop the actors past the first `keep` (all of them by default)."""
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
            # an interruption or a failure: stop Ray (its actors with them) at once and quietly -- killing an actor
            # in the middle of a shard makes Ray's driver print a retry notice later; the driver then records what
            # finished
            if self._starter is not None:
                with self._starter.lock:
                    self._starter.cancelled = True
            if "ray" in sys.modules:           # (a one-shard job of the driver's own never imported it)
                _stop_quietly()
            self._actors = []
            raise
        finally:
            self.close()

    def _dispatch(self, shards: Sequence[Shard], out_dir: str, on_done: Callable[[dict], None]) -> None:
        """Each worker gets a shard once it is ready and the next one whenever it finishes one: the driver's own
        worker (where there is one) computes its shards here, and between its parse batches hands the actors theirs;
        every POLL_S seconds each busy actor is asked for its rows done (on_done.rows, where on_done has it:
        Runner.run)."""
        on_rows = getattr(on_done, "rows", None)
        pool = _ActorPool(self, out_dir, on_done, on_rows)
        todo = pool.todo = list(reversed(shards))
        own = self._own
        with _signals_kept() as raise_kept:
            pool.raise_kept = raise_kept
            if own is not None:
                def rows(index: int, n: int) -> None:
                    if on_rows is not None:
                        on_rows(index, n)
                    pool.step(block=False)

                own.on_rows = rows
                while todo:
                    shard = todo.pop()
                    on_done(run_shard(own, shard, out_dir))
                    pool.step(block=False)
            while pool.busy() or (todo and pool.may_have_actors()):
                pool.step(block=True)
            if todo:
                raise WorkerError("no Ray actor started, and shards are left")
            raise_kept()


class _ActorPool:
    """The actors' side of RayRunner._dispatch: step() hands free actors the next shards, collects what finished
    and asks busy actors for their rows done; it waits (block) up to POLL_S / 2 for something to happen."""

    def __init__(self, runner: RayRunner, out_dir: str, on_done: Callable[[dict], None],
                 on_rows: Callable[[int, int], None] | None):
        self.runner = runner
        self.out_dir = out_dir
        self.on_done = on_done
        self.on_rows = on_rows
        self.todo: list = []
        self.raise_kept: Callable[[], None] = lambda: None
        self.waiting: dict = {}          # call -> (actor, its shard or None)
        self.polls: dict = {}            # rows() call -> its actor's position in runner._actors
        self.asked: list[float] = []
        self.joined = False              # Ray is up and the actors' ready() calls are out

    def may_have_actors(self) -> bool:
        return not self.joined or bool(self.waiting)

    def busy(self) -> bool:
        return any(shard is not None for _, shard in self.waiting.values())

    def _join(self, block: bool) -> bool:
        if self.joined:
            return True
        starter = self.runner._starter
        if starter is not None and not starter.ready.wait(POLL_S / 2 if block else 0):
            self.raise_kept()
            return False
        if starter is not None and starter.error is not None:
            raise starter.error
        self.joined = True
        actors = self.runner._actors
        self.asked = [0.0] * len(actors)
        self.waiting.update({a.ready.remote(): (a, None) for a in actors})
        return True

    def step(self, block: bool) -> None:
        if not self._join(block) or not (self.waiting or self.polls):
            return
        import ray

        if self.on_rows is not None:
            self._poll()
        refs, _ = ray.wait([*self.waiting, *self.polls], num_returns=1, timeout=POLL_S / 2 if block else 0)
        self.raise_kept()
        rest = [r for r in [*self.waiting, *self.polls] if r not in refs]
        if refs and rest:
            more, _ = ray.wait(rest, num_returns=len(rest), timeout=0)
            refs = [*refs, *more]
        for ref in refs:
            if ref in self.polls:
                del self.polls[ref]
                with contextlib.suppress(ray.exceptions.RayError):     # a dead actor: its shard says why
                    done = ray.get(ref)
                    if done is not None:
                        self.on_rows(*done)
                continue
            actor, shard = self.waiting.pop(ref)
            result = _result(ref)
            if "error" in result:
                raise _as_driver_error(exception_from_record(result["error"]), self.out_dir)
            if shard is not None:
                self.on_done(result["entry"])
            if self.todo:
                shard = self.todo.pop()
                self.waiting[actor.shard.remote(shard)] = (actor, shard)

    def _poll(self) -> None:
        """Ask each actor running a shard, and not asked in the last POLL_S seconds, for its rows done."""
        now = time.monotonic()
        pending = set(self.polls.values())
        actors = self.runner._actors
        for actor, shard in self.waiting.values():
            if shard is None:
                continue
            k = next((i for i, a in enumerate(actors) if a is actor), None)
            if k is None or k in pending or now - self.asked[k] < POLL_S:
                continue
            self.asked[k] = now
            self.polls[actor.rows.remote()] = k


@contextlib.contextmanager
def _signals_kept() -> Iterator[Callable[[], None]]:
    """Within the block (in the main thread), SIGINT and SIGTERM run their handlers as before and are also kept; the
    function yielded runs the handler of a kept signal again (raising its KeyboardInterrupt or Terminated). Python
    swallows an exception a signal handler raises inside a __del__ ("Exception ignored in: ActorHandle.__del__"), so
    the dispatch loop calls it after each wait: no Ctrl-C is lost."""
    kept: list[int] = []
    previous: dict = {}

    def keep(signum, frame):
        kept.append(signum)
        previous[signum](signum, frame)

    def raise_kept() -> None:
        if kept:
            previous[kept[0]](kept[0], None)

    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            handler = signal.getsignal(sig)
            if callable(handler):
                previous[sig] = handler
                signal.signal(sig, keep)
    try:
        yield raise_kept
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _result(ref) -> dict:
    """The value of a finished actor call; a Ray failure that carries no exception of ours (an actor whose import
    failed, a lost node or cluster) as a WorkerError of one line."""
    import ray

    try:
        return ray.get(ref)
    except ray.exceptions.RayError as exc:
        raise worker_failure(exc) from exc


def _stop_quietly() -> None:
    """On an interruption: stop the actors (shut Ray down, which kills them, or on a cluster disconnects this job)
    without Ray's tracebacks or log lines on the terminal."""
    import ray

    from peet_fast.jobs.raywatch import watched

    logging.getLogger("ray").setLevel(logging.CRITICAL)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), fd2_silenced():
        if not watched():
            with contextlib.suppress(Exception):
                ray.shutdown()
            return
        # a local instance under a watchdog: wait at most SHUTDOWN_WAIT for Ray's shutdown, which waits for seconds
        # on processes that a signal to the whole process group already ended; the watchdog stops what is left when
        # this process exits (SIGTERM is answered in about a second)
        stopper = threading.Thread(target=_shutdown_suppressed, daemon=True)
        stopper.start()
        stopper.join(SHUTDOWN_WAIT)


SHUTDOWN_WAIT = 0.5


def _shutdown_suppressed() -> None:
    import ray

    with contextlib.suppress(Exception):
        ray.shutdown()


def _as_driver_error(exc: BaseException, out_dir: str) -> BaseException:
    """An exception from an actor as the driver names things: the output directory as it was given here."""
    if isinstance(exc, OSError) and exc.filename == os.path.abspath(out_dir):
        exc.filename = out_dir
    return exc
