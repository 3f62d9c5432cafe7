"""A featurize job whose cluster head is lost mid-job (issue 41): how long the command takes to stop after the loss,
its exit status and line, the CPU its process used meanwhile, and whether every part file on disk is in its manifest.

    python benchmarks/lost_head.py [--pairs N] [--shard-rows R] [--after K] [--workers-too]

A `ray start --head` of 2 CPUs of its own (its own temp directory and free ports; its processes found by a tag in
their environment and stopped at the end, never `ray stop`), `peet-fast featurize --ray-address 127.0.0.1:PORT`
without --workers (one actor per CPU) on N pairs of the test fixture's sample (repeated), and once K shards are in
the manifest, kill -9 of the head's gcs_server and raylet (--workers-too: and its Ray workers, as a machine lost).
Reported as one JSON line. tests/jobs/test_lost_head.py checks the behaviour; this measures it."""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TAG = "PEET_FAST_BENCH_RAY"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tagged(tag: str) -> list[int]:
    needle = f"{TAG}={tag}".encode()
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                if needle in fh.read().split(b"\0"):
                    found.append(int(pid))
        except OSError:
            continue
    return found


def program(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().split(b"\0")[0]
    except OSError:
        return b""


def cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--shard-rows", type=int, default=20)
    ap.add_argument("--after", type=int, default=3, help="kill the head once this many shards are recorded")
    ap.add_argument("--workers-too", action="store_true", help="kill the head's Ray workers too")
    opts = ap.parse_args()
    rows = [ln.split("\t") for ln in (REPO / "tests/fixtures/en_pairs.tsv").read_text("utf-8").split("\n") if ln]
    rows = (rows * (opts.pairs // len(rows) + 1))[:opts.pairs]
    work = Path(tempfile.mkdtemp(prefix="lost-head-"))
    ray_tmp = tempfile.mkdtemp(prefix="rt", dir="/tmp")
    tag = uuid.uuid4().hex
    (work / "mo.txt").write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    (work / "trg.txt").write_text("".join(r[1] + "\n" for r in rows), "utf-8")
    env = dict(os.environ, PYTHONPATH=str(REPO), RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0",
               RAY_TMPDIR=ray_tmp, **{TAG: tag})
    env.pop("RAY_ADDRESS", None)
    ray_exe = os.path.join(os.path.dirname(sys.executable), "ray")
    port = free_port()
    ports = [f"--{n}-port={free_port()}" for n in ("dashboard-agent-listen", "dashboard-agent-grpc",
                                                   "metrics-export", "runtime-env-agent", "ray-client-server",
                                                   "node-manager", "object-manager")]
    try:
        subprocess.run([ray_exe, "start", "--head", f"--port={port}", "--include-dashboard=false", "--num-cpus=2",
                        "--disable-usage-stats", *ports], env=env, check=True, capture_output=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        run = subprocess.Popen([sys.executable, "-m", "peet_fast.cli", "featurize", "--hyp", "mo.txt", "--ref",
                                "trg.txt", "--out", "job", "--ray-address", f"127.0.0.1:{port}", "--shard-rows",
                                str(opts.shard_rows), "--no-cache", "--quiet"], cwd=work, env=env,
                               stderr=subprocess.PIPE, text=True)
        manifest = work / "job" / "_manifest.json"
        while run.poll() is None:
            try:
                if len(json.loads(manifest.read_text())["shards"]) >= opts.after:
                    break
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.1)
        at_kill = cpu_s(run.pid)
        for pid in tagged(tag):
            name = program(pid)
            if name.endswith((b"/gcs_server", b"/raylet")) or opts.workers_too and name.startswith(b"ray::"):
                os.kill(pid, signal.SIGKILL)
        killed = time.monotonic()
        err = run.communicate()[1]
        stopped = time.monotonic() - killed
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        recorded = sorted(e["file"] for e in json.loads(manifest.read_text())["shards"])
        on_disk = sorted(p.name for p in (work / "job").glob("part-*.parquet"))
        print(json.dumps({"exit": run.returncode, "stopped_after_s": round(stopped, 1),
                          "cpu_s_after_loss": round(used - at_kill, 2), "lines": err.splitlines(),
                          "shards_kept": len(recorded), "parts_all_recorded": recorded == on_disk}))
    finally:
        for pid in tagged(tag):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(ray_tmp, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
