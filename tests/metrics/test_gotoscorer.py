"""The gotoscorer metric against GTS's gotoscorer.py (tests/fixtures/gotoscorer: its printed figures and weight files,
made by RUNNING it on errant_parallel M2 files, see make.py there), GTS's README demo, gec-metrics' own test value,
and the CoNLL-14 / SEEDA outputs (shared corpora)."""
from __future__ import annotations

import gzip
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from peet_fast.io import InputError
from peet_fast.metrics.base import EvalSet, get_metric, metric_names
from peet_fast.metrics.gotoscorer import gts_prf
from tests.conftest import FIXTURES, SPACY_MODEL

HERE = FIXTURES / "gotoscorer"
M2SCORER = FIXTURES / "m2scorer"
GTS_MIRROR = Path("/work/.mirror/gotutiyan+GTS/repo")
FIGURES = ("TP", "FP", "FN", "TN", "P", "R", "F", "F0.5", "Accuracy")


@pytest.fixture(scope="module")
def annotator():
    import peet_fast

    return peet_fast.load("en", spacy_model=SPACY_MODEL)


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def gts_rows(text: str) -> list[list[float]]:
    """The per-system rows GTS prints (-v: TP FP FN TN P R F F0.5 Accuracy)."""
    return [[float(x) for x in m.group(1).split()] for m in re.finditer(r"^\d+\s*:\t(.*)$", text, re.M)]


def printed(metric, stats) -> list[float]:
    s = metric.scores(stats)
    return [round(s[k], 4) for k in FIGURES]


def cases_data(annotator) -> EvalSet:
    return EvalSet(lines(HERE / "cases.src"), [lines(HERE / "cases.ref0"), lines(HERE / "cases.ref1")],
                   annotator=lambda: annotator)


def gen_data(annotator) -> EvalSet:
    from peet_fast.formats.m2 import annotator_references, read_m2

    blocks = read_m2(str(M2SCORER / "gen.m2"))
    return EvalSet([" ".join(b.source) for b in blocks], annotator_references(blocks), blocks,
                   str(M2SCORER / "gen.m2"), lambda: annotator)


CASES = [lines(HERE / f"cases.sys{k}") for k in range(5)]
GEN = [lines(M2SCORER / "gen.txt"), *(lines(HERE / f"gen.sys{k}") for k in (1, 2, 3))]


@pytest.mark.parametrize("name, options", [("cases.r0", {}), ("cases.r0.nw", {"no_weight": True}),
                                           ("cases.r1", {"ref_id": 1})])
def test_cases_are_gts(annotator, name, options):
    metric = get_metric("gotoscorer", **options)
    stats = metric.system_stats(CASES, cases_data(annotator))
    assert [printed(metric, s) for s in stats] == gts_rows((HERE / f"{name}.out").read_text())
    if not options:
        assert metric.weight_file_text() == (HERE / "cases.w.txt").read_text()


def test_gts_departures_from_gec_metrics(annotator):
    """cases sentence 3: system 0 rewrites 'want go' as one edit (1-3 'wish to return') inside which the reference
    inserts 'to' at 2: the system has no chunk there, and GTS (and this) counts an FN (gec-metrics: a TN); 'want'
    and 'go' are FPs. Sentence 4: system 0 inserts 'really' before 'like', which it leaves wrong: the slot is an FP,
    and 'like' (the reference's 'likes') is an FP and an FN, as the OR of the two chunks makes it (gec-metrics: FN
    only); 'apple' is an FN."""
    metric = get_metric("gotoscorer", no_weight=True)
    stats = metric.system_stats(CASES[:1], cases_data(annotator))[0]
    assert stats[2].tolist() == [0, 2, 1, 10, 13]               # TP FP FN TN, total weight (13 chunks)
    assert stats[3].tolist() == [0, 2, 2, 6, 9]


@pytest.mark.parametrize("name, systems, options",
                         [("gen.r0", GEN, {}), ("gen.r0.nw", GEN, {"no_weight": True}), ("gen.r1", GEN, {"ref_id": 1}),
                          ("gen.w01", GEN[:2], {}),
                          ("gen.w01on23", GEN[2:], {"weight_file": HERE / "gen.w01.txt"})])
def test_generated_hypotheses_are_gts(annotator, name, systems, options):
    metric = get_metric("gotoscorer", **options)
    stats = metric.system_stats(systems, gen_data(annotator))
    assert [printed(metric, s) for s in stats] == gts_rows((HERE / f"{name}.out").read_text())
    if name == "gen.r0":
        assert metric.weight_file_text() == (HERE / "gen.w.txt").read_text()
    if name == "gen.w01":
        assert metric.weight_file_text() == (HERE / "gen.w01.txt").read_text()


def test_weights_from_named_outputs_equal_a_weight_file(annotator):
    data = gen_data(annotator)
    named = get_metric("gotoscorer", weight_systems=GEN[:2]).system_stats(GEN[2:], data)
    filed = get_metric("gotoscorer", weight_file=HERE / "gen.w01.txt").system_stats(GEN[2:], data)
    assert [s.tolist() for s in named] == [s.tolist() for s in filed]


