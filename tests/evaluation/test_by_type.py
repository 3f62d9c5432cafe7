"""Per-type figures of many systems (`rank` / `report --by-type`, issue 44, point 1): hand-computed cases, the
per-sentence counts against the corpus figures, and differential runs against errant_compare -cat N (errant_parallel
+ errant_compare, run here) on CoNLL-14 systems with the official gold's two annotators, and against ChERRANT's
published MuCGEC totals."""
from __future__ import annotations

import json
import re

import errant_oracle
import numpy as np
import pytest
from conftest import SHARED_CORPORA, SPACY_MODEL
from hypothesis import given, strategies as st
from errant_oracle import errant_compare

from peet_fast.cli import main
from peet_fast.evaluation.by_type import ByType, edit_outcomes, f_values, format_table, score_types
from peet_fast.metrics.span import SpanOptions, f_score, m2_sentences

CONLL = SHARED_CORPORA / "conll14"
MUCGEC = SHARED_CORPORA / "mucgec" / "reference"
RANK = __import__("conftest").FIXTURES / "rank"


def cat_table(report: str) -> dict:
    """errant_compare -cat N's category rows: {type: (TP, FP, FN, P, R, F)}."""
    out = {}
    lines = report.splitlines()
    start = next(k for k, ln in enumerate(lines) if ln.startswith("Category"))
    for ln in lines[start + 1:]:
        if not ln.strip():
            break
        name, tp, fp, fn, p, r, f = ln.split()
        out[name] = (int(tp), int(fp), int(fn), float(p), float(r), float(f))
    return out


def ours(row: dict) -> tuple:
    return row["TP"], row["FP"], row["FN"], row["P"], row["R"], row["F0.5"]


# --- hand-computed ---------------------------------------------------------------------------------------------------

HYP_A = [{0: [(1, 2, "R:VERB:SVA", "is")]}, {0: [(0, 1, "R:DET", "The"), (4, 4, "M:PUNCT", ".")]}, {}]
HYP_B = [{}, {0: [(0, 1, "R:DET", "A")]}, {0: [(2, 3, "R:NOUN:NUM", "cats")]}]
REF = [{0: [(1, 2, "R:VERB:SVA", "is"), (3, 3, "M:DET", "a")], 1: [(1, 2, "R:VERB:SVA", "is")]},
       {0: [(0, 1, "R:DET", "The")]},
       {0: [(2, 3, "R:NOUN:NUM", "cats")]}]


def test_hand_computed_figures_and_counts():
    bt = score_types(["A", "B"], [HYP_A, HYP_B], REF, 3)
    a, b = bt.systems
    # A: sentence 0 picks annotator 1 (TP 1, nothing missed); sentence 1: R:DET TP, M:PUNCT FP; sentence 2: FN
    assert a.figures["R:VERB:SVA"] == {"TP": 1, "FP": 0, "FN": 0, "P": 1.0, "R": 1.0, "F0.5": 1.0}
    assert a.figures["M:PUNCT"] == {"TP": 0, "FP": 1, "FN": 0, "P": 0.0, "R": 1.0, "F0.5": 0.0}
    assert a.figures["R:NOUN:NUM"] == {"TP": 0, "FP": 0, "FN": 1, "P": 1.0, "R": 0.0, "F0.5": 0.0}
    assert a.totals == (2, 1, 1) and "M:DET" not in a.figures
    # B: sentence 0 (no edits) against annotator 1's one edit is the better running F: FN under R:VERB:SVA
    assert b.figures["R:VERB:SVA"]["FN"] == 1 and b.figures["R:DET"] == {"TP": 0, "FP": 1, "FN": 1, "P": 0.0,
                                                                          "R": 0.0, "F0.5": 0.0}
    assert b.totals == (1, 1, 2)
    assert bt.types == ["M:PUNCT", "R:DET", "R:NOUN:NUM", "R:VERB:SVA"]
    for s in bt.systems:            # the per-sentence counts of the chosen pairs sum to the corpus figures
        sums = s.counts.sum(axis=0)
        for t, row in s.figures.items():
            assert tuple(sums[bt.types.index(t)]) == (row["TP"], row["FP"], row["FN"])
    level1 = score_types(["A"], [HYP_A], REF, 1).systems[0].figures
    assert level1["R"] == {"TP": 2, "FP": 0, "FN": 1, **dict(zip(("P", "R", "F0.5"), f_score(2, 0, 1)))}
    assert level1["M"]["FP"] == 1


