"""Nothing left behind by a killed run (issue 23, point 5): a scratch directory whose owner is gone is removed by
the next run that finds it; the local Ray instance's processes are stopped by the watchdog (jobs.raywatch) however
the driver ends; SIGTERM exits 143 within about two seconds, on the in-process path and under Ray."""
from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, SPACY_MODEL

from peet_fast.cli import main

REPO = Path(__file__).resolve().parents[2]


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def _scratch(parent: Path, name: str, owner: dict | None) -> Path:
    d = parent / f".peet-fast-job-{name}"
    (d / "job").mkdir(parents=True)
    (d / "job" / "part-00000.parquet").write_bytes(b"x" * 100)
    if owner is not None:
        (d / "_owner.json").write_text(json.dumps(owner))
    return d


def test_stale_scratch_directories_are_removed_by_the_next_run(tmp_path, capsys):
    import socket

    from peet_fast.jobs.layout import _proc_start

    host = socket.gethostname()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])     # (killed below)
    try:
        dead = _scratch(tmp_path, "dead", {"host": host, "pid": _dead_pid(), "proc_start": None})
        reused = _scratch(tmp_path, "reused", {"host": host, "pid": sleeper.pid, "proc_start": 1})  # pid reused
        live = _scratch(tmp_path, "live", {"host": host, "pid": sleeper.pid,
                                           "proc_start": _proc_start(sleeper.pid)})
        other_host = _scratch(tmp_path, "remote", {"host": host + "-other", "pid": _dead_pid()})
        no_owner = _scratch(tmp_path, "unowned", None)
        damaged = _scratch(tmp_path, "damaged", None)
        (damaged / "_owner.json").write_text("[" * 10_000)
        (tmp_path / "pairs.tsv").write_text("mo\ttrg\nHe go home .\tHe goes home .\n")
        out = tmp_path / "f.parquet"
        rc = main(["featurize", "--pairs", str(tmp_path / "pairs.tsv"), "--out", str(out), "--spacy-model",
                   SPACY_MODEL, "--quiet"])
        assert rc == 0 and out.exists()
        assert capsys.readouterr().err.count("\n") == 1          # its one 'wrote' line: the removal is silent
        assert not dead.exists() and not reused.exists()
        assert live.exists() and other_host.exists() and no_owner.exists() and damaged.exists()
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".peet-fast")) == sorted(
            p.name for p in (live, other_host, no_owner, damaged))
    finally:
        sleeper.kill()
        sleeper.wait()