def test_chunk_weight_formula(annotator):
    """chunk_weight (a ChunkWeight) gives each chunk a - (n + b) / (N + c) from the same correct counts as the
    default (1, 0, 0)."""
    from peet_fast.metrics.gotoscorer import ChunkWeight

    data = gen_data(annotator)
    plain = get_metric("gotoscorer", weight_systems=GEN[:2])
    plain.system_stats(GEN[2:], data)
    other = get_metric("gotoscorer", weight_systems=GEN[:2], chunk_weight=ChunkWeight(2, 1, 1))
    other.system_stats(GEN[2:], data)
    n_systems, counts = plain.correct_counts
    assert n_systems == 2
    assert plain.weights.tolist() == (1.0 - counts / 2).tolist()
    assert other.weights.tolist() == (2.0 - (counts + 1) / 3).tolist()
    with pytest.raises(InputError, match="N [+] c is 0"):
        get_metric("gotoscorer", weight_systems=GEN[:2], chunk_weight=ChunkWeight(c=-2)).system_stats(GEN[2:], data)


def test_gec_metrics_test_value(annotator):
    """gec-metrics' gotoscorer_test.py: its sources, hypotheses and references, no_weight, reference 0."""
    srcs = ["This sentences contain gramamtical error .", "This is a sentence .", "This is no change ."]
    hyps = ["This sentence contains a grammatical error .", "this was corrected into completely different one .",
            "This is no change ."]
    refs = [["This sentence contains a gramamtical error .", "dummy sentence .", "This is no change ."],
            ["These sentences contain grammatical errors .", "another dummy sentence .", "This is no change ."]]
    data = EvalSet(srcs, refs, annotator=lambda: annotator)
    for beta, corpus, sentences in ((0.5, 0.40540540540540543, [0.7894736842105263, 0.0, 1.0]),
                                    (2, 0.5357142857142857, [0.9375, 0.0, 1.0])):
        metric = get_metric("gotoscorer", no_weight=True, beta=beta)
        stats = metric.sentence_stats(hyps, data)
        assert metric.corpus_score(stats) == pytest.approx(corpus, abs=1e-12)
        assert metric.sentence_scores(stats) == pytest.approx(sentences, abs=1e-12)


def _mirror_file(path: str) -> bytes | None:
    git = shutil.which("git")
    if git is None or not GTS_MIRROR.is_dir():
        return None
    done = subprocess.run([git, "--git-dir", str(GTS_MIRROR), "show", f"HEAD:{path}"], capture_output=True)
    return done.stdout if done.returncode == 0 else None


def test_gts_readme_demo(annotator, tmp_path):
    """GTS's demo (its README's printed figures), from a fetched GTS when one is at hand."""
    files = {name: _mirror_file(f"demo/{name}") for name in ("ref.m2", "orig.txt", "sys1.txt", "sys2.txt",
                                                             "sys3.txt")}
    if any(v is None for v in files.values()):
        pytest.skip("no fetched GTS repository")
    from peet_fast.formats.m2 import annotator_references, parse_m2

    blocks = parse_m2(files["ref.m2"].decode().splitlines(), "ref.m2")
    data = EvalSet([" ".join(b.source) for b in blocks], annotator_references(blocks), blocks, "ref.m2",
                   lambda: annotator)
    hyps = [files[f"sys{k}.txt"].decode().split("\n")[:2] for k in (1, 2, 3)]
    metric = get_metric("gotoscorer")
    stats = metric.system_stats(hyps, data)
    assert [printed(metric, s) for s in stats] == [
        [1.3333, 0.0, 1.6667, 1.0, 1.0, 0.4444, 0.6154, 0.8, 0.5833],
        [0.6667, 2.0, 2.3333, 0.3333, 0.25, 0.2222, 0.2353, 0.2439, 0.25],
        [0.0, 2.6667, 3.0, 0.6667, 0.0, 0.0, 0.0, 0.0, 0.1667]]


def test_bad_weight_files(annotator, tmp_path):
    data = gen_data(annotator)
    short = tmp_path / "short.txt"
    short.write_text("".join((HERE / "gen.w01.txt").read_text().splitlines(True)[:-1]))
    with pytest.raises(InputError, match=r"short\.txt: weights for 299 sentences, but the test set has 300"):
        get_metric("gotoscorer", weight_file=short).system_stats(GEN[2:], data)
    other = tmp_path / "other.txt"
    rows = (HERE / "gen.w01.txt").read_text().splitlines(True)
    other.write_text("".join(rows[:5] + [rows[5].rstrip("\n") + " 2\n"] + rows[6:]))
    with pytest.raises(InputError, match=r"other\.txt:6: .* for sentence 5"):
        get_metric("gotoscorer", weight_file=other).system_stats(GEN[2:], data)
    bad = tmp_path / "bad.txt"
    bad.write_text("2\n1 x\n")
    with pytest.raises(InputError, match=r"bad\.txt:2: expected integers"):
        get_metric("gotoscorer", weight_file=bad).system_stats(GEN[2:], data)
    with pytest.raises(InputError, match="no edit of annotator 7"):
        get_metric("gotoscorer", ref_id=7).system_stats(GEN[2:], data)


