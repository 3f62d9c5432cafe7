"""Every command's inputs, end to end: a UTF-8 byte order mark at the start of a text, TSV, JSONL, CSV, M2, para,
JSON or resource file changes nothing (the command is run twice, without and with the mark, and its outputs are
compared byte for byte), and an input with no rows is refused with exit 2, one line naming the file, nothing written.
"""
from __future__ import annotations

import importlib.resources
import json
import re
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import FIXTURES, SPACY_MODEL

from peet_fast.en.features import feature_table_schema
from peet_fast.io import UTF8_BOM
from peet_fast.peet.model import PUBLISHED

SPACY = ["--spacy-model", SPACY_MODEL]
MO = ["He go home .", "This are good .", "", "I like it ."]
TRG = ["He goes home .", "This is good .", "Hello .", "I like it ."]
ALT = ["He goes to home .", "This are good .", "", "I liked it ."]
TIMED = [(f"Sentence number {k} is here .", f"Sentence number {k} is here now .", 10 + k) for k in range(8)]


def lines(rows) -> bytes:
    return "".join(r + "\n" for r in rows).encode("utf-8")


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


TEXTS = {"h.txt": lines(MO), "r.txt": lines(TRG), "a.txt": lines(ALT)}
TSV = lines(["id\tmo\ttrg"] + [f"x{k}\t{m}\t{t}" for k, (m, t) in enumerate(zip(MO, TRG))])
TSV_MO_FIRST = lines(["mo\ttrg"] + [f"{m}\t{t}" for m, t in zip(MO, TRG)])
JSONL = lines([json.dumps({"id": f"x{k}", "mo": m, "trg": t}) for k, (m, t) in enumerate(zip(MO, TRG))])
TIMED_TSV = lines(["mo\ttrg\ttime"] + [f"{m}\t{t}\t{s}" for m, t, s in TIMED])
RANK = {n: fixture(f"rank/{n}") for n in ("good.txt", "middle.txt", "weak.txt", "reference.txt", "human.csv")}
ZH = {"p.para": fixture("zh/chars.para"), "conf.txt": fixture("zh/confusion.txt")}
ZH_FLAGS = ["--cilin", str(FIXTURES / "zh" / "cilin.txt"), "--confusion", "{d}/conf.txt"]
MODEL_JSON = (importlib.resources.files("peet_fast.peet") / "models" / PUBLISHED).read_bytes()

# (command line with {d} for the directory, text inputs (each gets the mark), outputs compared)
BOM_CASES = {
    "score": (["score", "--hyp", "{d}/h.txt", "{d}/a.txt", "--ref", "{d}/r.txt", "--summary", "{d}/s.json", *SPACY],
              TEXTS, ["s.json"]),
    "score-job-model": (["score", "--hyp", "{d}/h.txt", "--ref", "{d}/r.txt", "--out", "{d}/job", "--shard-rows", "3",
                         "--model", "{d}/m.json", *SPACY],
                        {**TEXTS, "m.json": MODEL_JSON}, ["job"]),
    "featurize-text": (["featurize", "--mo", "{d}/h.txt", "--trg", "{d}/r.txt", "--out", "{d}/f.parquet", *SPACY],
                       TEXTS, ["f.parquet"]),
    "featurize-tsv": (["featurize", "--pairs", "{d}/p.tsv", "--out", "{d}/job", "--shard-rows", "2", *SPACY],
                      {"p.tsv": TSV}, ["job"]),
    "featurize-tsv-mo-first": (["featurize", "--pairs", "{d}/p.tsv", "--out", "{d}/job", *SPACY],
                               {"p.tsv": TSV_MO_FIRST}, ["job"]),
    "featurize-jsonl": (["featurize", "--pairs", "{d}/p.jsonl", "--out", "{d}/job", "--shard-rows", "3", *SPACY],
                        {"p.jsonl": JSONL}, ["job"]),
    "m2": (["m2", "-orig", "{d}/h.txt", "-cor", "{d}/r.txt", "{d}/a.txt", "-out", "{d}/o.m2", *SPACY], TEXTS,
           ["o.m2"]),
    "compare-m2": (["compare", "--hyp", "{d}/hyp.m2", "--ref", "{d}/ref.m2", "-cat", "3"],
                   {"hyp.m2": fixture("compare/hyp.m2"), "ref.m2": fixture("compare/ref.m2")}, []),
    "compare-src": (["compare", "--src", "{d}/h.txt", "--hyp", "{d}/a.txt", "--ref", "{d}/r.txt", *SPACY], TEXTS,
                    []),
    "ensemble": (["ensemble", "--src", "{d}/h.txt", "--hyp", "{d}/r.txt", "{d}/a.txt", "{d}/r.txt", "--out",
                  "{d}/e.txt", *SPACY], TEXTS, ["e.txt"]),
    "rank-human-csv": (["rank", "--hyp", "{d}/good.txt", "{d}/middle.txt", "{d}/weak.txt", "--ref",
                        "{d}/reference.txt", "--human", "{d}/human.csv", "--human-ignore", "ref", "--bootstrap", "20",
                        *SPACY], RANK, []),
    "train": (["train", "--data", "{d}/t.tsv", "--features", "small", "--out", "{d}/model.json", *SPACY],
              {"t.tsv": TIMED_TSV}, ["model.json"]),
    "m2-zh-para": (["m2", "--lang", "zh", "-para", "{d}/p.para", "-out", "{d}/o.m2", *ZH_FLAGS], ZH, ["o.m2"]),
    "compare-zh-para": (["compare", "--lang", "zh", "--para", "--hyp", "{d}/p.para", "--ref", "{d}/p.para",
                         *ZH_FLAGS], ZH, []),
    "excgec": (["excgec", "--hyp", "{d}/hyp.json", "--ref", "{d}/ref.json", "--no-correction"],
               {"hyp.json": fixture("excgec/hyp.json"), "ref.json": fixture("excgec/ref.json")}, []),
}


