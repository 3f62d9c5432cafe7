"""SIGINT, always one line and exit status 130: cli.main notes every SIGINT (sigint_noted) besides raising
KeyboardInterrupt as Python's own handler does, so that an interruption shows as one however it surfaces: a
KeyboardInterrupt a library turned into another exception (scipy's lazy import raising RuntimeError while handling
it) is found in the exception's chain (interruption), and one a library swallowed is found noted when the command
returns. A SIGINT that the process ignores (a job started in the background by a shell script) stays ignored."""
from __future__ import annotations

import contextlib
import signal
import threading

_noted = threading.Event()      # a SIGINT came while the command ran


def _raise_noted(signum, frame) -> None:
    _noted.set()
    raise KeyboardInterrupt


def _note(signum, frame) -> None:
    _noted.set()


@contextlib.contextmanager
def sigint_noted(keep: bool = False):
    """While the block runs in the main thread with Python's default SIGINT handler, SIGINT raises KeyboardInterrupt
    and is noted (noted()). After the block, the handler before it is back; with keep (a command line: the process
    ends with the command) a SIGINT is only noted from then on, never raised into the process's last steps. An
    ignored SIGINT, another handler or another thread: nothing changes."""
    _noted.clear()
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    previous = signal.signal(signal.SIGINT, _raise_noted)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, _note if keep else previous)


def noted() -> bool:
    """Whether a SIGINT came while a sigint_noted block ran (or after it, with keep)."""
    return _noted.is_set()


def interruption(exc: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt behind exc: exc itself or one in its chain (__cause__, __context__); None if none."""
    todo, seen = [exc], set()
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        if isinstance(e, KeyboardInterrupt):
            return e
        seen.add(id(e))
        todo += [e.__cause__, e.__context__]
    return None
