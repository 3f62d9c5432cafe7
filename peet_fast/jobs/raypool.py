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
import sys
import threading
import time
import traceback
from typing import Callable, Iterator

from peet_fast.jobs.errors import ANSI, WorkerError

POLL_S = 1.0            # how often the driver asks a busy actor for its rows done in the shard it runs
REPLACE_WAIT_S = float(os.environ.get("PEET_FAST_RAY_REPLACE_S", "120"))   # how long a lost actor's replacement
#                         may take to be ready before a job with no actor left stops (no CPU left on the cluster)
REPLACEMENTS = 3        # lost actors replaced per worker at most (a worker that keeps dying is not replaced for ever)


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
    and asks busy actors for their rows done; it waits (block) up to POLL_S / 2 for something to happen.

    An actor that dies (its process killed, its node lost: Ray's RayActorError, not a failure of its constructor)
    is dropped, its shard goes back to todo for the first worker free (shard output is deterministic), and a new
    actor is asked for in its place (up to REPLACEMENTS per worker). Where no actor is left ready and no replacement
    has come within REPLACE_WAIT_S (no CPU left: the node and its CPUs are gone), and the driver does not compute
    itself, the job stops with a JobStopped (exit 2, finished shards kept). Meanwhile the progress callback hears
    from the pool at least every POLL_S, so that progress lines go on."""

    def __init__(self, runner, out_dir: str, on_done: Callable[[dict], None],
                 on_rows: Callable[[int, int], None] | None):
        self.runner = runner
        self.out_dir = out_dir
        self.on_done = on_done
        self.on_rows = on_rows
        self.todo: list = []
        self.raise_kept: Callable[[], None] = lambda: None
        self.waiting: dict = {}          # call -> (actor, its shard or None)
        self.polls: dict = {}            # rows() call -> its actor
        self.asked: dict[int, float] = {}    # id(actor) -> when its rows were last asked for
        self.joined = False              # Ray is up and the actors' ready() calls are out
        self.handed = 0                  # shards handed to actors so far
        self.ready: set[int] = set()     # id() of the actors whose pipeline is loaded (alive)
        self.idle: list = []             # ready actors with no shard (none left to hand them when they asked)
        self.lost = 0                    # actors lost so far
        self.lost_ready = 0              # of them, those that had loaded (workers the job had: the count it names)
        self.nodes: dict[int, tuple] = {}    # id(actor) -> (its node's IP, node id), as its ready() said
        self.replacing_since: float | None = None    # when the pool was left with no ready actor after a loss
        self.seen: dict[int, int] = {}   # rows done in each shard an actor runs, as last reported
        self.told = time.monotonic()     # when on_rows was last called

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
            if self.runner._own is None:
                raise starter.error
            self.runner.start_failed(starter.error)      # the driver goes on alone, after one notice
        self.joined = True
        self.waiting.update({a.ready.remote(): (a, None) for a in self.runner._actors})
        return True

    def step(self, block: bool) -> None:
        if not self._join(block) or not (self.waiting or self.polls):
            return
        import ray

        self.runner.head_lost()         # the cluster's head is gone: stop in our words (jobs.rayhead)

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
                    if done is not None and done[0] in self.seen:
                        self.seen[done[0]] = done[1]
                        self._tell(*done)
                continue
            if ref not in self.waiting:               # a call of an actor lost in this step (_lose)
                continue
            actor, shard = self.waiting.pop(ref)
            try:
                result = ray.get(ref)
            except ray.exceptions.RayActorError as exc:
                if exc.actor_init_failed:           # its constructor (or import) failed: so would a new one's
                    raise worker_failure(exc) from exc
                self._lose(actor, shard)
                continue
            except ray.exceptions.RayError as exc:
                raise worker_failure(exc) from exc
            if "error" in result:
                raise _as_driver_error(exception_from_record(result["error"]), self.out_dir)
            self.ready.add(id(actor))
            if "node" in result:
                self.nodes[id(actor)] = tuple(result["node"])
            self.replacing_since = None
            if shard is not None:
                self.seen.pop(shard.index, None)
                self.on_done(result["entry"])
                self.told = time.monotonic()
            self.idle.append(actor)
        while self.todo and self.idle:            # (a lost actor's shard comes back when the others may be idle)
            actor = self.idle.pop(0)
            shard = self.todo.pop()
            self.waiting[actor.shard.remote(shard)] = (actor, shard)
            self.seen[shard.index] = 0
            self.handed += 1
        if block:
            self._check_capacity()

    def _lose(self, actor, shard) -> None:
        """An actor died (not its constructor's failure): its shard back to todo, a new actor in its place."""
        import ray

        self.runner.head_lost(confirm=True)     # the head gone with it: asking Ray anything would wait for it
        self.lost += 1
        self.lost_ready += id(actor) in self.ready
        self.runner.lost = self.lost
        self._say_lost(actor, shard)
        self.ready.discard(id(actor))
        with contextlib.suppress(Exception):
            ray.kill(actor, no_restart=True)
        actors = self.runner._actors
        actors[:] = [a for a in actors if a is not actor]
        for ref, (other, _) in list(self.waiting.items()):
            if other is actor:                     # (a ready() and a shard() call of one actor both fail)
                del self.waiting[ref]
        for ref, other in list(self.polls.items()):
            if other is actor:
                del self.polls[ref]
        if shard is not None:
            self.seen.pop(shard.index, None)
            self.todo.append(shard)                # the next handed out
        if not self.ready and self.replacing_since is None:
            self.replacing_since = time.monotonic()
        if self.lost <= REPLACEMENTS * max(1, self.runner.workers):
            new = self.runner.new_actor()
            actors.append(new)
            self.waiting[new.ready.remote()] = (new, None)

    def _check_capacity(self) -> None:
        """Stop the job where it cannot go on: no actor ready, none come within REPLACE_WAIT_S of a loss, and the
        driver does not compute (JobStopped); meanwhile keep the progress callback hearing from the pool."""
        from peet_fast.jobs.errors import JobStopped

        now = time.monotonic()
        if self.on_rows is not None and now - self.told >= POLL_S:
            self.told = now
            index, rows = next(iter(self.seen.items()), (_next_index(self.todo), 0))
            if index is not None:
                self.on_rows(index, rows)
        if (self.replacing_since is not None and not self.ready and self.runner._own is None
                and now - self.replacing_since >= REPLACE_WAIT_S and (self.todo or self.busy())):
            lost = max(1, self.lost_ready)
            raise JobStopped(f"{lost} Ray worker{'s' if lost > 1 else ''} lost (a node left the cluster, "
                             f"or a worker process was killed) and none could be replaced within "
                             f"{REPLACE_WAIT_S:g} s: no CPU left for them")

    def _say_lost(self, actor, shard) -> None:
        """One notice on stderr for a lost actor: its node lost (its raylet does not answer, or Ray marked the node
        dead), or only its process; and what became of its shard."""
        ip, node_id = self.nodes.get(id(actor), (None, None))
        node = f"node {ip} ({node_id[:8]})" if ip else "a node"
        what = f"a Ray worker's process on {node} died" if node_id and _node_answers(node_id) else f"{node} lost"
        then = f"its shard {shard.index} handed to another worker" if shard is not None else \
            "its worker replaced"
        print(f"peet-fast {self.runner._kind}: {what}: {then}", file=sys.stderr, flush=True)

    def _tell(self, index: int, rows: int) -> None:
        self.told = time.monotonic()
        self.on_rows(index, rows)

    def _poll(self) -> None:
        """Ask each actor running a shard, and not asked in the last POLL_S seconds, for its rows done."""
        now = time.monotonic()
        pending = {id(a) for a in self.polls.values()}
        for actor, shard in self.waiting.values():
            if shard is None or id(actor) in pending or now - self.asked.get(id(actor), 0.0) < POLL_S:
                continue
            self.asked[id(actor)] = now
            self.polls[actor.rows.remote()] = actor


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


def _as_driver_error(exc: BaseException, out_dir: str) -> BaseException:
    """An exception from an actor as the driver names things: the output directory as it was given here."""
    if isinstance(exc, OSError) and exc.filename == os.path.abspath(out_dir):
        exc.filename = out_dir
    return exc


def _node_answers(node_id: str) -> bool:
    """Whether Ray holds the node alive and its raylet answers a TCP connection (a lost node's does not, before Ray
    has noticed: its health checks take 10-30 s)."""
    import ray

    from peet_fast.jobs.rayhead import probe

    try:
        node = next(n for n in ray.nodes() if n.get("NodeID") == node_id)
    except Exception:     # noqa: BLE001 -- (StopIteration: a node Ray no longer lists)
        return False
    return bool(node.get("Alive")) and probe(node["NodeManagerAddress"], int(node["NodeManagerPort"]), 2.0) is None


def _next_index(todo) -> int | None:
    """The index of the shard todo hands out next: a planned list's last, or an adaptive plan's next cut."""
    if hasattr(todo, "next_index"):
        return todo.next_index()
    return todo[-1].index if todo else None
