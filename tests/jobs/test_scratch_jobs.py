"""--workers N (and a table of pairs) with one output file or none: the shards go to a scratch job directory beside
the output (jobs.tasks.scratch_job_dir), which becomes the one file or the summary and is removed however the run
ends. The result is the in-process one; an interruption or a bad row leaves nothing behind."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import FIXTURES, SPACY_MODEL

from peet_fast.cli import main

REPO = Path(__file__).resolve().parents[2]
N_PAIRS = 40


def write_inputs(d: Path) -> None:
    rows = [ln.split("\t") for ln in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if ln][:N_PAIRS]
    (d / "mo.txt").write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    (d / "trg.txt").write_text("".join(r[1] + "\n" for r in rows), "utf-8")
    (d / "ref.txt").write_text("".join(r[1] + "\n" for r in rows), "utf-8")
    (d / "pairs.tsv").write_text("mo\ttrg\n" + "".join(f"{r[0]}\t{r[1]}\n" for r in rows), "utf-8")


def run(capsys, *args) -> tuple[int, str, str]:
    rc = main([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def leftovers(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.name.startswith(".peet-fast"))


def score_args(d: Path) -> list:
    return ["score", "--hyp", d / "mo.txt", "--ref", d / "ref.txt", "--spacy-model", SPACY_MODEL, "--quiet"]


@pytest.mark.parametrize("suffix", [".tsv", ".jsonl", ".parquet"])
def test_score_to_one_file_on_two_workers_is_the_in_process_file(tmp_path, capsys, suffix):
    write_inputs(tmp_path)
    here, there = tmp_path / f"here{suffix}", tmp_path / f"there{suffix}"
    rc, table_here, _ = run(capsys, *score_args(tmp_path), "--out", here, "--edits")
    assert rc == 0
    rc, table_there, err = run(capsys, *score_args(tmp_path), "--out", there, "--edits", "--workers", "2",
                               "--shard-rows", "7")
    assert rc == 0, err
    assert table_there == table_here
    if suffix == ".parquet":
        assert pq.read_table(there).equals(pq.read_table(here))
    else:
        assert there.read_bytes() == here.read_bytes()
    assert leftovers(tmp_path) == []


def test_score_without_out_on_two_workers_prints_the_in_process_table(tmp_path, capsys):
    write_inputs(tmp_path)
    rc, expected, _ = run(capsys, *score_args(tmp_path), "--summary", tmp_path / "here.json")
    assert rc == 0
    rc, out, err = run(capsys, *score_args(tmp_path), "--workers", "2", "--summary", tmp_path / "there.json")
    assert rc == 0, err
    assert out == expected
    assert (tmp_path / "there.json").read_text() == (tmp_path / "here.json").read_text()
    assert leftovers(tmp_path) == [] and not list(Path(os.environ.get("TMPDIR", "/tmp")).glob(".peet-fast-job-*"))


@pytest.mark.parametrize("workers", ["1", "2"])
def test_featurize_a_table_of_pairs_or_two_workers_to_one_file(tmp_path, capsys, workers):
    """One .parquet from text files on two workers, and from a TSV of pairs (which used to need a directory) in
    process or on two workers: the same rows as featurizing the text files in process."""
    write_inputs(tmp_path)
    base = ["featurize", "--spacy-model", SPACY_MODEL, "--quiet", "--shard-rows", "9"]
    assert run(capsys, *base, "--mo", tmp_path / "mo.txt", "--trg", tmp_path / "trg.txt",
               "--out", tmp_path / "here.parquet")[0] == 0
    here = pq.read_table(tmp_path / "here.parquet")
    if workers == "2":
        rc, _, err = run(capsys, *base, "--mo", tmp_path / "mo.txt", "--trg", tmp_path / "trg.txt",
                         "--out", tmp_path / "text.parquet", "--workers", "2")
        assert rc == 0, err
        assert pq.read_table(tmp_path / "text.parquet").equals(here)
    rc, _, err = run(capsys, *base, "--pairs", tmp_path / "pairs.tsv", "--out", tmp_path / "table.parquet",
                     "--workers", workers)
    assert rc == 0, err
    table = pq.read_table(tmp_path / "table.parquet")
    assert table.column("id").to_pylist() == list(range(N_PAIRS))      # no id column: the row numbers
    assert table.drop(["id"]).equals(here)
    assert leftovers(tmp_path) == []


def test_a_bad_row_names_file_and_line_and_leaves_nothing(tmp_path, capsys):
    write_inputs(tmp_path)
    lines = (tmp_path / "pairs.tsv").read_text("utf-8").split("\n")
    lines[12] = "only one field"
    (tmp_path / "pairs.tsv").write_text("\n".join(lines), "utf-8")
    rc, out, err = run(capsys, "featurize", "--pairs", tmp_path / "pairs.tsv", "--out", tmp_path / "x.parquet",
                       "--spacy-model", SPACY_MODEL, "--shard-rows", "5", "--quiet", "--workers", "2")
    assert rc == 2 and out == ""
    assert [ln for ln in err.splitlines() if ln.strip()] == [
        f"peet-fast featurize: error: {tmp_path / 'pairs.tsv'}:13: row has 1 fields, the header 2 (shard 2)"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mo.txt", "pairs.tsv", "ref.txt", "trg.txt"]


SLOW = """import os, time
import peet_fast.jobs.shards as _s
import peet_fast.jobs.local as _l
_real = _s.run_shard
def _slow(*args):
    entry = _real(*args)
    time.sleep(1.0)
    return entry
