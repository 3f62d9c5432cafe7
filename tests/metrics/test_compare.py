"""`peet-fast compare` against errant_compare (the English oracle, run in-process) and ChERRANT's published numbers.

Expected values come from errant's own compare_m2 (same report, byte for byte), from ChERRANT's scores recorded in
../shared/corpora/mucgec/reference/scores.json, or are computed by hand in the comments."""
from __future__ import annotations

import doctest
import json

import errant_oracle
import pytest
from conftest import FIXTURES, SPACY_MODEL
from errant_oracle import errant_compare, totals      # also imported from here by other metrics tests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from peet_fast.cli import main
from peet_fast.languages import span_rules
from peet_fast.metrics import span as S

FIX = FIXTURES / "compare"
MODES = ("cs", "cse", "ds", "dt")
OPTIONS = ([], ["-single"], ["-multi"], ["-b", "1.0"], ["-cat", "1"], ["-cat", "2"], ["-cat", "3"],
           ["-filt", "R:VERB:SVA", "UNK", "Nn"])


def ours(run_cli, *argv: str) -> tuple[int, str, str]:
    return run_cli("compare", *argv)


# --- English: errant_compare is the oracle -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: " ".join(o) or "plain")
def test_fixture_report_identical_to_errant_compare(run_cli, mode, opts):
    hyp, ref = FIX / "hyp.m2", FIX / "ref.m2"
    expected = errant_compare(hyp, ref, "-" + mode, *opts)
    rc, out, _ = ours(run_cli, "--hyp", str(hyp), "--ref", str(ref), "-" + mode, *opts)
    assert rc == 0
    assert out == expected


def test_mode_flag_spellings_agree(run_cli):
    hyp, ref = str(FIX / "hyp.m2"), str(FIX / "ref.m2")
    assert ours(run_cli, "--hyp", hyp, "--ref", ref, "--mode", "dt")[1] == ours(run_cli, "--hyp", hyp, "--ref", ref,
                                                                               "-dt")[1]
    assert ours(run_cli, "--hyp", hyp, "--ref", ref)[1] == errant_compare(FIX / "hyp.m2", FIX / "ref.m2")


@pytest.mark.parametrize("mode", MODES)
def test_summary_json_matches_errant_figures(tmp_path, run_cli, mode):
    hyp, ref = FIX / "hyp.m2", FIX / "ref.m2"
    summary = tmp_path / "s.json"
    rc, _, _ = ours(run_cli, "--hyp", str(hyp), "--ref", str(ref), "-" + mode, "--summary", str(summary))
    assert rc == 0
    got = json.loads(summary.read_text("utf-8"))
    report = errant_compare(hyp, ref, "-" + mode, "-cat", "3")
    assert (got["TP"], got["FP"], got["FN"], got["P"], got["R"], got["F0.5"]) == totals(report)
    # errant's category table: "name  TP  FP  FN  P  R  F" rows between the header and the totals
    table = report.split("F0.5\n", 1)[1].split("\n\n", 1)[0].splitlines()
    expected = {}
    for row in table:
        cat, tp, fp, fn, p, r, f = row.split()
        expected[cat] = {"TP": int(tp), "FP": int(fp), "FN": int(fn), "P": float(p), "R": float(r),
                         "F0.5": float(f)}
    assert got["per_type"] == expected


def test_api_hand_computed():
    # sentence 1: hyp 'is' matches ref 0's edit (TP 1); ref 0's insertion of 'a' is missed (FN 1).
    # sentence 2: no hyp edit, the ref candidates are {} (0 FN) and one edit (1 FN): {} wins on F.
    hyp = [{0: [(1, 2, "R:VERB:SVA", "is")]}, {}]
    ref = [{0: [(1, 2, "R:VERB:SVA", "is"), (3, 3, "M:DET", "a")]},
           {0: [(0, 1, "R:NOUN", "x")], 1: [S.NOOP]}]
    r = S.compare_edits(hyp, ref)
    assert (r.tp, r.fp, r.fn) == (1, 0, 1)
    assert (r.p, r.r, r.f) == (1.0, 0.5, 0.8333)          # F0.5 = 1.25 * 0.5 / (0.25 + 0.5)
    assert r.choices == [(0, 0), (0, 1)]
    assert r.per_type == {"R:VERB:SVA": [1, 0, 0], "M:DET": [0, 0, 1]}
    assert S.compare_edits([{}], [{}]).f == 1.0           # nothing to do, nothing done: the tools' P = R = 1
    assert doctest.testmod(S).failed == 0