def test_intervals_are_the_paired_bootstrap_of_each_type():
    bt = score_types(["A", "B"], [HYP_A, HYP_B], REF, 3, resamples=400, seed=3)
    a, b = bt.systems
    # a resample in which a system has no edit of a type leaves the type out of that system's interval
    assert a.ci["R:VERB:SVA"] == (1.0, 1.0)           # TP where drawn
    assert a.ci["M:PUNCT"] == (0.0, 0.0)              # FP where drawn (F 0)
    assert b.ci["R:DET"] == (0.0, 0.0)                # FP and FN (F 0)
    d = bt.difference("A", "B")
    assert d["R:NOUN:NUM"] == (-1.0, -1.0, -1.0)     # A misses it (F 0), B finds it (F 1), in the same sentence
    assert d["R:VERB:SVA"] == (1.0, 1.0, 1.0)        # A finds it, B misses it
    assert all(np.isnan(x) for x in d["M:PUNCT"])    # B has no M:PUNCT edit at all
    # the same seed gives the same intervals; the summary carries them
    again = score_types(["A", "B"], [HYP_A, HYP_B], REF, 3, resamples=400, seed=3)
    assert np.array_equal(again.boot, bt.boot, equal_nan=True)
    entry = bt.summary()["systems"][0]["types"]["R:VERB:SVA"]
    assert entry["ci_low"] == entry["ci_high"] == 1.0 and entry["support"] == 1


def test_f_values_match_the_tools_rule():
    counts = np.array([[0, 0, 0], [0, 3, 0], [0, 0, 2], [2, 1, 1], [5, 0, 3]])
    expected = [f_score(*c)[2] for c in counts.tolist()]
    assert np.round(f_values(counts, 0.5), 4).tolist() == expected


def test_edit_outcomes_marks_as_the_scorer_counts():
    hyp = [(1, 2, "R:VERB", "is"), (3, 3, "M:DET", "a"), (-1, -1, "noop", "-NONE-")]
    ref = [(1, 2, "R:VERB:SVA", "is"), (5, 6, "U:DET", "")]
    h, r = edit_outcomes(hyp, ref)
    assert [o for _, o in h] == ["TP", "FP"] and [o for _, o in r] == ["TP", "FN"]


def test_table_lists_every_system_and_type():
    bt = score_types(["A", "B"], [HYP_A, HYP_B], REF, 3)
    lines = format_table(bt).splitlines()
    assert lines[0].split() == ["system", "type", "TP", "FP", "FN", "P", "R", "F0.5", "95%", "CI"]
    assert lines[1].split()[:5] == ["A", "M:PUNCT*", "0", "1", "0"] and len(lines) == 1 + 4 + 3


# --- differential: errant_compare -cat N on CoNLL-14 systems -------------------------------------------------------

N_SENTENCES = 120


@pytest.fixture(scope="module")
def conll_subset(tmp_path_factory):
    """The first N_SENTENCES sentences of the official gold and of the 12 shared-task systems, and errant_parallel's
    M2 of each system and of the gold's two annotators' corrections."""
    if not (CONLL / "official-2014.combined.m2").exists():
        pytest.skip("../shared/corpora/conll14 is not there")
    from peet_fast.formats.m2 import annotator_references, read_m2

    d = tmp_path_factory.mktemp("conll_by_type")
    blocks = (CONLL / "official-2014.combined.m2").read_text(encoding="utf-8").split("\n\n")[:N_SENTENCES]
    gold = d / "gold.m2"
    gold.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    parsed = read_m2(str(gold))
    src = d / "src.txt"
    src.write_text("".join(" ".join(b.source) + "\n" for b in parsed), encoding="utf-8")
    refs = []
    for k, lines in enumerate(annotator_references(parsed)):
        refs.append(d / f"ref{k}.txt")
        refs[-1].write_text("".join(ln + "\n" for ln in lines), encoding="utf-8")
    ref_m2 = d / "ref.m2"
    errant_oracle.run(["-orig", str(src), "-cor", *map(str, refs), "-out", str(ref_m2)], SPACY_MODEL)
    systems = {}
    for path in sorted((CONLL / "systems").glob("conll14-task-*.txt")):
        name = path.stem.replace("conll14-task-", "")
        if name == "INPUT":
            continue
        hyp = d / f"{name}.txt"
        hyp.write_text("".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:N_SENTENCES]),
                       encoding="utf-8")
        hyp_m2 = d / f"{name}.m2"
        errant_oracle.run(["-orig", str(src), "-cor", str(hyp), "-out", str(hyp_m2)], SPACY_MODEL)
        systems[name] = (hyp, hyp_m2)
    return d, gold, ref_m2, systems


