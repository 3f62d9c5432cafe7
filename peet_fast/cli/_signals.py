"""SIGINT, always one line and exit status 130: cli.main notes every SIGINT (sigint_noted) besides raising
KeyboardInterrupt as Python's own handler does, so that an interruption shows as one however it surfaces: a
KeyboardInterrupt a library turned into another exception (scipy's lazy import raising RuntimeError while handling
it) is found in the exception's chain (interruption), and one a library swallowed is found noted when the command
returns. The `peet-fast` script notes a SIGINT from the first import of the command line on (note_from_now: the
imports take a few tenths of a second), and a command line ends with end_process: SIGINT blocked, one noted or
pending counted, the process left at once (the interpreter's shutdown puts the default handler back and would die
of a late SIGINT with no line). A SIGINT that the process ignores (a job started in the background by a shell
script) stays ignored."""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading

_noted = threading.Event()      # a SIGINT came while the command ran


def _raise_noted(signum, frame) -> None:
    _noted.set()
    raise KeyboardInterrupt


def _note(signum, frame) -> None:
    _noted.set()


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def note_from_now() -> None:
    """For the `peet-fast` script, as the command line's modules are first imported: a SIGINT is noted (not raised
    into an import) until main's sigint_noted takes over; nothing if SIGINT is ignored or has another handler."""
    if _main_thread() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _note)


@contextlib.contextmanager
def sigint_noted(keep: bool = False):
    """While the block runs in the main thread with Python's default SIGINT handler (or note_from_now's), SIGINT
    raises KeyboardInterrupt and is noted (noted(); one note_from_now noted before the block stays noted: check it
    first). After the block, the handler before it is back; with keep (a command line, which ends with
    end_process) SIGINT is only noted from then on. An ignored SIGINT, another handler or another thread: nothing
    changes."""
    current = signal.getsignal(signal.SIGINT)
    if current is not _note:
        _noted.clear()
    if not _main_thread() or current not in (signal.default_int_handler, _note):
        yield
        return
    signal.signal(signal.SIGINT, _raise_noted)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, _note if keep else signal.default_int_handler)


def noted() -> bool:
    """Whether a SIGINT came while a sigint_noted block ran (or before it, from note_from_now)."""
    return _noted.is_set()


def end_process(status: int, late_line: str) -> None:
    """End a command line now with `status`, or 130 (late_line on stderr) where a SIGINT came that the command did not
    report (status 0): SIGINT blocked first, so that none comes between the check and the exit unseen; stdout and
    stderr flushed; no interpreter shutdown (every file of the command is closed by now), so no Ray teardown either:
    after a local instance it takes a second or more (the instance's watchdog, jobs.raywatch, stops its processes as
    this one ends), and after a lost head (jobs.rayhead) it waits for the GCS and ends in a crash."""
    pending = False
    if _main_thread() and hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        pending = signal.SIGINT in signal.sigpending()
    if status == 0 and (noted() or pending) and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        status = 130
        print(late_line, file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):      # a closed pipe: what Python's own exit would also fail to write
            pass
    os._exit(status)


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
