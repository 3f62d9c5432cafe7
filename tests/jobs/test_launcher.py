"""The cluster as its users launch it (issue 41, points 1 and 5): peet_fast/cluster/example-cluster.yaml started by
Ray's own launcher, `ray up`, on the local ("on-prem") provider over SSH to 127.0.0.1, a featurize job through
`ray submit` (peet_fast/cluster/submit.py) and one through `ray job submit` (a source checkout without its compiled
kernels as --working-dir; a relative --out refused), both equal to `peet-fast featurize --workers 1`, then `ray down`,
after which none of the cluster's processes is left.

Everything is this test's own: Debian's sshd on a free loopback port (its own config, host key, client key and pid
file in a temporary directory; its sessions' HOME a temporary directory, so nothing is written to root's home), the
cluster's Ray temporary directory and ports, its token. `ray` and `rsync` reach the port through an `ssh` first on
their PATH that reads this test's ssh config (Ray's SSH runner has no port option). Ray's default start commands and
`ray down` run `ray stop` (every Ray of the machine: the suite's shared instance, another user's): the YAML's own
commands stop only the processes tagged with the cluster's name (peet_fast.cluster.stop), which this test checks.
The one skip: sshd (or ssh, rsync) missing, not root, or sshd that will not start (its reason shown)."""
from __future__ import annotations

import getpass
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from conftest import FIXTURES, SPACY_MODEL

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "peet_fast" / "cluster" / "example-cluster.yaml"
BINDIR = os.path.dirname(sys.executable)
SSHD = "/usr/sbin/sshd"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(cmd, env, timeout=900, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, **kw)


