"""Faults of sharded jobs: SIGINT / SIGTERM / kill -9 of the driver, a bad row or a full disk in one shard -- the
manifest then lists every finished part file, no temporary file or lock is left, the message and exit status say what
happened, and the rerun resumes to the table of an uninterrupted run. Output directories: only empty, absent or the
same job's; a job without finished shards never blocks another; a damaged manifest is rebuilt from the part files
that verify; DIR/_lock stops a second job and a stale one is taken over. Ctrl-C reaches into the compiled loops."""
from __future__ import annotations

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import FIXTURES, SPACY_MODEL

from peet_fast.cli import main

REPO = Path(__file__).resolve().parents[2]
N_PAIRS, SHARD_ROWS = 24, 3                 # 8 shards
MESSAGE = "interrupted: {} of 8 shards done; run the same command again to resume"
# shards slowed down (after their part file is written, before the driver hears of it), also on Ray actors
SLOW = """import os, time
if os.environ.get("PEET_TEST_SLOW_SHARD"):
    import peet_fast.jobs.shards as _s
    _real = _s.run_shard
    def _slow(*args):
        entry = _real(*args)
        time.sleep(float(os.environ["PEET_TEST_SLOW_SHARD"]))
        return entry
    _s.run_shard = _slow
    import peet_fast.jobs.local as _l      # bound its own name when the package imported it, before the line above
    _l.run_shard = _slow
    import peet_fast.jobs.ray as _r        # and so did the Ray actors' module (this file runs in the workers too)
    _r.run_shard = _slow
"""


def write_pairs(d: Path) -> tuple[Path, Path]:
    rows = [ln.split("\t") for ln in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if ln][:N_PAIRS]
    (d / "mo.txt").write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    (d / "trg.txt").write_text("".join(r[1] + "\n" for r in rows), "utf-8")
    return d / "mo.txt", d / "trg.txt"


def featurize_args(d: Path, out: Path) -> list[str]:
    return ["featurize", "--mo", str(d / "mo.txt"), "--trg", str(d / "trg.txt"), "--spacy-model", SPACY_MODEL,
            "--shard-rows", str(SHARD_ROWS), "--out", str(out)]


