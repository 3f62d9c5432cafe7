"""Starting and stopping the Ray instance a RayRunner runs on (one of jobs/ray*.py, the only modules that import Ray).

init_ray joins a cluster (--ray-address: a TCP check first, then ray.init with an empty working_dir of the workers'
own) or starts a new local instance of N CPUs under a watchdog (jobs.raywatch), from an empty directory of the user's
(_empty_dir) with the driver's import root first on PYTHONPATH (_started_here): see jobs.ray's docstring for why.
_RayStarter runs that start in a thread of its own working directory while the driver computes shards;
_stop_quietly stops Ray on an interruption without its tracebacks on the terminal."""
from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import signal
import site
import tempfile
import threading
import warnings
from typing import Iterator

import peet_fast
from peet_fast.jobs.errors import ANSI, JobStopped, WorkerError, Wording, dashboard_url, ray_reason  # noqa: F401
from peet_fast.jobs.raylog import errors_to_stderr, fd2_silenced, quiet_auth_notice


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


def ray_address_file() -> str:
    """Where `ray start --head` records the address of the cluster it started on this machine (Ray's
    ray_current_cluster, in its temp directory: RAY_TMPDIR, else TMPDIR, else /tmp; removed by `ray stop`). Only
    `ray start` writes it: a local instance a program starts for itself with ray.init never does."""
    try:
        from ray._common.utils import get_ray_address_file

        return get_ray_address_file(None)
    except (ImportError, AttributeError):
        base = os.environ.get("RAY_TMPDIR") or os.environ.get("TMPDIR") or "/tmp"
        return os.path.join(base, "ray", "ray_current_cluster")


def user_cluster() -> tuple[str, str] | None:
    """(address, where it came from) of the cluster `--ray-address auto` stands for: RAY_ADDRESS where it holds an
    address (`ray job submit` sets it for the command it runs), else the cluster `ray start` started on this machine
    (ray_address_file); None where there is neither. Never a local Ray instance that a program started for itself
    (another peet-fast run's --workers N, a script's ray.init()): Ray's own 'auto' joins any instance it finds
    running on the machine where no `ray start` cluster is recorded, those included, so 'auto' is resolved here."""
    env = os.environ.get("RAY_ADDRESS", "").strip()
    if env and env != "auto":
        return env, "RAY_ADDRESS"
    try:
        with open(ray_address_file(), encoding="utf-8") as fh:
            recorded = fh.read(4096).strip()
    except (OSError, UnicodeDecodeError):
        return None
    return (recorded, "the cluster `ray start` started here") if recorded else None


# the refusal of ray_address 'auto' with no cluster of the user's (a command line names its flags: jobs.errors.Wording)
NO_USER_CLUSTER = ("{ray_address} auto: no Ray cluster is recorded in {file} (where `ray start` records the cluster "
                   "it starts; one started with `ray start --temp-dir DIR` is recorded in DIR instead: give its "
                   "address, HOST:PORT) and RAY_ADDRESS is not set (a local Ray instance another run started for "
                   "itself is never joined); to run on this machine instead, give {workers} N without {ray_address}")


def no_user_cluster() -> Wording:
    """The refusal of 'auto' where user_cluster finds none, naming the file Ray's `ray start` records it in."""
    return Wording(NO_USER_CLUSTER, file=ray_address_file())


_HOST_PORT = re.compile(r"(ray://)?[^\s/:]+:[0-9]+")


