"""Progress on stderr (cli/_progress.py): plain lines with totals when stderr is not a terminal, a tqdm bar with
the total on a terminal, nothing with --quiet; and a --workers run's stderr free of Ray's WARNING / ERROR lines."""
from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios

import pytest
from conftest import FIXTURES, SPACY_MODEL

CMD = [sys.executable, "-m", "peet_fast.cli"]
SENTENCES = FIXTURES / "sample" / "reference.txt"


def env(interval: str = "0.01") -> dict:
    return {**os.environ, "PEET_FAST_PROGRESS_INTERVAL": interval}


def synth(tmp_path, *extra, interval="0.01"):
    return subprocess.run([*CMD, "synth", "--sentences", str(SENTENCES), "--pairs", "20000", "--out",
                           str(tmp_path / "s.jsonl"), *extra], capture_output=True, text=True, env=env(interval))


def test_plain_lines_with_total_when_not_a_terminal(tmp_path):
    res = synth(tmp_path)
    assert res.returncode == 0, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("synth: ")]
    assert len(lines) >= 2
    assert all(re.fullmatch(r"synth: [\d,]+/20,000 pairs \([\d,]+/s, (ETA|in) \d+:\d\d:\d\d\)", ln) for ln in lines)
    assert lines[-1].startswith("synth: 20,000/20,000 pairs") and lines[-1].endswith(")") and " in " in lines[-1]
    assert "\r" not in res.stderr


def test_quiet_and_a_run_shorter_than_the_interval_show_none(tmp_path):
    quiet = synth(tmp_path, "--quiet")
    assert quiet.returncode == 0 and not [ln for ln in quiet.stderr.splitlines() if ln.startswith("synth: ")]
    short = synth(tmp_path, interval="86400")     # a run shorter than the interval (a day: on any machine): no line
    assert short.returncode == 0 and not re.search(r"^synth: ", short.stderr, re.M)


def test_terminal_shows_a_bar_with_the_total(tmp_path):
    pid, fd = pty.fork()
    if pid == 0:                                   # the child: stderr (and stdout) on the pty
        os.environ["PEET_FAST_PROGRESS_INTERVAL"] = "0.01"
        os.execv(sys.executable, [*CMD, "synth", "--sentences", str(SENTENCES), "--pairs", "20000", "--out",
                                  str(tmp_path / "s.jsonl")])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))   # a pty starts 0 columns wide
    out = b""
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
    _, status = os.waitpid(pid, 0)
    text = out.decode("utf-8", "replace")
    assert os.waitstatus_to_exitcode(status) == 0, text
    assert re.search(r"synth: +\d+%\|.*\| *20000/20000 \[", text)     # tqdm: percentage, bar, count/total
    assert "pairs/s]" in text


def test_score_reports_lines_of_the_inputs(tmp_path):
    ref = tmp_path / "ref.txt"
    hyp = tmp_path / "hyp.txt"
    rows = [ln.split("\t") for ln in (FIXTURES / "en_pairs.tsv").read_text("utf-8").splitlines()][:120]
    hyp.write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    ref.write_text("".join(r[1] + "\n" for r in rows), "utf-8")
    res = subprocess.run([*CMD, "score", "--hyp", str(hyp), "--ref", str(ref), "--spacy-model", SPACY_MODEL],
                         capture_output=True, text=True, env=env())
    assert res.returncode == 0, res.stderr
    assert re.search(r"^score: 120/120 lines \([\d,]+/s, in \d+:\d\d:\d\d\)$", res.stderr, re.M), res.stderr


def test_workers_run_prints_no_ray_warning_or_error(tmp_path):
    pytest.importorskip("ray")
    pairs = tmp_path / "p.tsv"
    rows = [ln.split("\t") for ln in (FIXTURES / "en_pairs.tsv").read_text("utf-8").splitlines()][:60]
    pairs.write_text("mo\ttrg\n" + "".join(f"{r[0]}\t{r[1]}\n" for r in rows), "utf-8")
    res = subprocess.run([*CMD, "featurize", "--pairs", str(pairs), "--out", str(tmp_path / "job"), "--shard-rows",
                          "20", "--workers", "2", "--spacy-model", SPACY_MODEL], capture_output=True, text=True,
                         env=env(), timeout=600)
    assert res.returncode == 0, res.stderr
    for word in ("WARNING", "ERROR", "core_worker", "Traceback"):
        assert word not in res.stderr, res.stderr
    assert re.search(r"^featurize \(3 shards\): 60/60 rows", res.stderr, re.M), res.stderr


def test_rate_and_eta_of_a_resumed_job_count_only_this_runs_work(monkeypatch):
    """A sharded job resumed with 3,000 of 4,000 rows reused, 10 s of start-up (Ray, the pipeline) before the count
    moves, then 100 rows/s: the plain line says 100/s and ETA 8 s (800 rows left), not the 267/s and 3 s that
    counting the reused rows over the whole time would give."""
    import io
    import types

    from peet_fast.cli import _progress

    now = [100.0]
    monkeypatch.setattr(_progress, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    monkeypatch.setenv("PEET_FAST_PROGRESS_INTERVAL", "1")
    out = io.StringIO()
    p = _progress.Progress("featurize", stream=out)
    p.describe("4 shards")
    p(3000, 4000)               # the reused shards' rows, as the job starts
    for t, done in ((110.0, 3000), (111.0, 3100)):
        now[0] = t
        p(done, 4000)
    out.truncate(0)
    out.seek(0)
    now[0] = 112.0
    p(3200, 4000)
    assert out.getvalue() == "featurize (4 shards): 3,200/4,000 lines (100/s, ETA 0:00:08)\n"


def test_a_sharded_job_shows_no_eta_before_its_rate_is_measured(monkeypatch):
    """The first movement of a sharded job's count comes after Ray's start and the pipeline's load: 189 rows at
    28.8 s would give an ETA of 74 minutes for 30,000 rows; the line says the time so far instead."""
    import io
    import types

    from peet_fast.cli import _progress

    now = [0.0]
    monkeypatch.setattr(_progress, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    monkeypatch.setenv("PEET_FAST_PROGRESS_INTERVAL", "1")
    out = io.StringIO()
    p = _progress.Progress("featurize", unit="rows", stream=out)
    p.describe("8 shards")
    now[0] = 15.5
    p(0, 30000)
    out.truncate(0)
    out.seek(0)
    now[0] = 28.8
    p(189, 30000)
    assert out.getvalue() == "featurize (8 shards): 189/30,000 rows (7/s, 0:00:29 so far)\n"
