"""The CPU the local Ray instance's watchdog (peet_fast.jobs.raywatch) costs: a driver holds a local instance
(raystart.init_ray(1, None)) and stays idle; the watchdog's utime + stime (/proc/PID/stat) over SECONDS of that.

    python benchmarks/watchdog_cpu.py [SECONDS]       # default 60

Issue 33: 0.82-0.86 CPU-s over 60 s (1.4 % of one CPU) when it looked every 0.25 s; 0.09-0.12 CPU-s (0.15-0.20 %)
looking every 0.25 s after a new process and backing off to every 2 s (load average 12-14 on the 2-core machine).
Within a job (featurize --workers 2, 8,000 fixture lines, ~50 s at load 10-12, the CPU of every process of the job
summed from /proc): 0.82 CPU-s = 3.7 % of the job's CPU looking every 0.25 s, 0.11 CPU-s = 0.56 % now; the share
falls as a job runs longer (the frequent looks are those of Ray's start)."""
from __future__ import annotations

import os
import subprocess
import sys
import time

HOLDER = ("import sys\nfrom peet_fast.jobs.raystart import init_ray\ninit_ray(1, None)\nprint('up', flush=True)\n"
          "sys.stdin.read()\n")


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def watchdog_of(driver: int) -> int:
    """The watchdog runs in a session of its own: found by its command line, which names the driver's pid."""
    found = []
    for d in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{d}/cmdline", errors="replace") as fh:
                cmd = fh.read().split("\0")
        except OSError:
            continue
        if len(cmd) > 3 and "driver = int(sys.argv[1])" in cmd[2] and cmd[3] == str(driver):
            found.append(int(d))
    assert len(found) == 1, found
    return found[0]


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    env = dict(os.environ, RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0")
    env.pop("RAY_ADDRESS", None)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env=env)
    try:
        assert holder.stdout.readline().strip() == "up"
        wd = watchdog_of(holder.pid)
        time.sleep(3)                       # Ray's start is over
        a, t = cpu_seconds(wd), time.monotonic()
        time.sleep(seconds)
        b, u = cpu_seconds(wd), time.monotonic()
        print(f"watchdog: {b - a:.2f} CPU-s over {u - t:.1f} s idle ({100 * (b - a) / (u - t):.2f} % of one CPU)")
    finally:
        holder.stdin.close()
        holder.wait(timeout=120)


if __name__ == "__main__":
    main()