def test_language_declares_its_span_rules():
    # ChERRANT's two rules are options of their own; a language's package declares the ones it uses
    hyp = [{0: [(0, 1, "S", "非常")]}, {0: [(0, 1, "S", "x")]}]
    ref = [{0: [(0, 1, "S", "非 常")]}, {0: [(-1, -1, "NA", "-NONE-")]}]
    def counts(r):
        return r.tp, r.fp, r.fn, r.choices

    zh = S.compare_edits(hyp, ref, S.SpanOptions(**span_rules("zh")))
    assert counts(zh) == (1, 0, 0, [(0, 0), None])
    assert counts(S.compare_edits(hyp, ref, S.SpanOptions(strip_cor_spaces=True, skip_na=True))) == counts(zh)
    # without skip_na the NA sentence is scored: its NA edit an FN
    assert counts(S.compare_edits(hyp, ref, S.SpanOptions(strip_cor_spaces=True))) == (1, 1, 1, [(0, 0), (0, 0)])
    assert counts(S.compare_edits(hyp, ref, S.SpanOptions(skip_na=True))) == (0, 1, 1, [(0, 0), None])
    assert counts(S.compare_edits(hyp, ref)) == (0, 2, 2, [(0, 0), (0, 0)])
    assert counts(S.compare_edits(hyp, ref, S.SpanOptions(**span_rules("en")))) == (0, 2, 2, [(0, 0), (0, 0)])
    with pytest.raises(ValueError, match="unknown language 'de'; choose from en, zh"):
        span_rules("de")
    with pytest.raises(ValueError, match="unknown mode 'xx'; choose from cs, cse, ds, dt"):
        S.SpanOptions(mode="xx")
    assert S.SpanOptions(filt=["M:DET", "M:DET"]).filt == frozenset({"M:DET"})


# --- Chinese: ChERRANT's rules, hand-computed on a small fixture ---------------------------------------------------------

def test_zh_fixture_hand_computed(run_cli, tmp_path):
    hyp, ref = str(FIX / "zh_hyp.m2"), str(FIX / "zh_ref.m2")
    summary = tmp_path / "zh.json"
    rc, out, _ = ours(run_cli, "--lang", "zh", "--hyp", hyp, "--ref", ref, "--summary", str(summary))
    assert rc == 0
    # 1: ref annotator 0 pools alignments A0 and A1: (0,1,你) twice, (2,3,-NONE-), (2,4,学); the hyp's two edits
    #    match -> TP 2 + 1, FN 1.  2: '非 常' = '非常' once spaces are removed -> TP 1.  3: NA reference: skipped.
    # 4: noop reference 0 wins (no FN).  5: '看书' = '看 书', ref 0 (no FN) wins -> TP 1.
    # TP 5, FP 0, FN 1: P 1, R 5/6, F0.5 = 1.25 * (5/6) / (0.25 + 5/6) = 0.9615
    assert totals(out) == (5, 0, 1, 1.0, 0.8333, 0.9615)
    got = json.loads(summary.read_text("utf-8"))
    assert {k: [v["TP"], v["FP"], v["FN"]] for k, v in got["per_type"].items()} == \
        {"S": [3, 0, 1], "R": [1, 0, 0], "W": [1, 0, 0]}