def run(run_cli, argv, d: Path):
    return run_cli(*(a.format(d=d) for a in argv))


def outputs(d: Path, names) -> dict:
    """The bytes of each output; of a job directory, its part files' tables (the manifest and each part file's own
    entry record input digests, and shard 0's covers the byte order mark)."""
    got = {}
    for name in names:
        p = d / name
        if p.is_dir():
            got.update({f.name: parquet_bytes(pq.read_table(f)) for f in sorted(p.glob("part-*"))})
        else:
            got[p.name] = p.read_bytes()
    return got


@pytest.mark.parametrize("case", BOM_CASES)
def test_a_byte_order_mark_changes_nothing(tmp_path, run_cli, case):
    """The command without marks, then with a mark on one input at a time: the same stdout, stderr and outputs."""
    argv, texts, outs = BOM_CASES[case]
    results = {}
    for marked in (None, *texts):
        for name, data in texts.items():
            (tmp_path / name).write_bytes((UTF8_BOM if name == marked else b"") + data)
        rc, out, err = run(run_cli, argv, tmp_path)
        assert rc == 0, err
        results[marked] = (out, re.sub(r"\d+\.\d+ s\b", "N s", err), outputs(tmp_path, outs))
        for name in outs:
            shutil.rmtree(tmp_path / name) if (tmp_path / name).is_dir() else (tmp_path / name).unlink()
    assert results[None][2] or not outs
    for marked, got in results.items():
        assert got == results[None], marked


