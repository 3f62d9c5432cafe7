"""A watch on the head of the Ray cluster a job joined (used by jobs.ray; imports no Ray): HeadWatch probes the
head's GCS address with a TCP connection every PROBE_S seconds in a daemon thread, and records the head as lost
once no probe has connected for HEAD_LOST_S seconds (PEET_FAST_RAY_HEAD_LOST_S overrides it).

Why: when the head's GCS and raylet die under a job, Ray's core worker in the driver keeps trying to reconnect for
60 s (its gcs_rpc_server_reconnect_timeout_s) and then ends the process with exit status 1 and no line on the
terminal (its reason only in Ray's log file), while the job's shards in flight are neither recorded nor kept. With
the watch, the driver's dispatch loop (jobs.raypool) sees the loss within HEAD_LOST_S + PROBE_S of it and stops the
job in one line of ours (JobStopped, exit 2, its finished shards recorded). A probe costs one connect and close:
nothing is spent waiting but a sleeping thread. At the first probe that fails, on_silent runs: jobs.ray stops Ray's
thread that listens for the errors the GCS pushes to the driver, which spins on a CPU (~0.6 of a core measured)
while the GCS is gone."""
from __future__ import annotations

import os
import socket
import threading
import time
from typing import Callable

PROBE_S = 1.0
LOST: list[str] = []     # the heads lost under a job of this process (it stays connected: jobs.raystart)


def _head_lost_s(default: float = 10.0) -> float:
    """PEET_FAST_RAY_HEAD_LOST_S where it is a positive number of seconds, else the default (10)."""
    try:
        value = float(os.environ.get("PEET_FAST_RAY_HEAD_LOST_S", default))
    except ValueError:
        return default
    return value if 0 < value < float("inf") else default


HEAD_LOST_S = _head_lost_s()


def probe(host: str, port: int, timeout: float) -> str | None:
    """Why a TCP connection to host:port fails (the OS's words), or None where it connects."""
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        return exc.strerror or str(exc) or type(exc).__name__
    return None


def host_port(address: str) -> tuple[str, int] | None:
    """(host, port) of a GCS address HOST:PORT (ray://HOST:PORT too); None where it has no such form."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


class HeadWatch:
    """Watches the head at `address` (HOST:PORT) from a daemon thread: `lost` is None while it answers, and once no
    probe has connected for `lost_after` seconds, why the last one failed (it is then set for good: the thread
    ends). stop() ends the watch."""

    def __init__(self, address: str, lost_after: float = HEAD_LOST_S, every: float = PROBE_S,
                 on_silent: Callable[[], None] | None = None):
        self.address = address
        self.on_silent = on_silent      # called once, at the first probe that fails
        self.lost_after = lost_after
        self.lost: str | None = None
        self._target = host_port(address)
        self._every = every
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="peet-fast-ray-head", daemon=True)
        if self._target is not None:
            self._thread.start()

    def _watch(self) -> None:
        answered = time.monotonic()
        while not self._stopped.wait(self._every):
            why = probe(*self._target, timeout=min(2.0, self.lost_after))
            now = time.monotonic()
            if why is None:
                answered = now
                continue
            self._silent()
            if now - answered >= self.lost_after:
                self.lost = why
                return

    def answers(self) -> bool:
        """Whether the head answers a probe within lost_after seconds (probing every `every` seconds, asleep in
        between): asked where something else suggests it is gone (an actor lost), before asking its GCS anything,
        which would wait for it. Where it does not answer, lost is set."""
        if self._target is None:
            return True
        end = time.monotonic() + self.lost_after
        while self.lost is None:
            why = probe(*self._target, timeout=min(2.0, self.lost_after))
            if why is None:
                return True
            self._silent()
            if time.monotonic() >= end:
                self.lost = why
            else:
                self._stopped.wait(self._every)
        return False

    def _silent(self) -> None:
        callback, self.on_silent = self.on_silent, None
        if callback is not None:
            callback()

    def stop(self) -> None:
        self._stopped.set()