def test_zh_fixture_separate_alignments(run_cli):
    # 1: alignment A0 alone matches the hyp exactly (TP 2, nothing missed); the rest as above, all exact -> TP 4
    rc, out, _ = ours(run_cli, "--lang", "zh", "--alignments", "separate", "--hyp", str(FIX / "zh_hyp.m2"),
                      "--ref", str(FIX / "zh_ref.m2"))
    assert rc == 0 and totals(out) == (4, 0, 0, 1.0, 1.0, 1.0)


def test_zh_fixture_in_en_mode_is_errant(run_cli, tmp_path):
    """--lang en on a ChERRANT file: errant's rules (no space removal, NA counted), the T lines ignored."""
    stripped = {}
    for name in ("zh_hyp.m2", "zh_ref.m2"):
        lines = (FIX / name).read_text("utf-8").splitlines()
        stripped[name] = tmp_path / name
        stripped[name].write_text("\n".join(ln for ln in lines if not ln.startswith("T")) + "\n", "utf-8")
    for mode in MODES:
        expected = errant_compare(stripped["zh_hyp.m2"], stripped["zh_ref.m2"], "-" + mode)
        rc, out, _ = ours(run_cli, "--hyp", str(FIX / "zh_hyp.m2"), "--ref", str(FIX / "zh_ref.m2"), "-" + mode)
        assert rc == 0 and out == expected
    # by hand (cs): 1: TP 3, FN 1; 2: '非常' != '非 常': FP 1, FN 1; 3: FP 1 and the NA edit an FN; 4: 0;
    # 5: '看书' != '看 书': FP 1, FN 1 with ref 0 (ref 1 adds an FN) -> TP 3, FP 3, FN 4
    out = ours(run_cli, "--hyp", str(FIX / "zh_hyp.m2"), "--ref", str(FIX / "zh_ref.m2"))[1]
    assert totals(out) == (3, 3, 4, 0.5, 0.4286, 0.4839)


# --- parallel text -----------------------------------------------------------------------------------------------------

def test_parallel_text_equals_errant_parallel_then_errant_compare(tmp_path, run_cli):
    sample = FIXTURES / "sample"
    src, hyp, ref = sample / "system_a.txt", sample / "system_b.txt", sample / "reference.txt"
    hyp_m2, ref_m2 = tmp_path / "hyp.m2", tmp_path / "ref.m2"
    errant_oracle.run(["-orig", str(src), "-cor", str(hyp), "-out", str(hyp_m2)], SPACY_MODEL)
    errant_oracle.run(["-orig", str(src), "-cor", str(ref), str(src), "-out", str(ref_m2)], SPACY_MODEL)
    for mode in ("cs", "dt"):
        expected = errant_compare(hyp_m2, ref_m2, "-" + mode, "-cat", "3")
        rc, out, _ = ours(run_cli, "--src", str(src), "--hyp", str(hyp), "--ref", str(ref), str(src), "-" + mode,
                          "-cat", "3", "--spacy-model", SPACY_MODEL)
        assert rc == 0 and out == expected


# --- shared corpora ------------------------------------------------------------------------------------------------------

CONLL_SYSTEMS = ("AMU", "CAMB")


@pytest.fixture(scope="module")
def conll14_hyps(shared_corpora, tmp_path_factory):
    """One `peet-fast m2` run: INPUT -> two systems (a 2-annotator hyp M2), and each system alone (annotator 0)."""
    d = tmp_path_factory.mktemp("conll14")
    systems = shared_corpora / "conll14" / "systems"
    multi = d / "multi.m2"
    rc = main(["m2", "-orig", str(systems / "conll14-task-INPUT.txt"),
               "-cor", *(str(systems / f"conll14-task-{s}.txt") for s in CONLL_SYSTEMS),
               "-out", str(multi), "--spacy-model", SPACY_MODEL])
    assert rc == 0
    blocks = multi.read_text("utf-8").split("\n\n")
    single = {}
    for j, name in enumerate(CONLL_SYSTEMS):
        out = []
        for block in blocks:
            if not block.strip():
                continue
            lines = block.split("\n")
            keep = [ln[:ln.rindex("|||") + 3] + "0" for ln in lines[1:] if ln.endswith(f"|||{j}")]
            out.append("\n".join([lines[0], *keep]))
        single[name] = d / f"{name}.m2"
        single[name].write_text("\n\n".join(out) + "\n\n", "utf-8")
    return multi, single


