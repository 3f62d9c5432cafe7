"""A watchdog for the local Ray instance a driver starts: its processes are stopped when the driver ends, however it
ends (a normal exit, an exception, SIGTERM, kill -9).

Ray ties its head processes (GCS, raylet, monitor, dashboard, log monitor) to the driver (Linux's parent-death
signal), but the raylet's own children -- the dashboard and runtime-env agents (~200 MB) and the workers -- outlive it
for 30-60 s, and a driver interrupted during ray.init leaves whatever had started. The watchdog is a small separate
process (its own session: a signal to the driver's process group does not reach it) started before ray.init. It
holds the read end of a pipe whose write end only the driver holds, so it sees the driver end at once (end of
file), even after kill -9. Meanwhile it records the driver's children as they appear (pid and start time, so that a
reused pid is never killed) and which of them are raylets: often right after a new one appeared, less and less often
while none does (FAST_S up to SLOW_S: it costs ~0.1 % of one CPU on an idle instance). It stops:

- when the driver ends: every recorded process still alive: the driver's children that are Ray's own (their program
  or script lies in Ray's package) and all their descendants (the raylet's agents and workers);
- when every raylet it saw has ended (ray.shutdown, the instance gone): the recorded processes still alive (agents
  that linger); then it exits, so a driver that starts Ray again starts another watchdog.

SIGTERM first, SIGKILL to what is left half a second later. It never touches a process it cannot tie to this driver's
instance: another user's Ray, another driver's, a cluster joined with --ray-address (no watchdog then)."""
from __future__ import annotations

import os
import subprocess
import sys

_WATCHDOG = r'''
import os, select, signal, sys, time

driver = int(sys.argv[1])
FAST, SLOW = float(sys.argv[2]), float(sys.argv[3])     # seconds between looks: after a new process, at most

def stat(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        if fields[0] == b"Z":
            return None                                  # a zombie: ended (its parent is gone and nobody reaps)
        return int(fields[1]), int(fields[19])          # ppid, start time
    except (OSError, IndexError, ValueError):
        return None

def alive(pid, start):
    st = stat(pid)
    return st is not None and st[1] == start

def children(pid):
    out = set()
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out.update(int(c) for c in fh.read().split())
        return out
    except (OSError, ValueError):
        pass
    for p in os.listdir("/proc"):                        # no children files: scan every process
        if p.isdigit():
            st = stat(int(p))
            if st is not None and st[0] == pid:
                out.add(int(p))
    return out

def command(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().split(b"\0")
    except OSError:
        return []

def is_ray(cmd):
    """A process of Ray's own (GCS, raylet, monitor, dashboard, log monitor): its program or script is in Ray's
    package. Other children of the driver (a test's subprocess, the watchdog) are never recorded."""
    return any(b"/ray/" in arg for arg in cmd[:3])

known = {}      # pid -> start time: the driver's descendants (its children, theirs, ...)
raylets = {}    # pid -> start time

def record():
    """Record the driver's new descendants; True where one was new."""
    before = len(known)
    todo = [driver]
    seen = set()
    while todo:
        parent = todo.pop()
        for pid in children(parent):
            if pid in seen or pid == os.getpid():
                continue
            seen.add(pid)
            if pid not in known:
                cmd = command(pid) if parent == driver else None
                if cmd is not None and not is_ray(cmd):
                    continue
                st = stat(pid)
                if st is None:
                    continue
                known[pid] = st[1]
                if cmd and any(arg.endswith(b"/raylet") for arg in cmd[:2]):
                    raylets[pid] = st[1]
            todo.append(pid)
    return len(known) > before

def stop(procs):
    procs = {p: s for p, s in procs.items() if p not in (driver, os.getpid()) and alive(p, s)}
    for sig, wait in ((signal.SIGTERM, 0.5), (signal.SIGKILL, 0.0)):
        for p, s in procs.items():
            if alive(p, s):
                try:
                    os.kill(p, sig)
                except OSError:
                    pass
        end = time.monotonic() + wait
        while time.monotonic() < end and any(alive(p, s) for p, s in procs.items()):
            time.sleep(0.05)

signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
os.write(1, b"ready\n")
interval, look = FAST, 0.0
while True:
    ready, _, _ = select.select([0], [], [], FAST)       # the driver's end is seen at once, whatever the interval
    if ready and not os.read(0, 4096):                   # end of file: the driver is gone
        break
    now = time.monotonic()
    if now >= look:
        # processes appear in bursts (Ray's start, an actor's worker): look often right after one, then less and
        # less (walking the driver's descendants is what costs)
        interval = FAST if record() else min(interval * 1.5, SLOW)
        look = now + interval
    # the raylets' end (ray.shutdown) is looked for every FAST s, a cheap check: a driver that starts another
    # instance right after must not find this watchdog still running, to record that instance's processes as its own
    if raylets and not any(alive(p, s) for p, s in raylets.items()):
        stop(known)                                      # ray.shutdown ran: its agents, if they linger
        sys.exit(0)
record()                                                 # what started since the last look, where still attached
stop(known)
'''


_RUNNING: list = []       # the watchdogs of this driver: their pipes stay open as long as it runs
# how often the watchdog looks for the driver's new descendants: every FAST_S right after one appeared, then 1.5 times
# longer each time up to SLOW_S. It used to look every 0.25 s: 54.5 CPU-s over a 30-minute job (walking each process's
# threads' children files); the driver's own end is seen at once either way (the pipe)
FAST_S, SLOW_S = 0.25, 2.0


class Watchdog:
    """The watchdog process of this driver's local Ray instance (see the module's docstring)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", _WATCHDOG, str(os.getpid()), str(FAST_S), str(SLOW_S)],
                                     stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
                                     close_fds=True)
        self.proc.stdout.readline()          # its signal handlers are set: a kill of the driver now is seen
        _RUNNING[:] = [w for w in _RUNNING if w.proc.poll() is None] + [self]


def watched() -> bool:
    """Whether this process is a command line (peet_fast.cli.main without argv sets process_is_ours: the process
    ends with the command, so an interruption need not wait for Ray's teardown; a caller of the library keeps Ray's
    full shutdown) whose local Ray instance has a watchdog: running, or ended as it does once the instance's raylet
    is gone (after stopping what was left). A signal to the whole process group ends the raylet too, so by the time
    the driver handles it the watchdog may have ended: the driver must still not wait for Ray's teardown."""
    cli = sys.modules.get("peet_fast.cli")
    return getattr(cli, "process_is_ours", False) and any(w.proc.poll() in (None, 0) for w in _RUNNING)


def start_watchdog() -> Watchdog | None:
    """Start the watchdog (Linux only: it reads /proc), or return the one running; None where it cannot run."""
    if not os.path.isdir("/proc/self/task"):
        return None
    running = [w for w in _RUNNING if w.proc.poll() is None]
    if running:
        return running[-1]
    try:
        return Watchdog()
    except OSError:
        return None