def start_sshd(tmp: Path) -> tuple[int, int]:
    """(port, pid) of an sshd of this test's own; pytest.skip with the reason where it cannot start."""
    for tool in (SSHD, shutil.which("ssh"), shutil.which("rsync"), shutil.which("ssh-keygen")):
        if not tool or not os.path.exists(tool):
            pytest.skip(f"openssh-server, openssh-client and rsync are needed ({tool or 'ssh/rsync'} is missing)")
    if os.geteuid() != 0:
        pytest.skip("sshd is started as root (it changes to the logged-in user); this is not root")
    for name in ("host", "client"):
        made = run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp / name)], None, timeout=60)
        if made.returncode:
            pytest.skip(f"ssh-keygen failed: {made.stderr.strip()}")
    shutil.copy(tmp / "client.pub", tmp / "authorized_keys")
    os.makedirs("/run/sshd", mode=0o755, exist_ok=True)     # sshd's privilege separation directory (Debian's)
    port = free_port()
    (tmp / "head").mkdir()
    (tmp / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {tmp / 'host'}\nPidFile {tmp / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {tmp / 'authorized_keys'}\nPubkeyAuthentication yes\nPasswordAuthentication no\n"
        f"KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\n"
        f"MaxStartups 100\nMaxSessions 100\nSetEnv HOME={tmp / 'head'}\n")
    started = run([SSHD, "-f", str(tmp / "sshd_config"), "-E", str(tmp / "sshd.log")], None, timeout=60)
    end = time.monotonic() + 30
    while started.returncode == 0 and not (tmp / "sshd.pid").exists() and time.monotonic() < end:
        time.sleep(0.1)
    if started.returncode or not (tmp / "sshd.pid").exists():
        log = (tmp / "sshd.log").read_text(errors="replace") if (tmp / "sshd.log").exists() else ""
        pytest.skip(f"sshd did not start: {(started.stderr + log).strip()[-500:]}")
    return port, int((tmp / "sshd.pid").read_text().split()[0])


def cluster_yaml(tmp: Path, name: str, port: int, ray_tmp: str, ports: dict[str, int]) -> Path:
    """The example YAML with this machine's head, SSH user and key; the install line replaced by a link to this
    Python's environment; its tag, Ray temporary directory and ports this test's own. Everything else as shipped."""
    import yaml

    config = yaml.safe_load(EXAMPLE.read_text())
    venv = os.path.dirname(BINDIR)

    def mine(command: str) -> str:
        command = command.replace("peet_fast.cluster.node peet-fast", f"peet_fast.cluster.node {name}")
        command = command.replace("peet_fast.cluster.stop peet-fast", f"peet_fast.cluster.stop {name}")
        command = command.replace("PEET_FAST_CLUSTER=peet-fast", f"PEET_FAST_CLUSTER={name}")
        command = command.replace("RAY_TMPDIR=/tmp/peet-fast-ray", f"RAY_TMPDIR={ray_tmp}")
        flags = " ".join(f"--{flag}={value}" for flag, value in ports.items())
        command = command.replace("--port=6379", f"{flags} --num-cpus=2")
        return command.replace("--dashboard-host=0.0.0.0", "--dashboard-host=127.0.0.1")

    install = [c for c in config["setup_commands"] if "pip install" in c]
    assert len(install) == 1, config["setup_commands"]
    config["setup_commands"] = [f"ln -sfn {venv} ~/peet-venv" if c in install else mine(c)
                                for c in config["setup_commands"]]
    config["head_start_ray_commands"] = [mine(c) for c in config["head_start_ray_commands"]]
    config["worker_start_ray_commands"] = [mine(c) for c in config["worker_start_ray_commands"]]
    config.update(cluster_name=name, max_workers=0,
                  provider={"type": "local", "head_ip": "127.0.0.1", "worker_ips": []},
                  auth={"ssh_user": "root", "ssh_private_key": str(tmp / "client")})
    path = tmp / "cluster.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def cluster_pids(name: str) -> list[int]:
    from peet_fast.cluster.stop import cluster_pids as found
    return found(name)


def alive(pid: int) -> bool:
    """Whether pid is a live process (a zombie is not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def stop_ours(marker: str) -> list[int]:
    """Stop the processes whose command line names `marker` (this test's temporary directory: the ssh clients Ray
    left as control masters, with their -i key, and their sshd sessions end with them); what is left after 30 s."""
    def ours() -> list[int]:
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != os.getpid():
                try:
                    with open(f"/proc/{entry}/cmdline", "rb") as fh:
                        if marker.encode() in fh.read() and alive(int(entry)):
                            found.append(int(entry))
                except OSError:
                    pass
        return found

    for pid in ours():
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    end = time.monotonic() + 30
    while ours() and time.monotonic() < end:
        time.sleep(0.2)
    return ours()


def descendants(pid: int) -> list[int]:
    """The live processes below pid (an sshd's sessions)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    parents[int(entry)] = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, todo = [], [pid]
    while todo:
        here = todo.pop()
        kids = [p for p, parent in parents.items() if parent == here]
        found += kids
        todo += kids
    return [p for p in found if alive(p)]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def table(path: Path) -> list[dict]:
    """A featurize output (one file, or a job's directory: its part files in row order) as rows."""
    import pyarrow.parquet as pq
    return pq.read_table(path).to_pylist()


def test_ray_up_submit_job_submit_down(tmp_path):
    pytest.importorskip("yaml")
    if not os.path.exists(os.path.join(BINDIR, "ray")):
        pytest.skip("the ray command is not installed beside this Python")
    tmp = Path(tempfile.mkdtemp(prefix="pl", dir="/tmp"))     # short: Ray's socket paths under it (107 bytes)
    name = f"peet-launcher-{uuid.uuid4().hex[:8]}"
    sshd_pid = bystander = None
    try:
        port, sshd_pid = start_sshd(tmp)
        # this test's ssh first on PATH (Ray's runner and rsync call `ssh`): the port from a config of its own
        (tmp / "ssh_config").write_text(f"Host 127.0.0.1\n  Port {port}\n")
        (tmp / "bin").mkdir()
        (tmp / "bin" / "ssh").write_text(f'#!/bin/sh\nexec {shutil.which("ssh")} -F {tmp / "ssh_config"} "$@"\n')
        (tmp / "bin" / "ssh").chmod(0o755)
        (tmp / "local").mkdir()
        (tmp / "launch").mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        env.update(PATH=f"{tmp / 'bin'}{os.pathsep}{BINDIR}{os.pathsep}{os.environ.get('PATH', '')}",
                   HOME=str(tmp / "local"), RAY_TMPDIR=str(tmp / "launch"), TMPDIR=str(tmp / "launch"),
                   RAY_AUTH_MODE="token",
                   RAY_USAGE_STATS_ENABLED="0")
        token = run(["ray", "get-auth-token", "--generate"], env, timeout=120)
        assert token.returncode == 0 and (tmp / "local" / ".ray" / "auth_token").exists(), token.stderr
        ray_tmp = str(tmp / "r")
        ports = {"port": free_port(), "dashboard-port": free_port(),
                 **{f"{p}-port": free_port() for p in ("dashboard-agent-listen", "dashboard-agent-grpc",
                                                        "metrics-export", "runtime-env-agent", "ray-client-server",
                                                        "node-manager", "object-manager")}}
        config = cluster_yaml(tmp, name, port, ray_tmp, ports)

        # the data, on "shared storage" (one machine: any absolute path), and the single-process reference
        rows = [ln for ln in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if ln][:60]
        data = tmp / "data"
        data.mkdir()
        (data / "pairs.tsv").write_text("mo\ttrg\n" + "".join(r + "\n" for r in rows), "utf-8")
        local = run([os.path.join(BINDIR, "peet-fast"), "featurize", "--pairs", str(data / "pairs.tsv"),
                     "--out", str(data / "local.parquet"), "--workers", "1", "--spacy-model", SPACY_MODEL],
                    dict(os.environ), timeout=600)
        assert local.returncode == 0, local.stderr[-2000:]
        expected = table(data / "local.parquet")

        # a stand-in for another user's Ray: a process named `raylet`, which a `ray stop` anywhere (Ray's default
        # start commands, `ray down`'s) would stop; it must outlive the whole cluster
        (tmp / "other").mkdir()
        shutil.copy(shutil.which("sleep"), tmp / "other" / "raylet")
        bystander = subprocess.Popen([str(tmp / "other" / "raylet"), "3600"])

        started = time.monotonic()
        up = run(["ray", "up", "-y", str(config)], env)
        assert up.returncode == 0, (up.stdout + up.stderr)[-4000:]
        assert cluster_pids(name), "ray up returned, but no process of the cluster runs"

        # `ray submit CLUSTER SCRIPT -- ARGS`: the shipped script, with peet-fast's arguments
        script = run([sys.executable, "-m", "peet_fast.cluster.submit", "--path"], env, timeout=120).stdout.strip()
        assert script == str(ROOT / "peet_fast" / "cluster" / "submit.py")
        submitted = run(["ray", "submit", str(config), script, "--", "featurize", "--pairs",
                         str(data / "pairs.tsv"), "--out", str(data / "by-submit"), "--workers", "2",
                         "--shard-rows", "20", "--spacy-model", SPACY_MODEL], env)
        assert submitted.returncode == 0, (submitted.stdout + submitted.stderr)[-4000:]
        assert table(data / "by-submit") == expected
        assert len(list((data / "by-submit").glob("part-*.parquet"))) == 3
        # a relative output path is refused, naming where it would land on the head
        relative = run(["ray", "submit", str(config), script, "--", "featurize", "--pairs",
                        str(data / "pairs.tsv"), "--out", "rel-out", "--spacy-model", SPACY_MODEL], env)
        assert relative.returncode != 0
        assert f"--out rel-out: a relative path" in relative.stdout + relative.stderr
        assert not (tmp / "head" / "rel-out").exists() and not Path("/root/rel-out").exists()

        # `ray job submit` with a source checkout (no compiled kernels) as the working dir: the installed package
        # wins; a relative input is read from the uploaded copy; a relative --out is refused in one line
        work = tmp / "checkout"
        shutil.copytree(ROOT / "peet_fast", work / "peet_fast",
                        ignore=shutil.ignore_patterns("*.so", "__pycache__", "*.c", "*.html"))
        shutil.copy(data / "pairs.tsv", work / "pairs.tsv")
        command = (f"peet-fast featurize --pairs pairs.tsv --out rel-out --spacy-model {SPACY_MODEL}; "
                   f"echo refused=$?; peet-fast featurize --pairs pairs.tsv --out {data / 'by-job'} "
                   f"--ray-address auto --workers 2 --shard-rows 20 --spacy-model {SPACY_MODEL}")
        end = time.monotonic() + 300
        while True:       # a busy machine: the head's job agent may not be up yet ("try again later")
            job = run(["ray", "job", "submit", f"--address=http://127.0.0.1:{ports['dashboard-port']}",
                       f"--working-dir={work}", "--", "sh", "-c", command], env)
            said = job.stdout + job.stderr
            if job.returncode == 0 or "No available agent" not in said or time.monotonic() > end:
                break
            time.sleep(2)
        assert job.returncode == 0, said[-4000:]
        assert "refused=2" in said, said[-4000:]
        assert "--out rel-out: a relative path inside a Ray job's working directory" in said, said[-4000:]
        assert "Traceback" not in said, said[-4000:]
        assert table(data / "by-job") == expected

        down = run(["ray", "down", "-y", str(config)], env)
        assert down.returncode == 0, (down.stdout + down.stderr)[-4000:]
        # `ray down` runs `ray stop` on the head: the YAML's `ray` makes it stop this cluster's processes only
        assert f"peet-fast cluster {name}: stopped" in down.stdout + down.stderr, (down.stdout + down.stderr)[-4000:]
        end = time.monotonic() + 60
        while cluster_pids(name) and time.monotonic() < end:
            time.sleep(0.5)
        assert cluster_pids(name) == [], "ray down left processes of the cluster running"
        assert bystander.poll() is None, "another Ray's raylet was stopped (a bare `ray stop` ran)"
        print(f"launcher: ray up .. ray down in {time.monotonic() - started:.1f} s", file=sys.stderr)
    finally:
        if bystander is not None:
            bystander.kill()
            bystander.wait()
        from peet_fast.cluster.stop import stop_cluster
        left = stop_cluster(name, grace=5)            # after a failure: this cluster's processes, nothing else
        sessions = descendants(sshd_pid) if sshd_pid else []
        clients = stop_ours(str(tmp))                 # Ray's ssh control masters (ControlPersist) of this test
        end = time.monotonic() + 30                   # their sshd sessions end with them
        while any(alive(p) for p in sessions) and time.monotonic() < end:
            time.sleep(0.2)
        sessions = [p for p in sessions if alive(p)]
        for pid in [*sessions, *([sshd_pid] if sshd_pid else [])]:
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
        shutil.rmtree(tmp, ignore_errors=True)
        # Ray's ssh control path directory for this cluster (/tmp/ray_ssh_USER/CLUSTER, fixed by Ray)
        shutil.rmtree(f"/tmp/ray_ssh_{sha(getpass.getuser())}/{sha(name)}", ignore_errors=True)
    assert left == [] and clients == [] and sessions == []
    if sshd_pid:
        end = time.monotonic() + 30
        while alive(sshd_pid) and time.monotonic() < end:
            time.sleep(0.1)
        assert not alive(sshd_pid), "the test's sshd did not stop"


# --- the pieces, without a cluster ------------------------------------------------------------------------------------

def test_submit_script_command_line(tmp_path, monkeypatch):
    from peet_fast.cluster.submit import command_line

    monkeypatch.chdir(tmp_path)
    line, refusal = command_line(["featurize", "--pairs", "/s/p.tsv", "--out", "/s/feats"])
    assert (line, refusal) == (["peet-fast", "featurize", "--pairs", "/s/p.tsv", "--out", "/s/feats",
                                "--ray-address", "auto"], None)
    line, _ = command_line(["score", "--hyp", "/s/a", "--ref", "/s/r", "--ray-address=10.0.0.1:6379"])
    assert line == ["peet-fast", "score", "--hyp", "/s/a", "--ref", "/s/r", "--ray-address=10.0.0.1:6379"]
    assert command_line(["predict", "--features", "x"]) == (None, (
        "peet-fast: error: the first argument is the command, one of score, featurize (got 'predict'); the rest "
        "are its arguments, as `peet-fast score` takes them"))
    line, refusal = command_line(["score", "--hyp", "/s/a", "--ref", "/s/r", "--summary=out/peet.json"])
    assert line is None
    assert refusal == (f"peet-fast score: error: --summary out/peet.json: a relative path; this runs on the "
                       f"cluster's head in {tmp_path}, so it would land in {tmp_path / 'out' / 'peet.json'}: give an "
                       f"absolute path on storage every node of the cluster shares")


def test_submit_script_without_peet_fast_says_so(tmp_path):
    script = ROOT / "peet_fast" / "cluster" / "submit.py"
    shutil.copy(script, tmp_path / "submit.py")           # as `ray submit` copies it, run by a Python without us
    res = run([sys.executable, "-S", "-I", str(tmp_path / "submit.py"), "featurize", "--pairs", "/p.tsv",
               "--out", "/o"], None, timeout=120, cwd=tmp_path)
    assert res.returncode == 1
    assert res.stderr.startswith(f"peet-fast: error: {sys.executable} cannot import peet-fast (No module named ")
    assert len(res.stderr.splitlines()) == 1 and "Traceback" not in res.stderr


def sleeper(tag: str | None) -> subprocess.Popen:
    env = dict(os.environ)
    env.pop("PEET_FAST_CLUSTER", None)
    if tag is not None:
        env["PEET_FAST_CLUSTER"] = tag
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], env=env)


