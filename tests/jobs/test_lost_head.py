"""A lost head (issue 41): a featurize job joins a real `ray start --head` of 2 CPUs (this test's own: its own Ray temp
directory and ports, its processes tagged and stopped by the tag; no other Ray on the machine is joined or stopped)
without --workers, so it runs one actor per CPU of the cluster and says so in its progress lines. Once shards are in
its manifest and a progress line was shown, the head's gcs_server, raylet and workers are killed (kill -9, as a lost
machine).
The command then says one line of ours (what was lost, how many shards are kept, that the same command resumes),
exits 2, and leaves every part file on disk recorded in its manifest (Ray's core worker used to end it after 60 s
with exit 1 and no line, a part on disk unrecorded). A new head is started and the job resumes on it: its output is
that of --workers 1.

Every wait is on an event (the manifest's shards, a progress line, the command's exit), each under a generous
ceiling against a hang; nothing is timed."""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest
from conftest import FIXTURES, RAY_TAG, SPACY_MODEL, stop_tagged, tagged_pids

pytest.importorskip("ray")
REPO = Path(__file__).resolve().parents[2]
CEILING = 600          # seconds: a guard against a hang, never a timing


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_head(ray_exe: str, env: dict, *options: str) -> tuple[int, subprocess.Popen | None]:
    """A `ray start --head` of 2 CPUs on free ports (another Ray on the machine holds the defaults), with these
    options; its GCS port, and with --block the `ray start` process (running: it holds the head's processes)."""
    port = free_port()
    ports = [f"--{name}-port={free_port()}" for name in ("dashboard-agent-listen", "dashboard-agent-grpc",
                                                         "metrics-export", "runtime-env-agent", "ray-client-server",
                                                         "node-manager", "object-manager")]
    cmd = [ray_exe, "start", "--head", f"--port={port}", "--include-dashboard=false", "--num-cpus=2",
           "--disable-usage-stats", *ports, *options]
    if "--block" not in options:
        start = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=CEILING)
        assert start.returncode == 0, start.stderr[-2000:]
        return port, None
    head = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    said = []
    for line in head.stdout:          # (ends where it fails: the assertion shows why)
        said.append(line)
        if "Ray runtime started" in line:
            break
    assert head.poll() is None, "".join(said)[-2000:]
    threading.Thread(target=head.stdout.read, daemon=True).start()      # (its pipe never fills)
    return port, head


def kill_head(tag: str) -> list[str]:
    """kill -9 of the tagged head's gcs_server, raylet and Ray workers (the job's actors) at once: the head machine
    lost, no graceful end. (Workers whose raylet is gone keep computing until their own GCS timeout, a minute: on a
    fast machine they had finished the job before it saw its head gone.) The names of the head's processes killed."""
    killed = []
    for pid in tagged_pids(tag):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                program = fh.read().split(b"\0")[0]
        except OSError:
            continue
        if program.endswith((b"/gcs_server", b"/raylet")) or program.startswith(b"ray::"):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            if not program.startswith(b"ray::"):
                killed.append(os.path.basename(program.decode()))
    return sorted(killed)


def recorded(job: Path) -> list[str]:
    try:
        return [e["file"] for e in json.loads((job / "_manifest.json").read_text())["shards"]]
    except (OSError, ValueError, KeyError):
        return []


