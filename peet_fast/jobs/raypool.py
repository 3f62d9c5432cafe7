"""The actors' side of a RayRunner's dispatch (one of jobs/ray*.py, the only modules that import Ray): _ActorPool
hands free actors the next shards and collects what they return; an actor's failure travels back as data
(exception_record) and is raised here as the original exception (exception_from_record), a failure of Ray itself as
a WorkerError of one line (worker_failure); SIGINT and SIGTERM are kept across Ray's waits (_signals_kept)."""
from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import threading
import time
import traceback
from typing import Callable, Iterator

from peet_fast.jobs.errors import WorkerError
from peet_fast.jobs.raystart import ANSI

POLL_S = 1.0            # how often the driver asks a busy actor for its rows done in the shard it runs


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

def worker_failure(exc: BaseException) -> WorkerError:
    """A Ray failure that carries no exception of ours (an actor whose import failed, a lost node or cluster) as one
    line: the last line of Ray's message, which names the cause."""
    lines = [ln.strip() for ln in ANSI.sub("", str(exc)).splitlines() if ln.strip()]
    return WorkerError(f"a Ray worker failed: {lines[-1] if lines else type(exc).__name__}")

class _ActorPool:
    """The actors' side of RayRunner._dispatch: step() hands free actors the next shards, collects what finished
    and asks busy actors for their rows done; it waits (block) up to POLL_S / 2 for something to happen."""

    def __init__(self, runner, out_dir: str, on_done: Callable[[dict], None],
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
        self.handed = 0                  # shards handed to actors so far

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
                self.handed += 1

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

def _as_driver_error(exc: BaseException, out_dir: str) -> BaseException:
    """An exception from an actor as the driver names things: the output directory as it was given here."""
    if isinstance(exc, OSError) and exc.filename == os.path.abspath(out_dir):
        exc.filename = out_dir
    return exc
