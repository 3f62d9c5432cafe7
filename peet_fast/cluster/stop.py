"""Stop one Ray cluster's own processes on this machine, and nothing else: `python -m peet_fast.cluster.stop NAME`.

`ray stop` stops every Ray process of the machine (another user's head, a test suite's local instance) and has no
option to name one cluster. The example cluster YAML starts Ray with `PEET_FAST_CLUSTER=NAME` in the environment of
`ray start`; every process Ray starts from it (GCS, raylet, dashboard, log monitor, autoscaler, workers, the drivers
of `ray job submit`) inherits that variable, so they are found by it in /proc/PID/environ (only the processes of this
user can be read, and stopped). SIGTERM first, SIGKILL to what is left after the grace period. Exit 0 when none is
left (none found included), 1 otherwise (each one left named)."""
from __future__ import annotations

import argparse
import os
import signal
import sys
import time

TAG = "PEET_FAST_CLUSTER"


def _ancestors() -> set[int]:
    """This process and its ancestors (a shell that exported the tag itself is never stopped)."""
    found, pid = set(), os.getpid()
    while pid > 1 and pid not in found:
        found.add(pid)
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                pid = int(fh.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            break
    return found


def cluster_pids(name: str) -> list[int]:
    """The live processes whose environment holds PEET_FAST_CLUSTER=name (zombies left out: nothing to stop)."""
    needle, skip, found = f"{TAG}={name}".encode(), _ancestors(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in skip:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if needle not in fh.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/stat", "rb") as fh:
                if fh.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue
        except (OSError, IndexError):
            continue
        found.append(int(entry))
    return found


def _send(sig: int, pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def stop_cluster(name: str, grace: float = 10.0, ceiling: float = 60.0) -> list[int]:
    """SIGTERM to the cluster's processes, SIGKILL to those left after `grace` seconds; the pids still alive after
    `ceiling` seconds (a guard against a hang)."""
    left = cluster_pids(name)
    _send(signal.SIGTERM, left)
    start = time.monotonic()
    killed = False
    while left and time.monotonic() - start < ceiling:
        time.sleep(0.2)
        left = cluster_pids(name)
        if left and not killed and time.monotonic() - start > grace:
            _send(signal.SIGKILL, left)
            killed = True
    return left


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m peet_fast.cluster.stop", description=__doc__.split("\n")[0])
    parser.add_argument("name", help="the cluster's name: the value of PEET_FAST_CLUSTER its `ray start` was given")
    parser.add_argument("--grace", type=float, default=10.0, help="seconds between SIGTERM and SIGKILL (default 10)")
    args = parser.parse_args(argv)
    if not args.name.strip():
        parser.error("the cluster's name is empty")
    found = len(cluster_pids(args.name))
    left = stop_cluster(args.name, grace=args.grace)
    if left:
        print(f"peet-fast cluster {args.name}: {len(left)} of its processes did not stop: pids "
              f"{' '.join(map(str, left))}", file=sys.stderr)
        return 1
    print(f"peet-fast cluster {args.name}: stopped {found} process{'es' if found != 1 else ''} of its Ray "
          f"(no other Ray on this machine touched)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