def test_scratch_directory_of_a_killed_run_is_removed(tmp_path):
    """kill -9 of a run in the middle of a scratch job (a table of pairs to one file): its directory stays; the
    next run removes it."""
    rows = [ln.split("\t") for ln in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if ln]
    (tmp_path / "pairs.tsv").write_text("mo\ttrg\n" + "".join(f"{r[0]}\t{r[1]}\n" for r in rows * 20), "utf-8")
    (tmp_path / "small.tsv").write_text("mo\ttrg\n" + "".join(f"{r[0]}\t{r[1]}\n" for r in rows[:3]), "utf-8")

    def argv(out: str, pairs: str = "pairs.tsv") -> list[str]:
        return [sys.executable, "-m", "peet_fast.cli", "featurize", "--pairs", str(tmp_path / pairs), "--out",
                str(tmp_path / out), "--spacy-model", SPACY_MODEL, "--shard-rows", "50", "--no-cache"]
    p = subprocess.Popen(argv("f.parquet"), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600      # (a guard against a hang, not a timing)
    while time.monotonic() < deadline and not list(tmp_path.glob(".peet-fast-job-*/job/part-*.parquet")):
        time.sleep(0.05)
    p.kill()
    p.wait()
    [left] = tmp_path.glob(".peet-fast-job-*")
    assert (left / "_owner.json").exists()
    # the next run, any job whose output lies beside it (a small one: the removal is what is tested)
    res = subprocess.run(argv("g.parquet", "small.tsv"), cwd=REPO, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr
    assert not left.exists()
    assert not list(tmp_path.glob(".peet-fast-job-*"))


def test_a_sigterm_that_surfaces_as_another_interrupt_is_143():
    from peet_fast.cli._common import _raise_terminated, interrupt_line, terminate_as_interrupt

    with terminate_as_interrupt():
        with pytest.raises(KeyboardInterrupt):
            _raise_terminated(signal.SIGTERM, None)
        # Ray interrupts the main thread with a plain KeyboardInterrupt when its processes die first
        assert interrupt_line(KeyboardInterrupt())[0] == 143
    with terminate_as_interrupt():
        assert interrupt_line(KeyboardInterrupt())[0] == 130


# --- the watchdog, with stand-in processes: a fake "raylet" (a program under a ray/ directory) with an "agent" ----

FAKE_RAYLET = """
import subprocess, sys, time
agent = subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                          "time.sleep(3600)"])      # an agent that ignores SIGTERM: SIGKILLed half a second later
print(agent.pid, flush=True)
time.sleep(3600)
"""

DRIVER = """
import os, subprocess, sys, time
from peet_fast.jobs.raywatch import start_watchdog
w = start_watchdog()
# the fake raylet's path is not among the driver's arguments: a child the driver forks has the driver's command line
# until it execs, and one with ".../ray/raylet" in it would pass for one of Ray's (the watchdog's test: "/ray/")
raylet = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "ray", "raylet")],
                          stdout=subprocess.PIPE, text=True)
agent = int(raylet.stdout.readline())
other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])    # not Ray's: never touched
print(w.proc.pid, raylet.pid, agent, other.pid, flush=True)
if sys.argv[1] == "shutdown":
    sys.stdin.readline()                       # once the watchdog has recorded the raylet (the test says when)
    raylet.kill()
time.sleep(3600)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def _wait_gone(pids, seconds: float = 120) -> list[int]:
    """Wait until the processes are gone (a ceiling of minutes: a guard against a hang, not a timing)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and any(_alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


def _watchdog_looked(pid: int, ceiling: float = 300) -> None:
    """Wait until the watchdog has looked at the driver's processes since now: it sleeps in select() between two
    looks (one voluntary context switch each), so three more switches hold at least one whole look (an event, however
    slow a busy machine schedules it; the ceiling only guards against a hang)."""
    def switches() -> int:
        with open(f"/proc/{pid}/status") as fh:
            return next(int(ln.split()[1]) for ln in fh if ln.startswith("voluntary_ctxt_switches:"))

    since = switches()
    end = time.monotonic() + ceiling
    while switches() < since + 3:
        assert time.monotonic() < end, "the watchdog never looked"
        time.sleep(0.05)


@pytest.fixture
def fake_ray(tmp_path):
    (tmp_path / "ray").mkdir()
    (tmp_path / "ray" / "raylet").write_text(FAKE_RAYLET)
    (tmp_path / "driver.py").write_text(DRIVER)
    return tmp_path


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="the watchdog reads /proc")
@pytest.mark.parametrize("end", ["kill9", "term-group", "shutdown"])
def test_watchdog_stops_the_instance_however_the_driver_ends(fake_ray, end):
    driver = subprocess.Popen([sys.executable, str(fake_ray / "driver.py"), end],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO,
                              start_new_session=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    other = None
    try:
        watchdog, raylet, agent, other = map(int, driver.stdout.readline().split())
        _watchdog_looked(watchdog)                       # its next look records them
        if end == "kill9":
            driver.kill()
        elif end == "term-group":
            os.killpg(driver.pid, signal.SIGTERM)        # the driver's group: the watchdog is not in it
        if end == "shutdown":                            # the "raylet" ended while the driver runs on
            driver.stdin.write("go\n")
            driver.stdin.flush()
            assert _wait_gone([agent]) == []
            assert _alive(driver.pid) and _alive(other)
            assert _wait_gone([watchdog]) == []          # its instance gone: the watchdog ends too
        else:
            driver.wait(300)
            assert _wait_gone([raylet, agent, watchdog]) == []
            if end == "kill9":
                assert _alive(other)                     # not Ray's: left alone
    finally:
        for pid in (other,):
            if pid:
                with __import__("contextlib").suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        with __import__("contextlib").suppress(OSError):
            os.killpg(driver.pid, signal.SIGKILL)
        driver.wait()


# --- under Ray: SIGTERM to the driver's whole process group ------------------------------------------------------

RAY_CHILD_PROGRAMS = (b"/ray/", b"ray::")


def _descendants(root: int) -> set[int]:
    kids: dict[int, list[int]] = {}
    for q in os.listdir("/proc"):
        if q.isdigit():
            try:
                with open(f"/proc/{q}/stat", "rb") as fh:
                    ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(q))
    out, todo = set(), [root]
    while todo:
        for c in kids.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


@pytest.mark.parametrize("how", ["group", "driver"])
def test_sigterm_under_ray_is_143_and_leaves_nothing(tmp_path, how):
    rows = [ln.split("\t") for ln in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if ln]
    rows = (rows * 40)[:1600]
    (tmp_path / "mo.txt").write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    (tmp_path / "trg.txt").write_text("".join(r[1] + "\n" for r in rows), "utf-8")
    out = tmp_path / "job"
    err = open(tmp_path / "err.txt", "w+")
    driver = subprocess.Popen(
        [sys.executable, "-m", "peet_fast.cli", "featurize", "--mo", str(tmp_path / "mo.txt"), "--trg",
         str(tmp_path / "trg.txt"), "--out", str(out), "--workers", "2", "--shard-rows", "50", "--spacy-model",
         SPACY_MODEL, "--no-cache"], cwd=REPO, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
        env={**os.environ, "PEET_FAST_RAY_MIN_SENTENCES": "0", "PYTHONPATH": str(REPO)})
    seen: set[int] = set()
    try:
        deadline = time.monotonic() + 900      # (a guard against a hang, not a timing)
        while time.monotonic() < deadline and not list(out.glob("part-*.parquet")) and driver.poll() is None:
            seen |= _descendants(driver.pid)
            time.sleep(0.1)
        assert driver.poll() is None, "the job ended before it could be signalled"
        seen |= _descendants(driver.pid)
        if how == "group":
            os.killpg(driver.pid, signal.SIGTERM)
        else:
            driver.send_signal(signal.SIGTERM)
        # (how soon it stops is measured by the benchmarks, never timed in a test: a loaded machine is slower; the
        # ceiling only guards against a hang)
        rc = driver.wait(300)
        err.seek(0)
        text = err.read()
        assert rc == 143, text
        assert [ln for ln in text.splitlines() if ln.startswith("peet-fast featurize: interrupted:")], text
        ray_procs = []
        for q in seen:
            try:
                with open(f"/proc/{q}/cmdline", "rb") as fh:
                    if any(k in fh.read() for k in RAY_CHILD_PROGRAMS):
                        ray_procs.append(q)
            except OSError:
                pass
        assert _wait_gone(ray_procs, 5) == []
    finally:
        with __import__("contextlib").suppress(OSError):
            os.killpg(driver.pid, signal.SIGKILL)
        driver.wait()
        err.close()


_RAYLET_GONE_FIRST = r"""
import os, signal, sys, time
import peet_fast.cli
from peet_fast.cli._signals import end_process
from peet_fast.jobs import ray as jobs_ray
from peet_fast.jobs import raywatch
import ray

peet_fast.cli.process_is_ours = True          # as a command line: the process ends with the command
jobs_ray.init_ray(1, None)
worker = ray._private.worker
original = worker.disconnect

def slow(*args, **kwargs):                     # Ray's teardown, slow as it is after a signal to the process group:
    time.sleep(3600)                           # here it never ends, so a driver that waits for it never exits
    return original(*args, **kwargs)

worker.disconnect = slow
for pid in os.listdir("/proc"):                # the signal reached the raylet first: the watchdog ends
    if pid.isdigit():
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            stat = open(f"/proc/{pid}/stat", "rb").read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(stat[1]) == os.getpid() and cmd[0].endswith(b"/raylet"):
            os.kill(int(pid), signal.SIGTERM)
end = time.monotonic() + 300
while time.monotonic() < end and any(w.proc.poll() is None for w in raywatch._RUNNING):
    time.sleep(0.05)
jobs_ray._stop_quietly()
print("stopped", flush=True)
end_process(143, "")
"""


def test_an_interrupted_driver_does_not_wait_for_ray_when_its_raylet_ended_first():
    """SIGTERM to the driver's process group also ends the raylet, and then the watchdog (its instance is gone); the
    driver handles the interruption after that and must still exit at once instead of running Ray's teardown, which
    then waits for seconds (CI saw a SIGTERM answered in 6 s). Here Ray's teardown never ends: a driver that waited
    for it would never exit (no timing: the ceilings only guard against a hang)."""
    proc = subprocess.Popen([sys.executable, "-c", _RAYLET_GONE_FIRST], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        out, _ = proc.communicate(timeout=300)     # a driver that waited for Ray's teardown: TimeoutExpired
        assert (out.split(), proc.returncode) == (["stopped"], 143)      # _stop_quietly returned, the process exited
    finally:
        proc.kill()
        proc.wait()


def test_ray_starts_from_one_empty_directory_per_user(tmp_path, monkeypatch):
    """ray.init of a local instance runs from TMPDIR/peet-fast-ray-cwd-UID (what Ray puts first on its workers'
    sys.path): the same directory every run, so a killed run leaves nothing new in TMPDIR; where that path is not an
    empty directory of this user's (a file in it, a link), a fresh private one instead."""
    from peet_fast.jobs.ray import _empty_dir

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    first = _empty_dir()
    assert first == str(tmp_path / f"peet-fast-ray-cwd-{os.getuid()}") and _empty_dir() == first
    assert os.listdir(first) == [] and stat.S_IMODE(os.stat(first).st_mode) == 0o700
    (tmp_path / f"peet-fast-ray-cwd-{os.getuid()}" / "peet_fast").mkdir()      # a package put there
    other = _empty_dir()
    assert other != first and os.listdir(other) == []
    shutil.rmtree(first)
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", first)
    assert _empty_dir() not in (first, str(tmp_path / "elsewhere"))