@pytest.mark.parametrize("mode", MODES)
def test_conll14_systems_identical_to_errant_compare(run_cli, shared_corpora, conll14_hyps, mode):
    ref = shared_corpora / "conll14" / "official-2014.combined.m2"
    multi, single = conll14_hyps
    extra = {"cs": ["-cat", "3"], "cse": ["-single"], "ds": ["-multi"], "dt": ["-b", "2"]}[mode]
    runs = [(single["AMU"], []), (single["CAMB"], extra), (multi, [])]
    for path, opts in runs:
        expected = errant_compare(path, ref, "-" + mode, *opts)
        rc, out, _ = ours(run_cli, "--hyp", str(path), "--ref", str(ref), "-" + mode, *opts)
        assert rc == 0
        assert out == expected, (path.name, mode, opts)


@pytest.mark.parametrize("key", ["chERRANT_default_all", "chERRANT_first", "chERRANT_demo"])
def test_mucgec_identical_to_cherrant_scores(run_cli, shared_corpora, key):
    refdir = shared_corpora / "mucgec" / "reference"
    expected = json.loads((refdir / "scores.json").read_text("utf-8"))[key]
    hyp, ref = refdir / expected["hyp"], refdir / expected["ref"]
    # ChERRANT's demo hyp has a full-width colon where its ref has ':' (sentence 2): refused unless allowed
    lenient = ["--allow-source-mismatch"] if key == "chERRANT_demo" else []
    if lenient:
        rc, out, err = ours(run_cli, "--lang", "zh", "--hyp", str(hyp), "--ref", str(ref))
        assert rc == 2 and f"{hyp}:5: source of sentence 2 differs from {ref}:5" in err
    rc, out, _ = ours(run_cli, "--lang", "zh", "--hyp", str(hyp), "--ref", str(ref), *lenient)
    assert rc == 0
    tp, fp, fn, p, r, f = totals(out)
    assert (tp, fp, fn, f) == (expected["TP"], expected["FP"], expected["FN"], expected["F0.5"])
    if "P" in expected:
        assert (p, r) == (expected["P"], expected["R"])


def test_zh_parallel_identical_hyp_and_ref(run_cli, tmp_path):
    """Parallel Chinese text: a hyp equal to the reference scores P = R = F = 1; the source as hyp finds nothing."""
    src = ["我们去学校。", "他再学校。", "天气很好。"]
    ref = ["我们去学校了。", "他在学校。", "天气很好。"]
    files = {}
    for name, lines in (("src", src), ("ref", ref)):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("".join(x + "\n" for x in lines), "utf-8")
    rc, out, _ = ours(run_cli, "--lang", "zh", "--src", str(files["src"]), "--hyp", str(files["ref"]), "--ref",
                      str(files["ref"]))
    assert rc == 0 and totals(out) == (2, 0, 0, 1.0, 1.0, 1.0)      # 了 inserted, 再 -> 在
    rc, out, _ = ours(run_cli, "--lang", "zh", "--src", str(files["src"]), "--hyp", str(files["src"]), "--ref",
                      str(files["ref"]))
    assert rc == 0 and totals(out) == (0, 0, 2, 1.0, 0.0, 0.0)


def test_mucgec_para_identical_to_cherrant(shared_corpora, run_cli):
    """MuCGEC dev from ChERRANT's parallel files (id, source, targets...) annotated here with ChERRANT's resource
    files: the counts ChERRANT's compare gives on its own M2 (scores.json, default strategy 'all')."""
    d = shared_corpora / "mucgec"
    expected = json.loads((d / "reference" / "scores.json").read_text("utf-8"))["chERRANT_default_all"]
    rc, out, _ = ours(run_cli, "--lang", "zh", "--para", "--hyp", str(d / "example_pred_dev.txt"), "--ref",
                      str(d / "MuCGEC_dev.txt"), "--cilin", str(d / "resources" / "cilin.txt"), "--confusion",
                      str(d / "resources" / "confusion_dict.txt"))
    assert rc == 0
    assert totals(out) == (expected["TP"], expected["FP"], expected["FN"], expected["P"], expected["R"],
                           expected["F0.5"])