_l.run_shard = _slow
"""


def test_ctrl_c_says_nothing_was_written_and_leaves_nothing(tmp_path):
    """A scratch job has nothing to resume: Ctrl-C gives 'interrupted; no output written', exit 130, and no
    scratch directory or output file."""
    write_inputs(tmp_path)
    inject = tmp_path / "inject"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(SLOW)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(inject), str(REPO)]))
    proc = subprocess.Popen([sys.executable, "-m", "peet_fast.cli", "featurize", "--pairs", "pairs.tsv", "--out",
                             "x.parquet", "--spacy-model", SPACY_MODEL, "--shard-rows", "4"], cwd=tmp_path, env=env,
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 900      # (a ceiling against a hang, not a timing)
    while time.time() < deadline and not list(tmp_path.glob(".peet-fast-job-*/job/part-*.parquet")):
        time.sleep(0.05)
    assert list(tmp_path.glob(".peet-fast-job-*/job/part-*.parquet")), "no shard finished"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 130, err
    assert [ln for ln in err.splitlines() if ln.startswith("peet-fast")] == [
        "peet-fast featurize: interrupted; no output written"], err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inject", "mo.txt", "pairs.tsv", "ref.txt", "trg.txt"]


def test_a_full_disk_under_a_run_without_output_names_the_option_in_the_words_of_its_caller(tmp_path):
    """A write that fails inside the scratch job of a run without an output (score on workers, no --out): the
    library names its `workers` option, the command line its --workers flag; the file named is the temporary
    directory the scratch job was in, which is removed."""
    import errno

    from peet_fast.cli._common import error_line
    from peet_fast.jobs import LocalRunner
    from peet_fast.jobs.tasks import scratch_job_dir

    with pytest.raises(OSError) as caught:
        with scratch_job_dir(None, LocalRunner()) as job:
            scratch = os.path.dirname(job)
            raise OSError(errno.ENOSPC, "No space left on device (shard 3)", os.path.join(job, "part-3.parquet"))
    exc = caught.value
    assert exc.errno == errno.ENOSPC and exc.filename == os.path.dirname(scratch) and not os.path.exists(scratch)
    assert exc.strerror == "No space left on device (the temporary directory of a workers run)"
    from peet_fast.cli import build_parser

    words = build_parser().commands["featurize"].get_default("flags")
    assert error_line(exc, words) == (1, f"{exc.filename}: No space left on device (the temporary directory of a "
                                         f"--workers run)")
