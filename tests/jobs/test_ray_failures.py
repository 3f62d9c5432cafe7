"""Jobs on Ray actors fail as they do in one process: actors import the driver's peet_fast whatever the working
directory, an error we understand is the same one line (exit 2 for bad input, 1 for an environment fault) with or
without --workers, --debug shows the traceback instead, and an actor that cannot start fails the job at once."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import FIXTURES, SPACY_MODEL

from peet_fast.cli import main

REPO = Path(__file__).resolve().parents[2]
pytest.importorskip("ray")

DRIVER = "import sys\nfrom peet_fast.cli import main\nsys.exit(main())\n"
# a full disk: renaming a finished shard file into place fails (the manifest still writes)
FULL_DISK = """import errno, os
_replace = os.replace
def replace(src, dst, *a, **k):
    if os.path.basename(os.fspath(dst)).startswith("part-"):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return _replace(src, dst, *a, **k)
os.replace = replace
"""


@pytest.fixture(scope="module")
def ray_session():
    """Ray (the local instance the suite's in-process runs share, stopped by tests/conftest.py)."""
    import ray

    return ray


def write_pairs(d: Path, n: int = 24) -> None:
    """mo.txt / trg.txt (n fixture pairs) and pairs.tsv with a malformed row 10 (file line 11) into d."""
    rows = [line.split("\t") for line in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if line][:n]
    (d / "mo.txt").write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    (d / "trg.txt").write_text("".join(r[1] + "\n" for r in rows), "utf-8")
    lines = ["mo\ttrg"] + [f"{r[0]}\t{r[1]}" for r in rows]
    lines[11] = rows[10][0]
    (d / "pairs.tsv").write_text("\n".join(lines) + "\n", "utf-8")


def run_driver(tmp_path: Path, cwd: Path, args: list[str], pythonpath: list[str] = (), code: str = DRIVER):
    """peet-fast ARGS as a user runs it (a script outside cwd, so that only Ray could put cwd on sys.path), with the
    source tree (and pythonpath) on PYTHONPATH."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    (bindir / "driver.py").write_text(code)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*pythonpath, str(REPO)]), RAY_AUTH_MODE="disabled",
               RAY_USAGE_STATS_ENABLED="0")
    env.pop("RAY_ADDRESS", None)
    return subprocess.run([sys.executable, str(bindir / "driver.py"), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900)


def our_lines(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.startswith("peet-fast ")]


def test_actors_ignore_a_decoy_package_in_the_working_directory(tmp_path):
    work = tmp_path / "checkout"
    (work / "peet_fast").mkdir(parents=True)
    (work / "peet_fast" / "__init__.py").write_text("raise ImportError('the decoy peet_fast was imported')\n")
    write_pairs(work)
    args = ["featurize", "--mo", "mo.txt", "--trg", "trg.txt", "--spacy-model", SPACY_MODEL, "--shard-rows", "7"]
    ray_run = run_driver(tmp_path, work, [*args, "--out", "ray-job", "--workers", "2"])
    assert ray_run.returncode == 0, ray_run.stderr[-3000:]
    assert "decoy" not in ray_run.stderr
    assert main([*[str(work / a) if a.endswith(".txt") else a for a in args], "--out", str(tmp_path / "job")]) == 0
    assert pq.read_table(work / "ray-job").equals(pq.read_table(tmp_path / "job"))


@pytest.mark.parametrize("workers", ["1", "2"])
def test_bad_row_is_one_line_with_or_without_ray(tmp_path, monkeypatch, capsys, ray_session, workers):
    write_pairs(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["featurize", "--pairs", "pairs.tsv", "--spacy-model", SPACY_MODEL, "--shard-rows", "4", "--out", "job"]
    assert main([*args, "--workers", workers]) == 2
    assert our_lines(capsys.readouterr().err) == [
        "peet-fast featurize: error: pairs.tsv:12: row has 1 fields, the header 2 (shard 2)"]
    assert main([*args, "--workers", workers, "--debug"]) == 2
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "peet_fast.io.InputError: pairs.tsv:12:" in err
    if workers == "2":
        assert "in read_shard" in err            # the actor's own traceback


def test_actor_that_cannot_load_its_pipeline_fails_the_job_in_one_line(tmp_path, capsys, ray_session):
    write_pairs(tmp_path)
    args = ["featurize", "--mo", str(tmp_path / "mo.txt"), "--trg", str(tmp_path / "trg.txt"), "--spacy-model",
            "no_such_pipeline", "--shard-rows", "4"]
    assert main([*args, "--out", str(tmp_path / "a.parquet")]) == 2
    in_process = our_lines(capsys.readouterr().err)
    assert len(in_process) == 1 and "cannot load spaCy pipeline 'no_such_pipeline'" in in_process[0]
    assert main([*args, "--out", str(tmp_path / "job"), "--workers", "2"]) == 2
    assert our_lines(capsys.readouterr().err) == in_process
    assert not (tmp_path / "job").exists()       # a directory the failed job created is not left behind


def test_actor_whose_import_fails_fails_the_job_in_one_line(tmp_path):
    """Actors that die before running any of our code (here: they import a broken peet_fast) are not replaced: the
    job fails with the cause as one line, exit 1. (The driver's own shards are made slow, so that the job is still
    running when the actor's failure is known.)"""
    decoy = tmp_path / "decoy"
    (decoy / "peet_fast").mkdir(parents=True)
    (decoy / "peet_fast" / "__init__.py").write_text("raise ImportError('broken peet_fast on the workers')\n")
    write_pairs(tmp_path)
    code = ("import sys, time\nimport peet_fast.jobs.ray as r, peet_fast.jobs.raystart as rs\n"
            "rs._import_root = lambda: %r\n"
            "shard = r.run_shard\nr.run_shard = lambda *a: (time.sleep(1), shard(*a))[1]\n"
            "from peet_fast.cli import main\nsys.exit(main())\n" % str(decoy))
    run = run_driver(tmp_path, tmp_path, ["featurize", "--mo", "mo.txt", "--trg", "trg.txt", "--spacy-model",
                                          SPACY_MODEL, "--out", "job", "--workers", "2", "--shard-rows", "1"],
                     code=code)
    assert run.returncode == 1, run.stderr[-3000:]
    assert our_lines(run.stderr) == [
        "peet-fast featurize: error: a Ray worker failed: ImportError: broken peet_fast on the workers"]


def test_full_disk_is_one_line_exit_1_with_or_without_ray(tmp_path):
    inject = tmp_path / "inject"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(FULL_DISK)
    write_pairs(tmp_path)
    args = ["featurize", "--mo", "mo.txt", "--trg", "trg.txt", "--spacy-model", SPACY_MODEL, "--shard-rows", "8"]
    for extra in ([], ["--workers", "2"]):
        run = run_driver(tmp_path, tmp_path, [*args, "--out", "job/", *extra], pythonpath=[str(inject)])
        assert run.returncode == 1, run.stderr[-3000:]
        lines = our_lines(run.stderr)
        assert len(lines) == 1 and re.fullmatch(
            r"peet-fast featurize: error: job/: No space left on device \(shard [012]\)", lines[0]), run.stderr
        assert not list((tmp_path / "job").glob("part-*"))


# Ray's own start fails in two ways here: a temp directory it cannot create (RAY_TMPDIR=/proc/nope: a real start),
# and its start-up timeout on a loaded machine, raised where init_ray runs (the text Ray 2.x raises, node.py)
STARTUP_TIMEOUT = ("The current node timed out during startup. This could happen because some of the raylet failed "
                   "to startup or the GCS has become overloaded.")
# The driver is held (RayRunner.driver_takes_next) until Ray's start is over, so that the start's failure comes before
# the driver could finish the job alone, however fast either is on this machine
HELD = "import peet_fast.jobs.ray as r\nr.RayRunner.driver_takes_next = lambda self, taken, handed: False\n"
TIMES_OUT = ("import sys\nimport peet_fast.jobs.ray as r\n"
             "def init_ray(*a, **k):\n    raise Exception(%r)\n"
             "r.init_ray = init_ray\n" % STARTUP_TIMEOUT) + HELD + DRIVER


@pytest.mark.parametrize("case", ["unwritable temp directory", "start-up timeout"])
def test_ray_that_does_not_start_leaves_the_job_to_the_driver(tmp_path, case):
    """--workers 2 where Ray's local instance does not start: one notice saying why, exit 0, and the output of
    --workers 1 (the driver, which computes shards while Ray starts, finishes the job alone). It used to end the job:
    exit 1 with `error: /proc/nope: No such file or directory`, or a 60-line traceback of Ray's timeout."""
    write_pairs(tmp_path)
    args = ["featurize", "--mo", "mo.txt", "--trg", "trg.txt", "--spacy-model", SPACY_MODEL, "--shard-rows", "5"]
    if case == "start-up timeout":
        run = run_driver(tmp_path, tmp_path, [*args, "--out", "job", "--workers", "2"], code=TIMES_OUT)
        why = ("Ray's processes did not come up in time (its GCS or a raylet was too slow to start, as on a busy "
               "machine)")
    else:
        bindir = tmp_path / "bin"
        bindir.mkdir()
        (bindir / "driver.py").write_text(HELD + DRIVER)
        env = dict(os.environ, PYTHONPATH=str(REPO), RAY_TMPDIR="/proc/nope", RAY_AUTH_MODE="disabled",
                   RAY_USAGE_STATS_ENABLED="0")
        env.pop("RAY_ADDRESS", None)
        run = subprocess.run([sys.executable, str(bindir / "driver.py"), *args, "--out", "job", "--workers", "2"],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        why = "/proc/nope: No such file or directory"
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Traceback" not in run.stderr
    notices = [ln for ln in our_lines(run.stderr) if "Ray" in ln]
    assert notices == [f"peet-fast featurize: Ray did not start ({why}), so this process computes the job alone "
                       f"(the same output as --workers 1)"], run.stderr
    assert main([*[str(tmp_path / a) if a.endswith(".txt") else a for a in args], "--out", str(tmp_path / "one")]) == 0
    assert pq.read_table(tmp_path / "job").equals(pq.read_table(tmp_path / "one"))


def test_cluster_that_does_not_start_stops_the_job_in_one_line_keeping_its_shards(tmp_path, monkeypatch, capsys):
    """--ray-address (a cluster of the user's) whose ray.init times out: one line of ours, exit 2, the shards an
    earlier run finished are kept, and the same command resumes once the cluster answers (here: --workers 1)."""
    import socket

    import ray

    write_pairs(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["featurize", "--mo", "mo.txt", "--trg", "trg.txt", "--spacy-model", SPACY_MODEL, "--shard-rows", "5",
            "--out", "job"]
    assert main(args) == 0
    assert main([*args[:-1], "one"]) == 0
    parts = sorted((tmp_path / "job").glob("part-*"))
    assert len(parts) == 5
    parts[2].unlink()                                   # a shard left to compute
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen()
    port = listening.getsockname()[1]
    (tmp_path / "raytmp" / "ray").mkdir(parents=True)
    (tmp_path / "raytmp" / "ray" / "ray_current_cluster").write_text(f"127.0.0.1:{port}")
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path / "raytmp"))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)

    def times_out(*a, **k):
        raise Exception(STARTUP_TIMEOUT)

    monkeypatch.setattr(ray, "init", times_out)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    capsys.readouterr()
    try:
        assert main([*args, "--ray-address", "auto"]) == 2
    finally:
        listening.close()
    assert our_lines(capsys.readouterr().err) == [
        f"peet-fast featurize: error: cannot join the Ray cluster at 127.0.0.1:{port} (--ray-address auto: the "
        f"cluster `ray start` started here): Ray's processes did not come up in time (its GCS or a raylet was too "
        f"slow to start, as on a busy machine); finished shards are kept: run the same command again to resume"]
    assert sorted((tmp_path / "job").glob("part-*")) == [*parts[:2], *parts[3:]]
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    assert main(args) == 0
    assert pq.read_table(tmp_path / "job").equals(pq.read_table(tmp_path / "one"))
