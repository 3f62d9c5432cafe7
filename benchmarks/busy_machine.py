"""The same sharded featurize job on a quiet machine and beside CPU-bound processes (issue 33).

    python benchmarks/busy_machine.py [--pairs N] [--workers W] [--interrupt-at S] [--hogs K] [--seed S] [--json]

Workload: N synthetic GEC pairs (as benchmarks/scaling.py makes them: peet_fast.en.synth over the distinct sentences
of the shared peet/*/*_EC.txt, else the fixture's), then the command a user runs,
`peet-fast featurize --mo mo.txt --trg trg.txt --out DIR --workers W --no-cache --quiet` (shards sized as the job
runs; PEET_FAST_RAY_MIN_SENTENCES=0, so that a small N still runs on Ray), in a process group of its own, as a
terminal starts it. Two scenarios, side by side: "quiet" (nothing of ours beside it) and "busy" (K processes
spinning on the CPU, started before the job and stopped after it). In each, two runs:

  - a full run: time to the first finished shard (its part file appears), throughput (pairs / wall time of the
    whole command, Ray's start and stop included), the CPU share of the driver and of each Ray actor (CPU seconds /
    wall time, from /proc: the processes descending from the command), and the same while each process lived (an
    actor starts once Ray is up; when is reported too);
  - an interrupted run: SIGINT to the command's process group (what Ctrl-C does) at --interrupt-at seconds: the
    shards (and rows) it kept, its stop latency (SIGINT to exit), the processes of its session still alive 1 s and
    5 s after it exited (then killed).

Defaults are small enough for a few minutes on a 2-core machine; figures depend on what else the machine runs (its
load average is reported before each scenario). Timings never fail: exit 1 only where a run fails (exit status
other than 0, or other than 130 for the interrupted runs).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(os.path.abspath(__file__)).parent.parent     # (not resolved: run through a link, its tree)
TICK = os.sysconf("SC_CLK_TCK")
POLL_S = 0.05


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def processes() -> dict[int, tuple[int, int, float, str, float]]:
    """pid -> (parent pid, session id, CPU seconds (user + system), comm, age in seconds) of every process, from
    /proc."""
    with open("/proc/uptime") as fh:
        uptime = float(fh.read().split()[0])
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                raw = fh.read()
        except OSError:
            continue
        comm = raw[raw.index("(") + 1:raw.rindex(")")]
        f = raw[raw.rindex(")") + 2:].split()
        out[int(entry)] = (int(f[1]), int(f[3]), (int(f[11]) + int(f[12])) / TICK, comm, uptime - int(f[19]) / TICK)
    return out


class Tree:
    """The CPU seconds of a command's processes (the command and its descendants), sampled: the largest value seen
    of each (a process that exits keeps its last)."""

    def __init__(self, root: int):
        self.root = root
        self.cpu: dict[int, float] = {}
        self.comm: dict[int, str] = {}
        self.age: dict[int, float] = {}

    def sample(self) -> None:
        table = processes()
        for pid, (_, _, cpu, comm, age) in table.items():
            p = pid
            while p not in (self.root, 0, 1) and p in table:
                p = table[p][0]
            if p == self.root:
                self.cpu[pid] = max(self.cpu.get(pid, 0.0), cpu)
                self.comm[pid] = comm
                self.age[pid] = age

    def driver_s(self) -> float:
        return self.cpu.get(self.root, 0.0)

    def actors(self) -> list[int]:
        return sorted((pid for pid in self.cpu if self.comm[pid].startswith("ray::_Shard")), key=self.cpu.get,
                      reverse=True)

    def others_s(self) -> float:
        return sum(s for pid, s in self.cpu.items()
                   if pid != self.root and not self.comm[pid].startswith("ray::_Shard"))


def run(argv: list[str], out: str, env: dict, interrupt_at: float | None) -> dict:
    """Run the command once (interrupted at interrupt_at seconds where given) and measure it."""
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    tree = Tree(proc.pid)
    first = signalled = None
    last_sample = 0.0
    while proc.poll() is None:
        now = time.monotonic()
        if first is None and os.path.isdir(out) and any(n.startswith("part-") for n in os.listdir(out)):
            first = now - t0
        if now - last_sample >= 0.25:
            tree.sample()
            last_sample = now
        if interrupt_at is not None and signalled is None and now - t0 >= interrupt_at:
            os.killpg(proc.pid, signal.SIGINT)
            signalled = now
        time.sleep(POLL_S)
    ended = time.monotonic()
    err = proc.stderr.read() if proc.stderr else ""
    time.sleep(1.0)
    left = [pid for pid, (_, sid, *_) in processes().items() if sid == proc.pid]
    time.sleep(4.0 if left else 0.0)
    still = [pid for pid, (_, sid, *_) in processes().items() if sid == proc.pid]
    for pid in still:                   # (reported, then stopped: a benchmark leaves nothing behind either)
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    wall = ended - t0
    res = {"exit": proc.returncode, "wall_s": round(wall, 2),
           "first_shard_s": None if first is None else round(first, 2),
           "driver_cpu_share": round(tree.driver_s() / wall, 3),
           "actor_cpu_shares": [round(tree.cpu[a] / wall, 3) for a in tree.actors()],
           # while each lived (an actor starts once Ray is up; the driver computes from the start)
           "driver_cpu_share_alive": round(tree.driver_s() / max(tree.age.get(proc.pid, wall), 1e-9), 3),
           "actor_cpu_shares_alive": [round(tree.cpu[a] / max(tree.age[a], 1e-9), 3) for a in tree.actors()],
           "actor_start_s": [round(wall - tree.age[a], 1) for a in tree.actors()],
           "ray_daemons_cpu_s": round(tree.others_s(), 1), "left_after_1s": len(left), "left_after_5s": len(still),
           "stderr_tail": err.strip().splitlines()[-1:] if err.strip() else []}
    if interrupt_at is not None:
        manifest = os.path.join(out, "_manifest.json")
        kept = json.load(open(manifest, encoding="utf-8"))["shards"] if os.path.exists(manifest) else []
        res.update({"interrupted_at_s": interrupt_at if signalled else None,
                    "stop_latency_s": round(ended - signalled, 2) if signalled else None,
                    "shards_kept": len(kept), "rows_kept": sum(e["stop"] - e["start"] for e in kept)})
    return res


def scenario(name: str, hogs: int, argv, out_dir: str, env: dict, pairs: int, interrupt_at: float) -> dict:
    # each in a session of its own, as other users' jobs are: with the kernel's autogroup scheduling (on by default),
    # CPU time is shared between sessions first, so K spinners in one session would weigh as one
    spinning = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
                for _ in range(hogs)]
    try:
        time.sleep(1.0 if hogs else 0.0)
        res = {"name": name, "cpu_bound_beside": hogs, "load_average": [round(x, 2) for x in os.getloadavg()]}
        log(f"[{name}] full run ...")
        full = os.path.join(out_dir, f"{name}-full")
        res["full"] = run([*argv, full], full, env, None)
        res["full"]["pairs_per_s"] = round(pairs / res["full"]["wall_s"], 1)
        log(f"[{name}] interrupted run (SIGINT at {interrupt_at:g} s) ...")
        cut = os.path.join(out_dir, f"{name}-interrupted")
        res["interrupted"] = run([*argv, cut], cut, env, interrupt_at)
        return res
    finally:
        for p in spinning:
            p.kill()
            p.wait()


def report(res: dict) -> None:
    cols = res["scenarios"]
    rows = [
        ("load average (1 min) before", lambda s: f"{s['load_average'][0]:.1f}"),
        ("time to the first finished shard", lambda s: _s(s["full"]["first_shard_s"])),
        (f"shards kept by SIGINT at {res['interrupt_at_s']:g} s",
         lambda s: f"{s['interrupted']['shards_kept']} ({s['interrupted']['rows_kept']:,} rows)"),
        ("stop latency after SIGINT", lambda s: _s(s["interrupted"].get("stop_latency_s"))),
        ("its processes alive 1 s / 5 s after exit",
         lambda s: f"{s['interrupted']['left_after_1s']} / {s['interrupted']['left_after_5s']}"),
        ("throughput (whole command)", lambda s: f"{s['full']['pairs_per_s']:.1f} pairs/s"),
        ("wall time (whole command)", lambda s: _s(s["full"]["wall_s"])),
        ("driver CPU share", lambda s: f"{s['full']['driver_cpu_share']:.2f}"),
        ("each actor's CPU share", lambda s: " ".join(f"{x:.2f}" for x in s["full"]["actor_cpu_shares"]) or "-"),
        ("driver / actors, while alive", lambda s: " ".join(
            f"{x:.2f}" for x in [s["full"]["driver_cpu_share_alive"], *s["full"]["actor_cpu_shares_alive"]])),
        ("actors up at", lambda s: " ".join(_s(x) for x in s["full"]["actor_start_s"]) or "-"),
    ]
    names = [c["name"] + (f" (+{c['cpu_bound_beside']} spinning)" if c["cpu_bound_beside"] else "") for c in cols]
    head = f"{'':36}" + "".join(f"{n:>26}" for n in names)
    log(f"featurize, {res['pairs']:,} pairs, --workers {res['workers']}, {res['cpus']} CPUs")
    log(head)
    for label, fn in rows:
        log(f"{label:36}" + "".join(f"{fn(c):>26}" for c in cols))


def _s(v) -> str:
    return "-" if v is None else f"{v:.1f} s"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=4000, metavar="N")
    ap.add_argument("--workers", type=int, default=2, metavar="W")
    ap.add_argument("--interrupt-at", type=float, default=30.0, metavar="S")
    ap.add_argument("--hogs", type=int, default=2, metavar="K", help="CPU-bound processes beside the busy runs")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON on stdout")
    args = ap.parse_args(argv)
    if args.pairs < 1 or args.workers < 1 or args.hogs < 0 or args.interrupt_at <= 0:
        ap.error("--pairs and --workers must be at least 1, --hogs at least 0, --interrupt-at positive")
    from _parse_cache import private_cache   # benchmarks/ is sys.path[0] when run as a script
    from scaling import sentences, write_pairs

    cache = private_cache()
    from peet_fast.en.synth import synthesize

    source, sents = sentences()
    tmp = tempfile.mkdtemp(prefix="peet-fast-busy-")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "PEET_FAST_RAY_MIN_SENTENCES": "0", "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    try:
        mo, trg = write_pairs(synthesize(sents, args.pairs, args.seed), args.pairs, tmp)
        cmd = [sys.executable, "-m", "peet_fast.cli", "featurize", "--mo", mo, "--trg", trg, "--workers",
               str(args.workers), "--no-cache", "--quiet", "--out"]
        res = {"source": source, "pairs": args.pairs, "workers": args.workers, "cpus": os.cpu_count(),
               "interrupt_at_s": args.interrupt_at, "scenarios": []}
        for name, hogs in (("quiet", 0), ("busy", args.hogs)):
            res["scenarios"].append(scenario(name, hogs, cmd, tmp, env, args.pairs, args.interrupt_at))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report(res)
    failed = [f"{s['name']} {k}: exit {s[k]['exit']}" for s in res["scenarios"] for k in ("full", "interrupted")
              if s[k]["exit"] not in ((0,) if k == "full" else (0, 130))]
    for line in failed:
        log(f"failed: {line}")
    if args.json:
        res["parse_cache"] = {**cache, "note": "off in every run (--no-cache)"}
        print(json.dumps(res, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