@pytest.mark.slow
def test_rank_by_type_equals_errant_compare_cat3_on_conll14(conll_subset, capsys):
    d, gold, ref_m2, systems = conll_subset
    summary = d / "summary.json"
    hyps = [f"{n}={p}" for n, (p, _) in systems.items()]
    assert main(["rank", "--hyp", *hyps, "--ref", str(gold), "--metric", "wer", "--by-type", "3",
                 "--bootstrap", "20", "--summary", str(summary)]) == 0
    got = {s["name"]: s for s in json.loads(summary.read_text())["by_type"]["systems"]}
    assert len(got) == 12
    cells = 0
    for name, (_, hyp_m2) in systems.items():
        expected = cat_table(errant_compare(hyp_m2, ref_m2, "-cat", "3"))
        assert {t: ours(row) for t, row in got[name]["types"].items()} == expected, name
        tp, fp, fn, *_ = errant_oracle.totals(errant_compare(hyp_m2, ref_m2))
        assert (got[name]["TP"], got[name]["FP"], got[name]["FN"]) == (tp, fp, fn)
        cells += len(expected)
    assert cells > 12 * 10
    out = capsys.readouterr().out
    assert re.search(r"^system\s+type\s+TP\s+FP\s+FN\s+P\s+R\s+F0\.5\s+95% CI$", out, re.M)


@pytest.mark.slow
@pytest.mark.parametrize("level", [1, 2])
def test_levels_1_and_2_equal_errant_compare_on_conll14(conll_subset, level):
    from peet_fast.formats.m2 import read_m2

    _, _, ref_m2, systems = conll_subset
    ref = m2_sentences(read_m2(str(ref_m2)))
    names = sorted(systems)[:4]
    bt = score_types(names, [m2_sentences(read_m2(str(systems[n][1]))) for n in names], ref, level)
    for s in bt.systems:
        expected = cat_table(errant_compare(systems[s.name][1], ref_m2, "-cat", str(level)))
        assert {t: ours(row) for t, row in s.figures.items()} == expected


# --- MuCGEC: ChERRANT's types and rules ------------------------------------------------------------------------------

@pytest.mark.slow
def test_mucgec_per_type_sums_to_cherrant_totals():
    if not MUCGEC.exists():
        pytest.skip("../shared/corpora/mucgec is not there")
    from peet_fast.formats.m2 import read_m2
    from peet_fast.languages import span_rules

    published = json.loads((MUCGEC / "scores.json").read_text(encoding="utf-8"))["chERRANT_default_all"]
    hyp = m2_sentences(read_m2(str(MUCGEC / "mucgec_dev.example_pred.m2.char")))
    ref = m2_sentences(read_m2(str(MUCGEC / "mucgec_dev.ref.m2.char")))
    bt = score_types(["example_pred"], [hyp], ref, 3, SpanOptions(**span_rules("zh")))
    s = bt.systems[0]
    assert s.totals == (published["TP"], published["FP"], published["FN"])
    sums = [sum(row[k] for row in s.figures.values()) for k in ("TP", "FP", "FN")]
    assert tuple(sums) == s.totals
    assert {t.split(":")[0] for t in s.figures} <= {"M", "R", "S", "W"}       # ChERRANT's operations
    assert isinstance(bt, ByType) and bt.summary()["systems"][0]["TP"] == published["TP"]


def _errant_readable(text: str, drop: set) -> str:
    """A ChERRANT M2 as errant_compare scores it the way ChERRANT does: its T lines left out (the alternative
    alignments stay pooled under their annotator id, as both tools pool them), the spaces of every correction
    removed (ChERRANT's first rule), the blocks numbered in `drop` (NA sentences, ChERRANT's second rule) left out."""
    out = []
    for k, block in enumerate(text.strip().split("\n\n")):
        if k in drop:
            continue
        lines = []
        for ln in block.split("\n"):
            if ln.startswith("A "):
                f = ln.split("|||")
                f[2] = f[2].replace(" ", "")
                ln = "|||".join(f)
            if not ln.startswith("T"):
                lines.append(ln)
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n\n"


@pytest.mark.slow
@pytest.mark.parametrize("level", [1, 3])
def test_mucgec_per_type_equals_errant_compare_under_cherrants_rules(tmp_path, level):
    if not MUCGEC.exists():
        pytest.skip("../shared/corpora/mucgec is not there")
    from peet_fast.formats.m2 import read_m2
    from peet_fast.languages import span_rules

    hyp_text = (MUCGEC / "mucgec_dev.example_pred.m2.char").read_text(encoding="utf-8")
    ref_text = (MUCGEC / "mucgec_dev.ref.m2.char").read_text(encoding="utf-8")
    na = {k for k, b in enumerate(ref_text.strip().split("\n\n")) if "|||NA|||" in b}
    assert len(na) == 3
    (tmp_path / "hyp.m2").write_text(_errant_readable(hyp_text, na), encoding="utf-8")
    (tmp_path / "ref.m2").write_text(_errant_readable(ref_text, na), encoding="utf-8")
    expected = cat_table(errant_compare(tmp_path / "hyp.m2", tmp_path / "ref.m2", "-cat", str(level)))
    hyp = m2_sentences(read_m2(str(MUCGEC / "mucgec_dev.example_pred.m2.char")))
    ref = m2_sentences(read_m2(str(MUCGEC / "mucgec_dev.ref.m2.char")))
    s = score_types(["example_pred"], [hyp], ref, level, SpanOptions(**span_rules("zh"))).systems[0]
    assert {t: ours(row) for t, row in s.figures.items()} == expected
    assert set(expected) == {"M", "R", "S", "W"}      # ChERRANT's char-level operations (level 2 has no main type)