def test_a_lost_head_is_one_line_exit_2_its_shards_recorded_and_the_job_resumes(tmp_path):
    import pyarrow.parquet as pq

    from peet_fast.cli import main

    ray_exe = os.path.join(os.path.dirname(sys.executable), "ray")
    if not os.path.exists(ray_exe):
        pytest.skip("the ray command is not installed beside this Python")
    rows = [line.split("\t") for line in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if line]
    rows = (rows * 5)[:2000]           # 100 shards of 20 rows: the job is far from done when its head goes
    (tmp_path / "mo.txt").write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    (tmp_path / "trg.txt").write_text("".join(r[1] + "\n" for r in rows), "utf-8")
    args = ["featurize", "--hyp", "mo.txt", "--ref", "trg.txt", "--shard-rows", "20", "--no-cache",
            "--spacy-model", SPACY_MODEL]

    ray_tmp = tempfile.mkdtemp(prefix="rt", dir="/tmp")     # short: Ray's socket paths under it are limited
    tag = uuid.uuid4().hex
    env = dict(os.environ, PYTHONPATH=str(REPO), RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0",
               RAY_TMPDIR=ray_tmp, PEET_FAST_PROGRESS_INTERVAL="0.5", **{RAY_TAG: tag})
    env.pop("RAY_ADDRESS", None)
    job = tmp_path / "job"
    try:
        # a head started with its own temp dir: `ray start` records it there, so --ray-address auto (Ray's default
        # temp dir: RAY_TMPDIR here) says so, and where it looked, instead of that no cluster was started
        port, _ = start_head(ray_exe, env, f"--temp-dir={ray_tmp}/h")
        assert (Path(ray_tmp) / "h" / "ray_current_cluster").read_text().strip().endswith(f":{port}")
        auto = subprocess.run([sys.executable, "-m", "peet_fast.cli", *args, "--out", "auto", "--ray-address",
                               "auto"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=CEILING)
        assert auto.returncode == 1 and auto.stderr.splitlines() == [
            f"peet-fast featurize: error: --ray-address auto: no Ray cluster is recorded in {ray_tmp}/ray/"
            f"ray_current_cluster (where `ray start` records the cluster it starts; one started with `ray start "
            f"--temp-dir DIR` is recorded in DIR instead: give its address, HOST:PORT) and RAY_ADDRESS is not set (a "
            f"local Ray instance another run started for itself is never joined); to run on this machine instead, "
            f"give --workers N without --ray-address"], auto.stderr[-2000:]
        cmd = [sys.executable, "-m", "peet_fast.cli", *args, "--out", "job", "--ray-address", f"127.0.0.1:{port}"]
        run = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
        lines: list[str] = []
        progress = threading.Event()

        def read() -> None:
            for line in run.stderr:
                lines.append(line.rstrip("\n"))
                if line.startswith("featurize ("):
                    progress.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        end = time.monotonic() + CEILING
        while run.poll() is None and time.monotonic() < end and not (progress.is_set() and len(recorded(job)) >= 3):
            time.sleep(0.1)
        assert run.poll() is None, f"the job ended before its head was killed: {lines[-5:]}"
        assert kill_head(tag) == ["gcs_server", "raylet"]
        run.wait(timeout=CEILING)
        reader.join(timeout=CEILING)

        # one line of ours, exit 2; the progress lines said where the workers run
        said = [ln for ln in lines if not ln.startswith("featurize (")]
        kept = len(recorded(job))
        assert run.returncode == 2, lines[-20:]
        assert len(said) == 1 and re.fullmatch(
            rf"peet-fast featurize: error: the Ray cluster's head at \S+:{port} was lost \(its GCS has not answered "
            rf"for 10 s: [^)]+\); its workers are gone with it; {kept} finished shards are kept: run the same "
            rf"command again to resume", said[0]), said
        # the progress lines with a count (a heartbeat, "featurize (0:00:01 so far)", may come before the job starts)
        shown = [ln for ln in lines
                 if ln.startswith("featurize (") and not re.fullmatch(r"featurize \([0-9:]+ so far\)", ln)]
        assert shown[0].startswith(f"featurize (2 workers: one per CPU of the cluster at "), shown[0]
        # every part file on disk is in the manifest (and only those), and the job is not complete
        parts = sorted(p.name for p in job.glob("part-*.parquet"))
        assert kept >= 3 and sorted(recorded(job)) == parts
        assert not json.loads((job / "_manifest.json").read_text())["complete"]

        # a new head: the same job resumes there (its address is another: a job's output does not depend on it)
        # (started with --block: a SIGTERM to its `ray start` stops this head's processes and no other Ray's, as
        # docs/jobs.md tells a user on a shared machine)
        assert stop_tagged(tag) == []
        port, head = start_head(ray_exe, env, "--block")
        again = subprocess.run([*cmd[:-1], f"127.0.0.1:{port}"], cwd=tmp_path, env=env, capture_output=True,
                               text=True, timeout=CEILING)
        assert again.returncode == 0, again.stderr[-3000:]
        assert f"job: {kept} of 100 shards already done, reused" in again.stderr
        head.send_signal(signal.SIGTERM)
        head.wait(timeout=CEILING)
        end = time.monotonic() + CEILING
        while tagged_pids(tag) and time.monotonic() < end:
            time.sleep(0.2)
        assert tagged_pids(tag) == []
    finally:
        left = stop_tagged(tag)
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert left == [], f"the test's Ray processes did not stop: {left}"
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path)
        assert main([*args, "--out", "one"]) == 0
    finally:
        os.chdir(cwd)
    assert pq.read_table(job).equals(pq.read_table(tmp_path / "one"))