def init_ray(workers: int, address: str | None) -> None:
    """Connect this process to Ray: to the cluster at address ('auto': user_cluster's, refused in one line where the
    user started none), or, for None, to a new local instance of `workers` CPUs (under a watchdog)."""
    import ray

    named = os.environ.get("RAY_ADDRESS", "") if address == "auto" else address or ""
    if re.match(r"https?://", named):         # never a cluster's address, whatever this process is connected to
        raise JobStopped(Wording("{ray_address} {address}: {why}", address=address, why=dashboard_url(named)))
    if ray.is_initialized():
        return
    requested = given = address
    if address == "auto":
        found = user_cluster()
        if found is None:
            raise WorkerError(no_user_cluster())
        address, source = found
        given = Wording("{address} ({ray_address} auto: {source})", address=address, source=source)
    if re.match(r"https?://", address or ""):
        raise JobStopped(Wording("{ray_address} {address}: {why}", address=requested, why=dashboard_url(address)))
    # a given address is checked as before; one 'auto' found where it has that form (not a dashboard URL)
    why = unreachable(address) if address and (given == address or _HOST_PORT.fullmatch(address)) else None
    if why is not None:
        raise WorkerError(Wording("cannot reach the Ray cluster at {given}: {why}", given=given, why=why))
    logging.getLogger("ray._private.runtime_env").setLevel(logging.WARNING)
    quiet_auth_notice()
    errors_to_stderr()      # Ray prints the errors pushed to the driver on stdout, where results may be going
    kwargs = {"ignore_reinit_error": True, "log_to_driver": False, "include_dashboard": False,
              "logging_level": logging.WARNING}
    sigterm = signal.getsignal(signal.SIGTERM)
    if address:
        _join_cluster(address, requested, given, kwargs)
    else:
        from peet_fast.jobs.raywatch import start_watchdog

        start_watchdog()      # stops the instance's processes when this driver ends, however it ends
        # "local": always a new local instance of N CPUs, never a cluster that happens to run on this machine
        # no idle workers started ahead for tasks (Ray's default): this job runs actors only, and on a small
        # machine those processes take CPU from the actors' warm-up (ray.init ~0.5 s faster on 2 cores);
        # worker_niceness 0: the actors run at this driver's priority (Ray adds 15 by default, and on a busy machine
        # the actors then starve beside the driver, which computes shards too: issue 33)
        with _started_here():
            ray.init(address="local", num_cpus=workers,
                     _system_config={"prestart_worker_first_driver": False, "worker_niceness": 0}, **kwargs)
    if sigterm is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, sigterm)    # ray.init installs its own (sys.exit): keep the caller's


def _join_cluster(address: str, requested: str, given: str | Wording, kwargs: dict) -> None:
    """ray.init of the cluster at address (given: how to name it, requested: the ray_address as given), with the
    workers' own empty working_dir (uploaded by ray.init: only needed here), so that Ray does not put the driver's
    working directory first on their sys.path. What Ray's C++ core logs meanwhile is captured (raylog.fd2_captured):
    passed on where the join succeeds, read for the cause (an authentication token refused) where it fails. A failure
    is one line: no_cluster's (exit 1) where no cluster answers, else a JobStopped (exit 2) in our words."""
    import ray

    from peet_fast.jobs.raylog import fd2_captured

    with tempfile.TemporaryDirectory(prefix="peet-fast-ray-") as empty:
        if not _in_submitted_job():
            kwargs = dict(kwargs, runtime_env={"working_dir": empty})
        failure = None
        with fd2_captured() as logged:
            try:
                with warnings.catch_warnings():     # Ray's UserWarning on a timeout: our one line says it
                    warnings.simplefilter("ignore")
                    ray.init(address=address, **{k: v for k, v in kwargs.items() if k != "include_dashboard"})
            except Exception as exc:      # noqa: BLE001 -- Ray raises several types: one line naming the address
                failure = exc
        text = logged.decode("utf-8", "replace")
        if failure is None:
            if logged:
                os.write(2, bytes(logged))
            return
        why = ray_reason(f"{failure}\n{text}" if "InvalidAuthToken" in text else str(failure))
        if isinstance(failure, ConnectionError) and "authentication token" not in why:
            raise no_cluster(requested, failure) from None
        raise JobStopped(Wording("cannot join the Ray cluster at {given}: {why}", given=given, why=why)) from failure


def no_cluster(address: str, exc: ConnectionError) -> WorkerError:
    """The one line for a cluster that cannot be joined, in our words (Ray's names flags peet-fast does not have)."""
    text = str(exc)
    if "Could not find any running Ray instance" in text:
        why = "no Ray cluster was found (none running here, no RAY_ADDRESS)"
    elif "multiple active Ray instances" in text:
        found = re.search(r"\{[^}]*\}", text)
        why = f"several Ray instances run here{' ' + found.group(0) if found else ''}; give one as HOST:PORT"
    else:
        lines = [ln.strip() for ln in ANSI.sub("", text).splitlines() if ln.strip()]
        why = f"could not join the cluster ({lines[0] if lines else type(exc).__name__})"
    return WorkerError(Wording("{ray_address} {address}: {why}; to run on this machine instead, give {workers} N "
                               "without {ray_address}", address=address, why=why))


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

    def __init__(self, runner, args: tuple):
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


def _abandon_cluster() -> None:
    """The cluster's head is lost (jobs.rayhead): no ray.shutdown now (its core worker waits ~10 s for the GCS). A
    command line then exits at once, with no interpreter shutdown (cli._signals.end_process); a library caller's process
    stays connected to the lost cluster, and Ray's own exit hook waits those seconds when it ends. The job's actors
    went with the head, or end with their raylet once it too gives up on the GCS."""
    from peet_fast.jobs.rayhead import LOST

    LOST.append("head")


def _shutdown_suppressed() -> None:
    import ray

    with contextlib.suppress(Exception):
        ray.shutdown()

