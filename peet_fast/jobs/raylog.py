"""Ray's noise on a normal run, silenced without hiding real errors (used by jobs.ray only):

- a new local instance warns that it enables token authentication by default (nothing to act on: the instance is
  this job's own): quiet_auth_notice() raises the level of that one logger (Ray's authentication_token_setup, which
  logs nothing else) to ERROR;
- an actor created with restarts allowed whose constructor arguments are large enough to go through the object store
  (a job with a large model: Ray inlines arguments under ~100 KB) makes the driver's core worker log an ERROR line
  "... the actor restart will fail" (ray-project/ray#53727: the driver holds those references for the whole job, so
  a restart does not fail). That line is written by Ray's C++ logger straight
  to file descriptor 2, so stderr_without_known_noise() passes fd 2 through a filter that drops exactly that line and
  forwards everything else unchanged;
- the driver prints the errors Ray pushes to it (an actor process that died and is restarted: "(raylet) Task
  _ShardActor.ready failed. There are infinite retries remaining ...") on sys.stdout, where a command's results may
  be going (`score ... > out.tsv`): errors_to_stderr() sends them to stderr, unchanged, except the one for a
  node lost ("Raylet is terminated ... [state-dump]", some 20 lines of the raylet's log, which stays in Ray's log
  files on that node; "... has been marked dead because the detector has missed too many heartbeats"), which
  jobs.raypool says in one line of ours;
- stopping a job on Ctrl-C shuts Ray down with tasks in flight, on which Ray's C++ core worker logs lines such as
  "task_manager.cc: Failed to push error to driver for task ..." straight to file descriptor 2: jobs.ray runs that
  shutdown inside fd2_silenced();
- joining a cluster that refuses this process's authentication token makes Ray's C++ core log "InvalidAuthToken"
  lines to file descriptor 2 while Ray's exception only says it failed to connect: jobs.raystart joins a cluster
  inside fd2_captured(), names authentication in its one line where those lines say so, and passes what was captured
  on to stderr unchanged where the join succeeds."""
from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import threading
from typing import Iterator

# Ray's errors for a lost node: its raylet's death (with the last 20 lines of the raylet's log) and the node marked
# dead; jobs.raypool says it in one line of ours
NODE_LOST = ("Raylet is terminated", "has been marked dead because the detector has missed too many heartbeats")
AUTH_LOGGER = "ray._private.authentication.authentication_token_setup"
KNOWN_NOISE = re.compile(rb"^\[[^\]\n]*\] core_worker\.cc:\d+: Actor with class name: [^\n]*has constructor "
                         rb"arguments in the object store and max_restarts > 0\.[^\n]*\n?", re.MULTILINE)


def quiet_auth_notice() -> None:
    """No WARNING that a new local instance uses token authentication (Ray's default); its errors still show."""
    logging.getLogger(AUTH_LOGGER).setLevel(logging.ERROR)


def errors_to_stderr() -> None:
    """Ray's driver prints the error messages its cluster pushes to it (listen_error_messages) through
    ray._private.worker.print_to_stdstream with is_err False, i.e. on sys.stdout; from now on they go to sys.stderr
    (the same text). Where Ray has no such function (another version), nothing is changed."""
    try:
        from ray._private import worker
    except ImportError:
        return
    original = getattr(worker, "print_to_stdstream", None)
    if original is None or getattr(original, "_peet_fast_to_stderr", False):
        return

    def to_stderr(data, *args, **kwargs):
        if isinstance(data, dict) and not data.get("is_err", True):
            if any(text in str(line) for line in data.get("lines", ()) for text in NODE_LOST):
                return None        # a node's raylet died: in Ray's log files; jobs.raypool says it in one line
            data = dict(data, is_err=True)
        return original(data, *args, **kwargs)

    to_stderr._peet_fast_to_stderr = True      # type: ignore[attr-defined]
    worker.print_to_stdstream = to_stderr


def stop_error_listener() -> None:
    """Stop the driver's thread that listens for the errors the GCS pushes (Ray's listen_error_messages): where the
    GCS no longer answers, its loop polls without waiting, a CPU's worth (jobs.rayhead calls this at the first
    probe of the head that fails). Ray's other driver threads stop with it (they stop at ray.shutdown anyway); a head
    that answers again is then heard of only through the job's own calls."""
    try:
        from ray._private import worker
    except ImportError:
        return
    stopped = getattr(getattr(worker, "global_worker", None), "threads_stopped", None)
    if stopped is not None:
        stopped.set()


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]


def _pump(read_end: int, target: int) -> None:
    """Copy the pipe to target, without the known noise, until the pipe's writers are gone."""
    while True:
        data = os.read(read_end, 1 << 16)
        if not data:
            return
        data = KNOWN_NOISE.sub(b"", data)
        with contextlib.suppress(OSError):
            _write_all(target, data)


@contextlib.contextmanager
def _fd2_replaced(fd: int) -> Iterator[int | None]:
    """Within the block, file descriptor 2 is a duplicate of fd (which is closed here); yields a descriptor of the
    real stderr, restored onto 2 and closed when the block ends (None, and nothing replaced, where fd 2 cannot be
    duplicated)."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (AttributeError, OSError, ValueError):
        os.close(fd)
        yield None
        return
    os.dup2(fd, 2)
    os.close(fd)
    try:
        yield saved
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


@contextlib.contextmanager
def stderr_without_known_noise() -> Iterator[None]:
    """Within the block, file descriptor 2 is a pipe whose data reach the real stderr without KNOWN_NOISE (each
    such line is written whole, in one write, so it never straddles two reads)."""
    read_end, write_end = os.pipe()
    pump = target = None
    try:
        with _fd2_replaced(write_end) as real:
            if real is not None:
                target = os.dup(real)
                pump = threading.Thread(target=_pump, args=(read_end, target), name="peet-fast-stderr", daemon=True)
                pump.start()
            yield
        # fd 2 restored: the pipe's last write end is closed, so the pump sees its end
    finally:
        if pump is not None:
            pump.join(timeout=5)
        if target is not None:
            os.close(target)
        os.close(read_end)


@contextlib.contextmanager
def fd2_silenced() -> Iterator[None]:
    """Within the block, whatever is written to file descriptor 2 (Python's stderr and Ray's C++ logs) is discarded."""
    with _fd2_replaced(os.open(os.devnull, os.O_WRONLY)):
        yield


@contextlib.contextmanager
def fd2_captured() -> Iterator[bytearray]:
    """Within the block, whatever is written to file descriptor 2 goes into the bytearray yielded (complete once the
    block has ended) instead of the real stderr."""
    read_end, write_end = os.pipe()
    captured = bytearray()

    def collect() -> None:
        while True:
            data = os.read(read_end, 1 << 16)
            if not data:
                return
            captured.extend(data)

    pump = threading.Thread(target=collect, name="peet-fast-stderr-capture", daemon=True)
    pump.start()
    try:
        with _fd2_replaced(write_end):
            yield captured
    finally:
        pump.join(timeout=5)
        if not pump.is_alive():
            os.close(read_end)
