"""Never destroy what the user has (issue 23, points 2-6): an output that is an input is refused before anything is
read; paths read from our own files stay inside their directory; bounded readers; messages that name the file and
print user-supplied strings escaped."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import SPACY_MODEL

from peet_fast.cli import main

SPACY = ["--spacy-model", SPACY_MODEL]


def _one_error_line(capsys, command: str) -> str:
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"peet-fast {command}: error: "), err
    assert "Traceback" not in err
    return lines[0]


# --- point 2: an output that is an input ------------------------------------------------------------------------

@pytest.fixture
def work(tmp_path):
    """Input files of every kind the commands read (contents never read by a refused run: any bytes do)."""
    d = tmp_path
    for name in ("o.txt", "c.txt", "h.tsv", "r.txt", "s.tsv"):
        (d / name).write_text("He go home .\nThis are good .\n")
    (d / "X.parquet").write_bytes(b"PAR1 not really\n")
    (d / "m.json").write_text("{}\n")
    (d / "human.csv").write_text("system,score\n")
    (d / "data.jsonl").write_text('{"mo": "a", "trg": "a", "time": 1}\n')
    (d / "hyp.json").write_text("[]\n")
    (d / "feat").mkdir()
    (d / "feat" / "_manifest.json").write_text("{}\n")
    (d / "indir").mkdir()
    (d / "indir" / "h.txt").write_text("He go home .\n")
    return d


# (command, argv with {d} for the directory, the output as named, the input it must name)
CASES = [
    ("m2", "m2 -orig {d}/o.txt -cor {d}/c.txt -out {d}/c.txt", "c.txt", "c.txt"),
    ("m2", "m2 -orig {d}/o.txt -cor {d}/c.txt -out {d}/link-to-o", "link-to-o", "o.txt"),
    ("m2", "m2 -orig {d}/o.txt -cor {d}/c.txt -out {d}/hard-o", "hard-o", "o.txt"),
    ("m2", "m2 -orig {d}/o.txt -cor {d}/c.txt -out {d}/./sub/../o.txt", "o.txt", "o.txt"),
    ("predict", "predict --features {d}/X.parquet --out {d}/X.parquet", "X.parquet", "X.parquet"),
    ("predict", "predict --features {d}/feat --out {d}/feat/part-00000.parquet", "part-00000.parquet", "feat"),
    ("featurize", "featurize --pairs {d}/X.parquet --out {d}/X.parquet", "X.parquet", "X.parquet"),
    ("featurize", "featurize --mo {d}/indir/h.txt --trg {d}/c.txt --out {d}/indir", "indir", "h.txt"),
    ("score", "score --hyp {d}/h.tsv --ref {d}/r.txt --out {d}/h.tsv", "h.tsv", "h.tsv"),
    ("score", "score --hyp {d}/h.tsv --ref {d}/r.txt --summary {d}/r.txt", "r.txt", "r.txt"),
    ("score", "score --hyp {d}/indir/h.txt --ref {d}/r.txt --out {d}/indir", "indir", "h.txt"),
    ("score", "score --hyp {d}/h.tsv --ref {d}/r.txt --model {d}/m.json --summary {d}/m.json", "m.json", "m.json"),
    ("ensemble", "ensemble --src {d}/o.txt --hyp {d}/c.txt {d}/r.txt --out {d}/r.txt", "r.txt", "r.txt"),
    ("train", "train --data {d}/data.jsonl --features small --out {d}/data.jsonl", "data.jsonl", "data.jsonl"),
    ("explain", "explain {d}/m.json --json {d}/m.json", "m.json", "m.json"),
    ("explain", "explain {d}/m.json --data {d}/data.jsonl --json {d}/data.jsonl", "data.jsonl", "data.jsonl"),
    ("rank", "rank --hyp {d}/h.tsv {d}/c.txt --ref {d}/r.txt --human {d}/human.csv --summary {d}/human.csv",
     "human.csv", "human.csv"),
    ("rank", "rank --hyp {d}/h.tsv {d}/c.txt --ref {d}/r.txt --summary {d}/c.txt", "c.txt", "c.txt"),
    ("report", "report --hyp {d}/indir/h.txt {d}/c.txt --ref {d}/r.txt --out {d}/indir", "indir", "h.txt"),
    ("excgec", "excgec --hyp {d}/hyp.json --ref {d}/hyp.json --summary {d}/hyp.json", "hyp.json", "hyp.json"),
    ("compare", "compare -hyp {d}/h.tsv -ref {d}/r.txt --summary {d}/r.txt", "r.txt", "r.txt"),
    ("compare", "compare --src {d}/o.txt -hyp {d}/h.tsv -ref {d}/r.txt --summary {d}/o.txt", "o.txt", "o.txt"),
    ("agreement", "agreement --src {d}/o.txt --ref {d}/c.txt {d}/r.txt --summary {d}/c.txt", "c.txt", "c.txt"),
    ("synth", "synth --sentences {d}/s.tsv --pairs 3 --out {d}/s.tsv", "s.tsv", "s.tsv"),
]


@pytest.mark.parametrize("command, argv, out, named", CASES, ids=[f"{c[0]}-{k}" for k, c in enumerate(CASES)])
def test_output_that_is_an_input_is_refused(work, capsys, command, argv, out, named):
    (work / "link-to-o").symlink_to(work / "o.txt")
    os.link(work / "o.txt", work / "hard-o")
    before = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    listing = sorted(p.relative_to(work) for p in work.rglob("*"))
    rc = main([*argv.format(d=work).split(), *(SPACY if command in ("m2", "score", "featurize", "ensemble", "train",
                                                                     "rank", "report", "agreement") else []),
               "--quiet"])
    assert rc == 2
    line = _one_error_line(capsys, command)
    assert out in line and named in line and "input" in line
    # nothing read, nothing written: every file as it was, no temporary file or directory left
    assert {p: p.read_bytes() for p in work.rglob("*") if p.is_file()} == before
    assert sorted(p.relative_to(work) for p in work.rglob("*")) == listing
    assert (work / "link-to-o").is_symlink()


def test_character_device_in_and_out_is_no_conflict(tmp_path):
    from peet_fast.io import input_conflict

    assert input_conflict("/dev/null", ["/dev/null"]) is None
    (tmp_path / "a").write_text("x")
    assert input_conflict(tmp_path / "b", [tmp_path / "a"]) is None
    assert "same file" in input_conflict(tmp_path / "a", [tmp_path / "b", tmp_path / "a"])


def test_fifo_in_and_out_is_refused(tmp_path):
    from peet_fast.io import input_conflict

    os.mkfifo(tmp_path / "p")
    (tmp_path / "l").symlink_to(tmp_path / "p")
    assert "same file" in input_conflict(tmp_path / "l", [tmp_path / "p"])


def test_output_under_a_file_is_exit_2(tmp_path, capsys):
    """--out afile/sub (a file where a directory must be): one line naming it, exit 2, for a file and a job dir."""
    (tmp_path / "o.txt").write_text("He go home .\n")
    (tmp_path / "afile").write_text("x")
    for argv in (["featurize", "--mo", f"{tmp_path}/o.txt", "--trg", f"{tmp_path}/o.txt", "--out",
                  f"{tmp_path}/afile/sub"],
                 ["featurize", "--mo", f"{tmp_path}/o.txt", "--trg", f"{tmp_path}/o.txt", "--out",
                  f"{tmp_path}/afile/sub/x.parquet"],
                 ["m2", "-orig", f"{tmp_path}/o.txt", "-cor", f"{tmp_path}/o.txt", "-out", f"{tmp_path}/afile/sub"],
                 ["score", "--hyp", f"{tmp_path}/o.txt", "--ref", f"{tmp_path}/o.txt", "--out",
                  f"{tmp_path}/afile/sub"]):
        assert main([*argv, *SPACY, "--quiet"]) == 2
        line = _one_error_line(capsys, argv[0])
        assert f"{tmp_path}/afile is a file, not a directory" in line
    assert (tmp_path / "afile").read_text() == "x"
