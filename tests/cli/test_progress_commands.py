"""Every long command reports progress the one way (cli/_progress.py, opened by cli.main): with
PEET_FAST_PROGRESS_INTERVAL=0 (a line at every report and at the end of every stage) each command prints progress
lines naming it on stderr, its stages in order, counts that never go back, and the same stdout as with --quiet.
No timing: the interval 0 writes every line whatever the machine's speed."""
from __future__ import annotations

import re

import pytest

from conftest import FIXTURES, SPACY_MODEL
from peet_fast.cli import main

RANK = FIXTURES / "rank"
SYSTEMS = [RANK / "good.txt", RANK / "middle.txt", RANK / "weak.txt"]
SPACY = ["--spacy-model", SPACY_MODEL]
LINE = re.compile(r"(?P<label>[^:(]+(?:: [^:]+?)?)(?:: (?P<done>[\d,]+)(?:/(?P<total>[\d,]+))? \w+ \([\d,.]+/s, "
                  r"(?:ETA |in )?\d+:\d\d:\d\d(?: so far)?\)| \((?:in )?\d+:\d\d:\d\d(?: so far)?\))")


def _train_data(tmp_path):
    rows = [ln.split("\t") for ln in (FIXTURES / "en_pairs.tsv").read_text("utf-8").splitlines()][:40]
    path = tmp_path.parent / "data.tsv"        # one file for the --quiet run and the other (it is printed)
    path.write_text("mo\ttrg\ttime\n" + "".join(f"{r[0]}\t{r[1]}\t{2 + k % 7}.5\n" for k, r in enumerate(rows)),
                    "utf-8")
    return path


def _agreement():
    fix = FIXTURES / "agreement"
    return ["agreement", "--src", fix / "src.txt", "--ref", fix / "a.txt", fix / "b.txt", fix / "c.txt", *SPACY]


COMMANDS = {
    "rank": lambda tmp: ["rank", "--hyp", *SYSTEMS, "--ref", RANK / "reference.txt", "--src", RANK / "source.txt",
                         "--metric", "peet", "gleu", "--bootstrap", "20", *SPACY],
    "report": lambda tmp: ["report", "--hyp", *SYSTEMS, "--ref", RANK / "reference.txt", "--src", RANK / "source.txt",
                           "--metric", "gleu", "wer", "--human", RANK / "human.csv", "--human-ignore", "ref",
                           "--bootstrap", "20", "--meta-eval-own", "--out", tmp / "report", *SPACY],
    "compare": lambda tmp: ["compare", "--src", RANK / "source.txt", "--hyp", RANK / "good.txt", "--ref",
                            RANK / "reference.txt", *SPACY],
    "m2": lambda tmp: ["m2", "-orig", RANK / "source.txt", "-cor", RANK / "good.txt", "-out", tmp / "o.m2", *SPACY],
    "gleu": lambda tmp: ["gleu", "-s", RANK / "source.txt", "-r", RANK / "reference.txt", "-o", *SYSTEMS],
    "meta-eval": lambda tmp: ["meta-eval", "--outputs", *SYSTEMS, "--ref", RANK / "reference.txt", "--src",
                              RANK / "source.txt", "--human", RANK / "human.csv", "--human-ignore", "ref",
                              "--metric", "gleu", "wer", "--level", "system", *SPACY],
    "human-rank": lambda tmp: ["human-rank", FIXTURES / "human_rank" / "synthetic.xml", "--bootstrap", "20"],
    "agreement": lambda tmp: _agreement(),
    "ensemble": lambda tmp: ["ensemble", "--src", RANK / "source.txt", "--hyp", *SYSTEMS, "--out", tmp / "e.txt",
                             *SPACY],
    "excgec": lambda tmp: ["excgec", "--hyp", FIXTURES / "excgec" / "hyp.json", "--ref",
                           FIXTURES / "excgec" / "ref.json", "--no-correction"],
    "train": lambda tmp: ["train", "--data", _train_data(tmp), "--features", "small", "--out", tmp / "m.json",
                          *SPACY],
}


def _run(capsys, argv):
    capsys.readouterr()
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _outputs(tmp_path, name):
    out = tmp_path / name
    out.mkdir(exist_ok=True)
    return out


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_long_command_reports_progress_and_leaves_stdout_alone(command, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PEET_FAST_PROGRESS_INTERVAL", "0")
    quiet_status, quiet_out, quiet_err = _run(capsys, [*COMMANDS[command](_outputs(tmp_path, "q")), "--quiet"])
    assert quiet_status == 0, quiet_err
    status, out, err = _run(capsys, COMMANDS[command](_outputs(tmp_path, "p")))
    assert status == 0, err
    assert out == quiet_out                                     # the table: the same with progress on
    progress = [ln for ln in err.splitlines() if ln.startswith(command + ":") or ln.startswith(command + " (")]
    assert progress, err
    assert not [ln for ln in quiet_err.splitlines() if LINE.fullmatch(ln) and ln.startswith(command)], quiet_err
    counts: dict[str, int] = {}
    labels: list[str] = []
    for ln in progress:
        m = LINE.fullmatch(ln)
        assert m, ln
        label = m["label"]
        if not labels or labels[-1] != label:
            assert label not in labels, f"stage {label} came back: {progress}"      # stages follow one another
            labels.append(label)
        if m["done"] is not None:
            done = int(m["done"].replace(",", ""))
            assert done >= counts.get(label, 0), progress                   # counts never go back
            counts[label] = done


def test_rank_names_its_stages_in_order(tmp_path, capsys, monkeypatch):
    """rank: PEET counts the lines scored (out of the test set's 5), then gleu, the WER baseline and the bootstrap,
    each a stage ending with its own line."""
    monkeypatch.setenv("PEET_FAST_PROGRESS_INTERVAL", "0")
    status, _, err = _run(capsys, COMMANDS["rank"](tmp_path))
    assert status == 0, err
    n = len((RANK / "reference.txt").read_text("utf-8").splitlines())
    ends = [ln for ln in err.splitlines() if ln.startswith("rank: ") and re.search(r"\bin \d+:\d\d:\d\d\)$", ln)]
    assert [ln.split(" (")[0].split(":")[1].strip() for ln in ends] == ["peet", "gleu", "wer", "bootstrap"], err
    assert ends[0].startswith(f"rank: peet: {n}/{n} lines (")