def test_para_files(tmp_path, run_cli):
    """ChERRANT parallel files with a varying number of references per line (hand-computed counts)."""
    hyp, ref = tmp_path / "hyp.para", tmp_path / "ref.para"
    hyp.write_text("1\t我们去学校。\t我们去学校了。\n2\t他再学校。\t他再学校。\n3\t无法理解\t不法理解\n", "utf-8")
    ref.write_text("1\t我们去学校。\t我们去学校了。\n2\t他再学校。\t他在学校。\t他在学校。\n3\t无法理解\t无法标注\n",
                   "utf-8")
    # 1: 了 matched (TP 1); 2: both references want 再 -> 在 (FN 1); 3: NA reference: skipped
    rc, out, _ = ours(run_cli, "--lang", "zh", "--para", "--hyp", str(hyp), "--ref", str(ref))
    assert rc == 0 and totals(out) == (1, 0, 1, 1.0, 0.5, 0.8333)
    ref.write_text("1\t我们去学校。\t我们去学校了。\n2\t他在学校。\t他在学校。\n3\t无法理解\t无法标注\n", "utf-8")
    rc, out, err = ours(run_cli, "--lang", "zh", "--para", "--hyp", str(hyp), "--ref", str(ref))
    assert rc == 2 and out == "" and f"{hyp}:2: source differs from {ref}:2" in err


# --- bad input -------------------------------------------------------------------------------------------------------------