# --- the command line ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["rank", "report"])
def test_by_type_without_sources_is_refused_before_any_work(tmp_path, capsys, command):
    out = ["--summary", str(tmp_path / "s.json")] if command == "rank" else ["--out", str(tmp_path / "rep")]
    code = main([command, "--hyp", str(RANK / "good.txt"), "--ref", str(RANK / "reference.txt"), "--metric", "wer",
                 "--by-type", "3", *out])
    assert code == 2
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines() == [
        f"peet-fast {command}: error: --by-type: needs the source sentences: give --src SRC (or a gold M2 as --ref)"]
    assert captured.out == "" and list(tmp_path.iterdir()) == []


def test_the_documented_table_is_errant_compares(tmp_path):
    """docs/commands.md's --by-type example (its output checked by tests/test_docs.py): every row's TP/FP/FN/P/R/F0.5
    is errant_compare -cat 1's on errant_parallel's M2 of that system and of the two references."""
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "commands.md").read_text(encoding="utf-8")
    block = text[text.index("--metric errant --by-type 1 --bootstrap 200"):]
    block = block[:block.index("```")]
    rows = [ln.split() for ln in block.splitlines() if re.match(r"^(good|middle|weak)\s+[MRU]\*?\s", ln)]
    assert len(rows) == 9
    src = RANK / "source.txt"
    ref_m2 = tmp_path / "ref.m2"
    errant_oracle.run(["-orig", str(src), "-cor", str(RANK / "reference.txt"), str(RANK / "reference2.txt"),
                       "-out", str(ref_m2)], SPACY_MODEL)
    for name in ("good", "middle", "weak"):
        hyp_m2 = tmp_path / f"{name}.m2"
        errant_oracle.run(["-orig", str(src), "-cor", str(RANK / f"{name}.txt"), "-out", str(hyp_m2)], SPACY_MODEL)
        expected = cat_table(errant_compare(hyp_m2, ref_m2, "-cat", "1"))
        shown = {r[1].rstrip("*"): (int(r[2]), int(r[3]), int(r[4]), float(r[5]), float(r[6]), float(r[7]))
                 for r in rows if r[0] == name}
        assert shown == expected, name


# --- properties ------------------------------------------------------------------------------------------------------


TYPES = ["M:DET", "R:PREP", "U:DET", "R:VERB:SVA", "R:NOUN", "UNK"]
EDIT = st.tuples(st.integers(0, 4), st.integers(0, 2), st.sampled_from(TYPES), st.sampled_from(["a", "the", ""]))
SENT = st.dictionaries(st.integers(0, 2), st.lists(EDIT.map(lambda e: (e[0], e[0] + e[1], e[2], e[3])), max_size=3),
                       max_size=3)


@given(st.lists(st.tuples(SENT, SENT, SENT), min_size=1, max_size=6))
def test_per_sentence_counts_sum_to_compares_figures_at_every_level(rows):
    """For any sentences: each sentence's chosen-pair counts sum, per type, to compare_edits' corpus figures, and
    levels 1 and 2 are level 3's rows summed by operation and by main type (UNK kept apart)."""
    from peet_fast.metrics.span import compare_edits

    hyp_a, hyp_b, ref = ([r[k] for r in rows] for k in range(3))
    level3 = score_types(["a", "b"], [hyp_a, hyp_b], ref, 3)
    for s, hyp in zip(level3.systems, (hyp_a, hyp_b)):
        direct = compare_edits(hyp, ref)
        assert s.totals == (direct.tp, direct.fp, direct.fn)
        sums = s.counts.sum(axis=0)
        assert {t: list(sums[level3.types.index(t)]) for t in s.figures} == {
            t: [r["TP"], r["FP"], r["FN"]] for t, r in s.figures.items()}
    for level in (1, 2):
        grouped = score_types(["a", "b"], [hyp_a, hyp_b], ref, level)
        for s3, s in zip(level3.systems, grouped.systems):
            expect: dict = {}
            for t, r in s3.figures.items():
                key = t if t == "UNK" else (t[0] if level == 1 else t[2:])
                row = expect.setdefault(key, [0, 0, 0])
                for k, name in enumerate(("TP", "FP", "FN")):
                    row[k] += r[name]
            assert {t: [r["TP"], r["FP"], r["FN"]] for t, r in s.figures.items()} == expect