def test_scores_and_bootstrap():
    assert "gotoscorer" in metric_names()
    assert gts_prf(0, 0, 3, 2, 5)["F0.5"] == 0.0 and gts_prf(0, 0, 0, 2, 2)["P"] == 0.0
    metric = get_metric("gotoscorer")
    stats = np.array([[1.0, 0.5, 0.25, 2.0, 3.75], [0.0, 1.0, 1.0, 1.0, 3.0], [0.0, 0.0, 0.0, 1.0, 1.0]])
    p, r = 1 / 2.5, 1 / 2.25                                               # sums: TP 1, FP 1.5, FN 1.25
    assert metric.corpus_score(stats) == pytest.approx(1.25 * p * r / (0.25 * p + r))
    assert metric.sentence_scores(stats).tolist()[1:] == [0.0, 1.0]       # gec-metrics: P = R = 1 without FP/FN
    idx = np.array([[0, 1, 2], [2, 2, 2], [0, 0, 1]])
    assert metric.bootstrap(stats, idx) == pytest.approx([metric.corpus_score(stats[row]) for row in idx])


@pytest.mark.slow
def test_conll14_outputs_are_gts(annotator, shared_corpora, tmp_path):
    """The 27 CoNLL-14 / SEEDA outputs, the official M2's annotator 0 as reference: GTS's weights from the 15 SEEDA
    outputs (and its weight file of them) applied to the 12 shared-task outputs; -no_weight; GTS's published
    weight_files/conll14_8sys.txt (from a fetched GTS, when at hand)."""
    from peet_fast.formats.m2 import annotator_references, read_m2
    from tests.fixtures.gotoscorer.make import SEEDA15, TASK12

    gold = shared_corpora / "conll14" / "official-2014.combined.m2"
    blocks = read_m2(str(gold))
    data = EvalSet([" ".join(b.source) for b in blocks], annotator_references(blocks), blocks, str(gold),
                   lambda: annotator)
    systems = {n: lines(shared_corpora / "conll14" / "systems" / f"{n}.txt") for n in SEEDA15 + TASK12}
    metric = get_metric("gotoscorer")
    stats = metric.system_stats([systems[n] for n in SEEDA15], data)
    assert [printed(metric, s) for s in stats] == gts_rows((HERE / "conll14.seeda15.out").read_text())
    w15 = gzip.decompress((HERE / "conll14.w15.txt.gz").read_bytes()).decode()
    assert metric.weight_file_text() == w15
    metric = get_metric("gotoscorer", weight_systems=[systems[n] for n in SEEDA15])
    stats = metric.system_stats([systems[n] for n in TASK12], data)
    assert [printed(metric, s) for s in stats] == gts_rows((HERE / "conll14.task12.w15.out").read_text())
    every = [systems[n] for n in SEEDA15 + TASK12]
    metric = get_metric("gotoscorer", no_weight=True)
    assert [printed(metric, s) for s in metric.system_stats(every, data)] == gts_rows(
        (HERE / "conll14.all27.nw.out").read_text())
    published = _mirror_file("weight_files/conll14_8sys.txt")
    if published is not None:
        wfile = tmp_path / "conll14_8sys.txt"
        wfile.write_bytes(published)
        metric = get_metric("gotoscorer", weight_file=wfile)
        assert [printed(metric, s) for s in metric.system_stats(every, data)] == gts_rows(
            (HERE / "conll14.all27.8sys.out").read_text())


def test_rank_command_line(tmp_path, capsys):
    """`rank --metric gotoscorer --gotoscorer-weights W`: GTS's -w_file figures; a weight file of another test set,
    or the option without the metric: one line, exit 2."""
    import json

    from peet_fast.cli import main

    hyps = [str(tmp_path / "s2.txt"), str(tmp_path / "s3.txt")]
    for path, sys_lines in zip(hyps, GEN[2:]):
        Path(path).write_text("\n".join(sys_lines) + "\n", encoding="utf-8")
    summary = tmp_path / "summary.json"
    base = ["rank", "--hyp", *hyps, "--ref", str(M2SCORER / "gen.m2"), "--spacy-model", SPACY_MODEL,
            "--bootstrap", "20"]
    assert main([*base, "--metric", "gotoscorer", "--gotoscorer-weights", str(HERE / "gen.w01.txt"),
                 "--summary", str(summary)]) == 0
    got = {s["name"]: round(s["metrics"]["gotoscorer"]["score"], 4) for s in json.loads(summary.read_text())["systems"]}
    assert [got["s2"], got["s3"]] == [row[7] for row in gts_rows((HERE / "gen.w01on23.out").read_text())]
    capsys.readouterr()
    assert main([*base, "--metric", "gotoscorer", "--gotoscorer-weights", str(HERE / "cases.w.txt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"peet-fast rank: error: {HERE / 'cases.w.txt'}: weights for 6 sentences, but the test set has 300"]
    assert main([*base, "--metric", "m2", "--gotoscorer-weights", "none"]) == 2
    assert capsys.readouterr().err.strip().endswith("--gotoscorer-weights: needs --metric gotoscorer")