def start_driver(tmp_path: Path, args: list[str], slow: float = 0.0) -> subprocess.Popen:
    """peet-fast ARGS in a subprocess whose shards are slowed down; SIGINT at its default (a background job of a
    non-interactive shell would ignore it)."""
    inject = tmp_path / "inject"
    inject.mkdir(exist_ok=True)
    (inject / "sitecustomize.py").write_text(SLOW)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(inject), str(REPO)]), RAY_AUTH_MODE="disabled",
               RAY_USAGE_STATS_ENABLED="0", PEET_TEST_SLOW_SHARD=str(slow) if slow else "")
    env.pop("RAY_ADDRESS", None)
    return subprocess.Popen([sys.executable, "-m", "peet_fast.cli", *args], cwd=tmp_path, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_for_part(proc: subprocess.Popen, out: Path, timeout: float = 900) -> None:
    """Until the job has written a part file (timeout: a ceiling against a hang, not a timing)."""
    deadline = time.time() + timeout
    while not list(out.glob("part-*.parquet")):
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        assert time.time() < deadline, "no shard was written"
        time.sleep(0.05)


def our_lines(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.startswith("peet-fast")]


def listed(out: Path) -> list[str]:
    return [e["file"] for e in json.loads((out / "_manifest.json").read_text())["shards"]]


def on_disk(out: Path) -> list[str]:
    return sorted(p.name for p in out.glob("part-*.parquet"))


def assert_consistent(out: Path) -> None:
    """Every finished part is listed, and no temporary file or lock is left."""
    assert listed(out) == on_disk(out)
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp") or p.name.startswith("_lock")]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The table of an uninterrupted run."""
    d = tmp_path_factory.mktemp("reference")
    write_pairs(d)
    assert main(featurize_args(d, d / "job")) == 0
    return pq.read_table(d / "job")


@pytest.mark.parametrize("signum,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_records_finished_shards_and_the_rerun_resumes(tmp_path, reference, signum, status):
    write_pairs(tmp_path)
    out = tmp_path / "job"
    proc = start_driver(tmp_path, featurize_args(tmp_path, out), slow=1.0)
    wait_for_part(proc, out)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == status, err[-3000:]
    k = len(on_disk(out))
    assert 1 <= k < 8
    assert our_lines(err) == [f"peet-fast featurize: {MESSAGE.format(k)}"]
    assert "Traceback" not in err
    assert_consistent(out)
    rerun = start_driver(tmp_path, featurize_args(tmp_path, out))
    _, err = rerun.communicate(timeout=900)
    assert rerun.returncode == 0, err[-3000:]
    assert_consistent(out)
    assert pq.read_table(out).equals(reference)


def test_sigint_under_ray_records_finished_shards_without_tracebacks(tmp_path, reference):
    pytest.importorskip("ray")
    write_pairs(tmp_path)
    out = tmp_path / "job"
    proc = start_driver(tmp_path, [*featurize_args(tmp_path, out), "--workers", "2"], slow=2.0)
    wait_for_part(proc, out)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 130, err[-3000:]
    k = len(on_disk(out))
    assert our_lines(err) == [f"peet-fast featurize: {MESSAGE.format(k)}"], err[-3000:]
    # nothing of Ray's: no traceback, no log line of its C++ core worker ("[...] task_manager.cc:...") on shutdown
    assert [ln for ln in err.splitlines() if ln.strip() and not ln.startswith(("peet-fast", "featurize"))] == [], err
    assert_consistent(out)
    assert main(featurize_args(tmp_path, out)) == 0
    assert pq.read_table(out).equals(reference)


def test_killed_driver_then_rerun(tmp_path, reference, capsys):
    write_pairs(tmp_path)
    out = tmp_path / "job"
    proc = start_driver(tmp_path, featurize_args(tmp_path, out), slow=1.0)
    wait_for_part(proc, out)
    proc.kill()
    proc.communicate(timeout=600)
    assert (out / "_lock").exists()
    assert main(featurize_args(tmp_path, out)) == 0
    notices = our_lines(capsys.readouterr().err)
    assert notices[0] == f"peet-fast: took over the stale lock {out / '_lock'} (pid {proc.pid} on " \
                         f"{socket.gethostname()} is not running)"
    assert_consistent(out)
    assert pq.read_table(out).equals(reference)


def test_full_disk_in_one_shard_records_the_others(tmp_path, monkeypatch, capsys, reference):
    write_pairs(tmp_path)
    out = tmp_path / "job"
    real = os.replace

    def replace(src, dst, *args, **kwargs):
        if os.path.basename(os.fspath(dst)) == "part-00003.parquet":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    assert main(featurize_args(tmp_path, out)) == 1
    assert our_lines(capsys.readouterr().err) == [
        f"peet-fast featurize: error: {out}: No space left on device (shard 3)"]
    assert listed(out) == [f"part-0000{k}.parquet" for k in range(3)]
    assert_consistent(out)
    monkeypatch.setattr(os, "replace", real)
    assert main(featurize_args(tmp_path, out)) == 0
    assert pq.read_table(out).equals(reference)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_bad_row_records_the_finished_shards(tmp_path, capsys, workers):
    if workers == "2":
        pytest.importorskip("ray")
    mo, trg = write_pairs(tmp_path)
    lines = mo.read_text("utf-8").split("\n")
    lines[16] = "\udcff".encode("utf-8", "surrogateescape").decode("latin-1")   # invalid UTF-8 in shard 5
    mo.write_bytes("\n".join(lines).encode("latin-1", "surrogateescape").replace(b"\xc3\xbf", b"\xff"))
    out = tmp_path / "job"
    assert main([*featurize_args(tmp_path, out), "--workers", workers]) == 2
    assert "(shard 5)" in our_lines(capsys.readouterr().err)[0]
    assert_consistent(out)
    if workers == "1":
        assert listed(out) == [f"part-0000{k}.parquet" for k in range(5)]


def test_output_directory_with_other_files_is_refused(tmp_path, capsys):
    write_pairs(tmp_path)
    out = tmp_path / "job"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert main(featurize_args(tmp_path, out)) == 2
    assert our_lines(capsys.readouterr().err) == [
        f"peet-fast featurize: error: {out}: is not empty and not a peet-fast job (it holds 'notes.txt'); give an "
        f"empty or new directory"]
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    (tmp_path / "file").write_text("")
    assert main(featurize_args(tmp_path, tmp_path / "file")) == 2
    assert our_lines(capsys.readouterr().err) == [f"peet-fast featurize: error: {tmp_path / 'file'}: is not a "
                                                  f"directory"]


def test_job_without_finished_shards_never_blocks_another(tmp_path, capsys, reference):
    write_pairs(tmp_path)
    out = tmp_path / "job"
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\n" * N_PAIRS)
    args = featurize_args(tmp_path, out)
    assert main([*args[:2], str(bad), *args[3:]]) == 2          # fails in shard 0 of a new directory:
    assert not out.exists()                                     # nothing left behind
    out.mkdir()                                                 # a directory the user made stays, with
    assert main([*args[:2], str(bad), *args[3:]]) == 2          # a manifest without shards
    assert listed(out) == []
    assert main(args) == 0                                     # other inputs: replaces it
    assert pq.read_table(out).equals(reference)
    assert main([*args[:2], str(bad), *args[3:]]) == 2          # but not a job with finished shards
    assert "holds the output of a different job" in our_lines(capsys.readouterr().err)[-1]


def damage_a_page(path: Path) -> None:
    """Flip a byte of the file's data pages (the first one that its page checksums catch)."""
    from peet_fast.jobs.layout import part_verifies

    data = path.read_bytes()
    rows = pq.read_metadata(path).num_rows
    for pos in range(4, len(data)):
        path.write_bytes(data[:pos] + bytes([data[pos] ^ 0xFF]) + data[pos + 1:])
        if not part_verifies(str(path), rows):
            return
    raise AssertionError("no damage detected")


def test_damaged_manifest_is_rebuilt_from_the_parts(tmp_path, capsys, monkeypatch, reference):
    from peet_fast.jobs import local

    write_pairs(tmp_path)
    out = tmp_path / "job"
    assert main(featurize_args(tmp_path, out)) == 0
    manifest = (out / "_manifest.json").read_text()
    (out / "_manifest.json").write_text(manifest[:len(manifest) // 2])
    damage_a_page(out / "part-00002.parquet")
    calls = []
    real = local.run_shard
    monkeypatch.setattr(local, "run_shard", lambda st, sh, od: calls.append(sh.index) or real(st, sh, od))
    capsys.readouterr()
    assert main(featurize_args(tmp_path, out)) == 0
    assert calls == [2]
    assert our_lines(capsys.readouterr().err)[0] == (
        f"peet-fast: {out / '_manifest.json'} was damaged or missing; rebuilt it from 7 verified shard file(s)")
    assert json.loads((out / "_manifest.json").read_text()) == json.loads(manifest)
    assert pq.read_table(out).equals(reference)
    (out / "_manifest.json").write_text("{")
    (out / "part-00004.parquet").write_bytes(b"PAR1")                       # no footer: not verifiable
    assert main(featurize_args(tmp_path, out)) == 2
    assert our_lines(capsys.readouterr().err) == [
        f"peet-fast featurize: error: {out / 'part-00004.parquet'}: is not a shard file this job can verify "
        f"(damaged, or not written by this version); delete it and run the same command again"]


def test_lock_of_a_live_job_refuses_and_a_stale_one_is_taken_over(tmp_path, capsys, reference):
    write_pairs(tmp_path)
    out = tmp_path / "job"
    out.mkdir()
    owner = {"host": socket.gethostname(), "pid": os.getppid(), "started": "2024-01-01T00:00:00"}
    (out / "_lock").write_text(json.dumps(owner))
    assert main(featurize_args(tmp_path, out)) == 2
    assert our_lines(capsys.readouterr().err) == [
        f"peet-fast featurize: error: {out}: in use by another peet-fast job (host {owner['host']}, pid "
        f"{owner['pid']}, started 2024-01-01T00:00:00); wait for it to end, or delete {out / '_lock'} if it is not "
        f"running"]
    assert [p.name for p in out.iterdir()] == ["_lock"]
    dead = subprocess.Popen([sys.executable, "-c", ""])
    dead.wait()
    (out / "_lock").write_text(json.dumps({**owner, "pid": dead.pid}))
    assert main(featurize_args(tmp_path, out)) == 0
    assert our_lines(capsys.readouterr().err)[0].startswith(f"peet-fast: took over the stale lock {out / '_lock'}")
    assert not (out / "_lock").exists()
    assert pq.read_table(out).equals(reference)


def test_ctrl_c_interrupts_a_long_compiled_batch():
    """SIGINT during annotate_codes over many pairs raises KeyboardInterrupt from inside the compiled loop (the
    batch is far longer than the delay; no time is asserted)."""
    from peet_fast._ext import annotate
    from peet_fast.en.annotator import Annotator
    from peet_fast.en.features import LABEL_IDS

    o, c = Annotator(spacy_model=SPACY_MODEL).parse(["He go to school every days and she like it very much .",
                                                     "He goes to school every day and she likes it very much ."])
    n = 2_000_000
    # Python's own SIGINT handler for the test, whatever the suite's (one started with & from a script ignores SIGINT)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            annotate.annotate_codes([o] * n, [c] * n, False, "rules", LABEL_IDS)
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