def test_stop_stops_only_the_named_cluster():
    from peet_fast.cluster.stop import cluster_pids, main

    name = f"t-{uuid.uuid4().hex[:8]}"
    ours, other, untagged = sleeper(name), sleeper(name + "-other"), sleeper(None)
    try:
        end = time.monotonic() + 60
        while len(cluster_pids(name)) < 1 and time.monotonic() < end:
            time.sleep(0.05)
        assert cluster_pids(name) == [ours.pid]
        assert main([name, "--grace", "5"]) == 0
        assert ours.wait(timeout=60) == -signal.SIGTERM
        assert other.poll() is None and untagged.poll() is None
        assert main([name]) == 0            # none left: nothing to do, still 0
    finally:
        for p in (ours, other, untagged):
            p.kill()
            p.wait()


def test_node_commands(tmp_path):
    from peet_fast.cluster.node import main

    name = f"t-{uuid.uuid4().hex[:8]}"
    target = sleeper(name)
    try:
        assert main([name, str(tmp_path / "bin")]) == 0
        assert sorted(p.name for p in (tmp_path / "bin").iterdir()) == ["peet-fast", "python", "ray"]
        env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
        env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin"
        res = run(["python", "-c", "import peet_fast, sys; print(peet_fast.__file__)"], env, timeout=120)
        assert res.stdout.strip() == str(ROOT / "peet_fast" / "__init__.py"), res.stderr
        assert run(["peet-fast", "--help"], env, timeout=120).returncode == 0
        stop = run(["ray", "stop", "--force"], env, timeout=120)      # this cluster's processes, no other
        assert stop.returncode == 0
        assert stop.stderr.strip() == (f"peet-fast cluster {name}: stopped 1 process of its Ray (no other Ray on "
                                       f"this machine touched)")
        assert target.wait(timeout=60) == -signal.SIGTERM
        version = run(["ray", "--version"], env, timeout=120)          # every other `ray` command is Ray's
        assert version.returncode == 0 and version.stdout.startswith("ray, version ")
    finally:
        target.kill()
        target.wait()


