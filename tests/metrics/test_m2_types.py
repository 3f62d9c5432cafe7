"""Per-type breakdowns (Metric.breakdown): M2 recall per gold error type against the official m2scorer's own -v report
(tests/fixtures/m2scorer/*.v.out: the chosen annotator and its correct edits per sentence, typed by the gold M2's A
lines), and ERRANT's per-type P/R/F against errant_compare -cat (errant_parallel + errant_compare run here)."""
from __future__ import annotations

import ast
import gzip
import re
from collections import Counter

import errant_oracle
import numpy as np
import pytest
from conftest import FIXTURES, SPACY_MODEL
from test_compare import errant_compare

from peet_fast.metrics.base import EvalSet, get_metric
from peet_fast.metrics.m2 import read_system
from peet_fast.metrics.m2_types import matched_gold

M2S = FIXTURES / "m2scorer"
RANK = FIXTURES / "rank"


def official_report(name: str) -> str:
    path = M2S / f"{name}.out"
    return path.read_text(encoding="utf-8") if path.exists() else gzip.decompress(
        (M2S / f"{name}.out.gz").read_bytes()).decode("utf-8")


def gold_a_lines(path) -> list[dict[int, list[tuple]]]:
    """Per block {annotator: [(start, end, [corrections], type)]} straight from the A lines (noop left out)."""
    out = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        if not block.strip():
            continue
        per: dict[int, list[tuple]] = {}
        for line in block.splitlines()[1:]:
            f = line[2:].split("|||")
            s, e = map(int, f[0].split())
            if f[1] == "noop":
                continue
            cors = ["" if c == "-NONE-" else c.strip() for c in f[2].split("||")]
            per.setdefault(int(f[5]), []).append((s, e, cors, f[1]))
        out.append(per)
    return out


def expected_by_type(report: str, gold: list) -> dict:
    """{type: [gold, TP]} from the official -v report: per sentence the chosen annotator's correct edits, each
    typed by the first unused gold edit of that annotator with its span and one of its corrections."""
    correct_of: dict[str, list] = {}
    counts: dict[str, list[int]] = {}
    k = 0
    for line in report.splitlines():
        if line.startswith(">> Annotator:"):
            ann = line.split(":", 1)[1].strip()
        elif line.startswith("CORRECT EDITS :"):
            correct_of[ann] = ast.literal_eval(line.split(":", 1)[1].strip())
        elif line.startswith(">> Chosen Annotator for line"):
            chosen = line.rsplit(":", 1)[1].strip()
            edits = gold[k].get(int(chosen), [])
            used = set()
            for s, e, _, cor in correct_of.get(chosen, []):
                i = next(i for i, g in enumerate(edits) if i not in used and g[:2] == (s, e) and cor in g[2])
                used.add(i)
            for i, g in enumerate(edits):
                row = counts.setdefault(g[3], [0, 0])
                row[0] += 1
                row[1] += i in used
            correct_of, k = {}, k + 1
    assert k == len(gold)
    return counts


@pytest.mark.parametrize("name", ["gen", "cases"])
def test_m2_recall_per_type_is_the_official_reports(name):
    gold = M2S / f"{name}.m2"
    metric = get_metric("m2")
    stats = metric.sentence_stats(read_system(str(M2S / f"{name}.txt")), EvalSet(None, [], None, str(gold)))
    got = metric.breakdown(stats)
    want = expected_by_type(official_report(f"{name}.v"), gold_a_lines(gold))
    assert {t: [r["gold"], r["TP"]] for t, r in got.items()} == want
    assert sum(r["TP"] for r in got.values()) == stats[:, 0].sum()           # the official CORRECT EDITS
    assert all(r["R"] == r["TP"] / r["gold"] and r["FN"] == r["gold"] - r["TP"] for r in got.values())
    assert list(got) == sorted(got)


def test_matched_gold_follows_matchseq():
    gold = [(1, 2, "a", ["b"]), (1, 2, "a", ["b"]), (4, 4, "", ["x", "y"])]
    assert matched_gold([(1, 2, "a", "b"), (4, 4, "", "y")], gold) == [2]       # from the end: (4,4) first
    assert matched_gold([(1, 2, "a", "b")], gold) == [0, 1]                     # one edit, two equal gold edits
    assert matched_gold([(1, 2, "a", "c")], gold) == []


def test_breakdown_needs_this_instances_stats():
    metric = get_metric("m2")
    assert metric.breakdown(np.zeros((3, 3))) is None
    assert get_metric("wer").breakdown(np.zeros((3, 2))) is None


def cat_table(report: str) -> dict:
    """{category: [TP, FP, FN, P, R, F]} of errant_compare -cat's table."""
    rows = {}
    for line in report.splitlines():
        m = re.match(r"^(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)$", line)
        if m and m.group(1) != "Category":
            rows[m.group(1)] = [int(m.group(2)), int(m.group(3)), int(m.group(4)), float(m.group(5)),
                                float(m.group(6)), float(m.group(7))]
    return rows


@pytest.mark.parametrize("level", [1, 2, 3])
def test_errant_per_type_is_errant_compare_cat(tmp_path, level):
    import peet_fast

    annotator = peet_fast.load("en", spacy_model=SPACY_MODEL)
    src, refs = RANK / "source.txt", [RANK / "reference.txt", RANK / "reference2.txt"]
    lines = [p.read_text(encoding="utf-8").splitlines() for p in (src, *refs)]
    metric = get_metric("errant")
    systems = ["weak", "middle"]
    stats = metric.system_stats([(RANK / f"{s}.txt").read_text(encoding="utf-8").splitlines() for s in systems],
                                EvalSet(lines[0], lines[1:], annotator=lambda: annotator))
    ref_m2 = tmp_path / "ref.m2"
    errant_oracle.run(["-orig", str(src), "-cor", *map(str, refs), "-out", str(ref_m2)], SPACY_MODEL)
    for s, st in zip(systems, stats):
        hyp_m2 = tmp_path / f"{s}.m2"
        errant_oracle.run(["-orig", str(src), "-cor", str(RANK / f"{s}.txt"), "-out", str(hyp_m2)], SPACY_MODEL)
        want = cat_table(errant_compare(hyp_m2, ref_m2, "-cat", str(level)))
        got = {k: [v["TP"], v["FP"], v["FN"], v["P"], v["R"], v["F0.5"]]
               for k, v in metric.breakdown(st, level=level).items()}
        assert got == want and want, s
        assert Counter({k: v[0] for k, v in got.items()}).total() == st[:, 0].sum()


def test_rank_summary_carries_the_breakdowns(tmp_path):
    import json

    from peet_fast.cli import main

    summary = tmp_path / "summary.json"
    assert main(["rank", "--hyp", str(M2S / "gen.txt"), "--ref", str(M2S / "gen.m2"), "--metric", "m2", "wer",
                 "--bootstrap", "10", "--summary", str(summary)]) == 0
    entry = json.loads(summary.read_text())["systems"][0]["metrics"]
    metric = get_metric("m2")
    stats = metric.sentence_stats(read_system(str(M2S / "gen.txt")), EvalSet(None, [], None, str(M2S / "gen.m2")))
    assert entry["m2"]["breakdown"] == metric.breakdown(stats)
    assert "breakdown" not in entry["wer"]