def parquet_bytes(table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


def parquet() -> bytes:
    """An empty table of time-annotated pairs."""
    return parquet_bytes(pa.table({"mo": pa.array([], pa.string()), "trg": pa.array([], pa.string()),
                                   "time": pa.array([], pa.float64())}))


E = "{d}/e.txt"
FEATURES = parquet_bytes(feature_table_schema("small").empty_table())
TEXT_EMPTY = {"e.txt": b"", "h.txt": lines(MO)}
# (command line, inputs, the file the message names)
EMPTY_CASES = {
    "score": (["score", "--hyp", E, "--ref", E, "--summary", "{d}/s.json", *SPACY], TEXT_EMPTY, "e.txt"),
    "score-job": (["score", "--hyp", E, "--ref", E, "--out", "{d}/job", *SPACY], TEXT_EMPTY, "e.txt"),
    "score-bom-only": (["score", "--hyp", E, "--ref", E, "--out", "{d}/job", *SPACY], {"e.txt": UTF8_BOM}, "e.txt"),
    "rank": (["rank", "--hyp", E, "--ref", E, "--summary", "{d}/s.json", *SPACY], TEXT_EMPTY, "e.txt"),
    "report": (["report", "--hyp", E, "--ref", E, "--out", "{d}/rep", *SPACY], TEXT_EMPTY, "e.txt"),
    "featurize-text-file": (["featurize", "--mo", E, "--trg", E, "--out", "{d}/f.parquet", *SPACY], TEXT_EMPTY,
                            "e.txt"),
    "featurize-text-job": (["featurize", "--mo", E, "--trg", E, "--out", "{d}/job", *SPACY], TEXT_EMPTY, "e.txt"),
    "featurize-empty-tsv": (["featurize", "--pairs", "{d}/p.tsv", "--out", "{d}/job"], {"p.tsv": b""}, "p.tsv"),
    "featurize-header-only": (["featurize", "--pairs", "{d}/p.tsv", "--out", "{d}/job"],
                              {"p.tsv": UTF8_BOM + b"id\tmo\ttrg\r\n"}, "p.tsv"),
    "featurize-blank-header": (["featurize", "--pairs", "{d}/p.tsv", "--out", "{d}/job"],
                               {"p.tsv": b"\n" + TSV_MO_FIRST}, "p.tsv:1"),
    "featurize-data-header": (["featurize", "--pairs", "{d}/p.tsv", "--out", "{d}/job"],
                              {"p.tsv": TSV_MO_FIRST.split(b"\n", 1)[1]}, "p.tsv:1"),
    "featurize-empty-jsonl": (["featurize", "--pairs", "{d}/p.jsonl", "--out", "{d}/job"], {"p.jsonl": b""},
                              "p.jsonl"),
    "featurize-empty-parquet": (["featurize", "--pairs", "{d}/p.parquet", "--out", "{d}/job"],
                                {"p.parquet": parquet()}, "p.parquet"),
    "m2": (["m2", "-orig", E, "-cor", E, "-out", "{d}/o.m2", *SPACY], TEXT_EMPTY, "e.txt"),
    "m2-zh-para": (["m2", "--lang", "zh", "-para", E, "-out", "{d}/o.m2", "--no-t2s"], TEXT_EMPTY, "e.txt"),
    "compare-m2": (["compare", "--hyp", E, "--ref", E, "--summary", "{d}/s.json"], TEXT_EMPTY, "e.txt"),
    "compare-m2-blank": (["compare", "--hyp", "{d}/b.m2", "--ref", "{d}/b.m2"], {"b.m2": b"\n\n"}, "b.m2"),
    "compare-src": (["compare", "--src", E, "--hyp", E, "--ref", E, *SPACY], TEXT_EMPTY, "e.txt"),
    "compare-para": (["compare", "--lang", "zh", "--para", "--hyp", E, "--ref", E], TEXT_EMPTY, "e.txt"),
    "ensemble": (["ensemble", "--src", E, "--hyp", E, E, "--out", "{d}/o.txt", *SPACY], TEXT_EMPTY, "e.txt"),
    "excgec": (["excgec", "--hyp", "{d}/x.json", "--ref", "{d}/x.json", "--summary", "{d}/s.json",
                "--no-correction"], {"x.json": b'{"samples": []}'}, "x.json"),
    "predict": (["predict", "--features", "{d}/f.parquet", "--out", "{d}/p.parquet"], {"f.parquet": FEATURES},
                "f.parquet"),
}
for _cmd in ("train", "explain"):
    _argv = (["train", "--features", "small", "--out", "{d}/m.json"] if _cmd == "train"
             else ["explain", "published", "--json", "{d}/x.json"])
    for _name, _data in (("d.tsv", b""), ("d.tsv", b"mo\ttrg\ttime\n"), ("d.tsv", b"\n"), ("d.jsonl", b""),
                         ("d.jsonl", UTF8_BOM), ("d.parquet", parquet())):
        EMPTY_CASES[f"{_cmd}-{_name}-{len(_data)}"] = ([*_argv, "--data", f"{{d}}/{_name}", *SPACY], {_name: _data},
                                                       _name + (":1" if _data == b"\n" else ""))


@pytest.mark.parametrize("case", EMPTY_CASES)
def test_an_input_without_rows_is_refused(tmp_path, run_cli, case):
    argv, inputs, named = EMPTY_CASES[case]
    for name, data in inputs.items():
        (tmp_path / name).write_bytes(data)
    rc, out, err = run(run_cli, argv, tmp_path)
    assert rc == 2, err
    assert err.count("\n") == 1 and f"{tmp_path}/{named}: " in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(inputs), "wrote output"