def uncompiled_copy(where: Path) -> Path:
    shutil.copytree(ROOT / "peet_fast", where / "peet_fast",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__", "*.c", "*.html"))
    return where


def test_an_uncompiled_checkout_first_on_the_path_gives_way_to_the_installed_package(tmp_path):
    code = "import peet_fast, peet_fast.cli; from peet_fast._ext import tokens; print(peet_fast.cli.__file__)"
    # as a Ray job's uploaded working directory: silent
    job = uncompiled_copy(tmp_path / "s" / "runtime_resources" / "working_dir_files" / "_ray_pkg_1")
    res = run([sys.executable, "-c", code], dict(os.environ, PYTHONPATH=str(job)), timeout=300, cwd=job)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == str(ROOT / "peet_fast" / "cli" / "__init__.py")
    assert res.stderr == ""
    # an unbuilt checkout as the current directory: the same, with one notice
    plain = uncompiled_copy(tmp_path / "checkout")
    res = run([sys.executable, "-c", code], dict(os.environ), timeout=300, cwd=plain)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == str(ROOT / "peet_fast" / "cli" / "__init__.py")
    assert res.stderr == (f"peet_fast: {plain / 'peet_fast'} has no compiled kernels (a source checkout never "
                          f"built); using the installed peet_fast at {ROOT / 'peet_fast'}\n")


def test_a_relative_output_in_a_ray_jobs_working_dir_is_refused(tmp_path):
    job = tmp_path / "s" / "runtime_resources" / "working_dir_files" / "_ray_pkg_1"
    job.mkdir(parents=True)
    shutil.copy(FIXTURES / "sample" / "system_a.txt", job)
    shutil.copy(FIXTURES / "sample" / "reference.txt", job)
    res = run([os.path.join(BINDIR, "peet-fast"), "score", "--hyp", "system_a.txt", "--ref", "reference.txt",
               "--out", "job-out", "--spacy-model", SPACY_MODEL], dict(os.environ), timeout=300, cwd=job)
    assert res.returncode == 2
    assert res.stderr == (f"peet-fast score: error: --out job-out: a relative path inside a Ray job's working "
                          f"directory, Ray's temporary copy of --working-dir: it would land in {job / 'job-out'}, "
                          f"removed with the Ray session; give an absolute path (on storage the cluster's nodes "
                          f"share)\n")
    assert sorted(p.name for p in job.iterdir()) == ["reference.txt", "system_a.txt"]


def test_one_memory_budget_in_docs_yaml_and_benchmark():
    """docs/jobs.md, the example YAML and benchmarks/memory_flat.py (which checks runs against it) give the same
    budget (issue 41, point 6)."""
    import ast

    tree = ast.parse((ROOT / "benchmarks" / "memory_flat.py").read_text("utf-8"))
    budget = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                  and any(getattr(t, "id", None) == "BUDGET_MB" for t in node.targets))
    phrase = f"{budget['actor'] / 1000:g} GB per Ray worker actor and {budget['driver'] / 1000:g} GB for the driver"
    docs = " ".join((ROOT / "docs" / "jobs.md").read_text("utf-8").replace("**", "").split())
    assert phrase in docs
    yaml_comments = " ".join(" ".join(line.lstrip("# ") for line in EXAMPLE.read_text("utf-8").splitlines()
                                      if line.startswith("#")).split())
    assert f"the budget is {phrase}" in yaml_comments
    assert "300 MB" not in EXAMPLE.read_text("utf-8") and "~0.5 GB per worker" not in docs