GOOD = "S a b c\nA 0 1|||R:X|||d|||REQUIRED|||-NONE-|||0\n\nS e f\n"
BAD = {
    "bad span (end past the source)": ("S a b c\nA 2 4|||R:X|||d|||REQUIRED|||-NONE-|||0\n\nS e f\n", 2),
    "bad span (not integers)": ("S a b c\nA 0 x|||R:X|||d|||REQUIRED|||-NONE-|||0\n\nS e f\n", 2),
    "bad span (start after end)": ("S a b c\nA 2 1|||R:X|||d|||REQUIRED|||-NONE-|||0\n\nS e f\n", 2),
    "bad annotator id": ("S a b c\nA 0 1|||R:X|||d|||REQUIRED|||-NONE-|||zero\n\nS e f\n", 2),
    "missing S line": ("S a b c\nA 0 1|||R:X|||d|||REQUIRED|||-NONE-|||0\n\nA 0 1|||R:X|||d|||REQUIRED|||-NONE-|||0\n",
                       4),
    "missing fields": ("S a b c\nA 0 1|||R:X|||d\n\nS e f\n", 2),
    "stray line": ("S a b c\nhello\n\nS e f\n", 2),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_malformed_m2_is_refused_with_file_and_line(tmp_path, run_cli, case):
    text, line = BAD[case]
    hyp, ref, summary = tmp_path / "hyp.m2", tmp_path / "ref.m2", tmp_path / "s.json"
    hyp.write_text(text, "utf-8")
    ref.write_text(GOOD, "utf-8")
    rc, out, err = ours(run_cli, "--hyp", str(hyp), "--ref", str(ref), "--summary", str(summary))
    assert rc == 2 and out == ""
    assert f"{hyp}:{line}:" in err
    assert not summary.exists()


def test_block_count_mismatch_and_source_mismatch(tmp_path, run_cli):
    hyp, ref, summary = tmp_path / "hyp.m2", tmp_path / "ref.m2", tmp_path / "s.json"
    ref.write_text(GOOD, "utf-8")
    hyp.write_text("S a b c\n", "utf-8")
    rc, _, err = ours(run_cli, "--hyp", str(hyp), "--ref", str(ref), "--summary", str(summary))
    assert rc == 2 and "1 blocks" in err and "2 blocks" in err and not summary.exists()
    hyp.write_text("S a b c\n\nS e g\n", "utf-8")
    rc, _, err = ours(run_cli, "--hyp", str(hyp), "--ref", str(ref), "--summary", str(summary))
    assert rc == 2 and f"{hyp}:3:" in err and f"{ref}:4" in err and not summary.exists()


def test_parallel_line_count_mismatch(tmp_path, run_cli):
    src, hyp, ref, summary = (tmp_path / n for n in ("src.txt", "hyp.txt", "ref.txt", "s.json"))
    src.write_text("a b\nc d\n", "utf-8")
    hyp.write_text("a b\nc d\n", "utf-8")
    ref.write_text("a b\n", "utf-8")
    rc, _, err = ours(run_cli, "--src", str(src), "--hyp", str(hyp), "--ref", str(ref), "--summary", str(summary))
    assert rc == 2 and "line count" in err and not summary.exists()


def test_bad_beta(tmp_path, run_cli):
    rc, _, err = ours(run_cli, "--hyp", str(FIX / "hyp.m2"), "--ref", str(FIX / "ref.m2"), "-b", "0")
    assert rc == 2 and "--beta" in err


def test_several_m2_refs_need_src(tmp_path, run_cli):
    m2 = tmp_path / "a.m2"
    m2.write_text(GOOD, "utf-8")
    rc, _, err = ours(run_cli, "--hyp", str(m2), "--ref", str(m2), str(m2))
    assert rc == 2 and "--src" in err


# --- property: random M2 files, errant_compare is the oracle -------------------------------------------------------

TYPES = ("R:NOUN", "M:DET", "U:DET", "R:VERB", "UNK", "R:WO")
CORS = ("", "a", "the", "a b", "x y z")


@st.composite
def m2_pair(draw):
    """A hyp and a ref M2 text over the same random sources: few spans, types and corrections, so that edits
    collide, repeat within an annotator, and annotators tie; annotator ids appear in any order."""
    hyp_blocks, ref_blocks = [], []
    for _ in range(draw(st.integers(1, 6))):
        n = draw(st.integers(0, 5))
        src = "S" + "".join(f" w{k}" for k in range(n))
        sides = []
        for max_coders in (2, 3):
            lines = [src]
            for coder in draw(st.permutations(range(draw(st.integers(0, max_coders))))):
                if draw(st.booleans()) and draw(st.booleans()):
                    lines.append(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{coder}")
                    continue
                for _ in range(draw(st.integers(1, 3))):
                    start = draw(st.integers(0, n))
                    end = draw(st.integers(start, min(n, start + 2)))
                    lines.append(f"A {start} {end}|||{draw(st.sampled_from(TYPES))}|||"
                                 f"{draw(st.sampled_from(CORS))}|||REQUIRED|||-NONE-|||{coder}")
            sides.append("\n".join(lines))
        hyp_blocks.append(sides[0])
        ref_blocks.append(sides[1])
    return "\n\n".join(hyp_blocks) + "\n\n", "\n\n".join(ref_blocks) + "\n\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pair=m2_pair(), mode=st.sampled_from(MODES), opts=st.sampled_from(([], ["-single"], ["-multi"], ["-cat", "3"],
                                                                          ["-b", "1.0"])))
def test_random_m2_identical_to_errant_compare(tmp_path, run_cli, pair, mode, opts):
    hyp, ref = tmp_path / "hyp.m2", tmp_path / "ref.m2"
    hyp.write_text(pair[0], "utf-8")
    ref.write_text(pair[1], "utf-8")
    expected = errant_compare(hyp, ref, "-" + mode, *opts)
    rc, out, _ = ours(run_cli, "--hyp", str(hyp), "--ref", str(ref), "-" + mode, *opts)
    assert rc == 0 and out == expected
