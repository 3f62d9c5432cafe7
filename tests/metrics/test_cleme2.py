"""CLEME2.0 and the registry metrics cleme / cleme2 against THUKElab/CLEME itself: fixtures of CLEME's figures
(tests/fixtures/cleme2/README.md: hand-written M2 cases, CLEME's README example, CoNLL-14 outputs), CLEME run live
where a checkout and its Python are given ($PEET_FAST_CLEME_CHECKOUT, $PEET_FAST_CLEME_PYTHON), and hand-computed
cases. Expected values come from CLEME or by hand."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from peet_fast.io import InputError
from peet_fast.metrics import cleme2 as C2
from peet_fast.metrics.base import EvalSet, get_metric
from peet_fast.metrics.cleme import cleme, cleme_sentences

HERE = Path(__file__).parents[1] / "fixtures" / "cleme2"
CASES = HERE / "cases"
FIXTURE = json.loads((HERE / "cleme.json").read_text())
CHECKOUT = os.environ.get("PEET_FAST_CLEME_CHECKOUT")
CLEME_PYTHON = os.environ.get("PEET_FAST_CLEME_PYTHON")
VARIANTS = [(mode, w) for mode in ("dependent", "independent") for w in (False, True)]


def ours(sents, mode, weighted):
    """Our figures in the keys of run_cleme.py."""
    tag = "weighted" if weighted else "unweighted"
    cl = get_metric("cleme", mode=mode, weighted=weighted)
    c2 = get_metric("cleme2", mode=mode, weighted=weighted)
    s1, s2 = cl.stats_of(sents), c2.stats_of(sents)
    return {"prf_f": cl.corpus_score(s1), "prf_counts": s1[:, :4].sum(axis=0).tolist(),
            "heuo_com": c2.corpus_score(s2), f"prf_sentence_{tag}": cl.sentence_scores(s1).tolist(),
            f"heuo_sentence_{tag}": c2.sentence_scores(s2).tolist(), "heuo_counts": s2[:, :6].sum(axis=0).tolist()}


def check(got, fig, mode, weighted):
    tag = "weighted" if weighted else "unweighted"
    f = fig[mode]
    prf, heuo = f[f"prf_corpus_{tag}"], f[f"heuo_corpus_{tag}"]
    assert got["prf_f"] == prf["f"]
    np.testing.assert_allclose(got["prf_counts"], [prf[k] for k in ("tp", "fp", "fn", "tn")], rtol=1e-13)
    np.testing.assert_allclose(got["heuo_counts"], [heuo[k] for k in C2.COLUMNS], rtol=1e-13)
    assert abs(got["heuo_com"] - heuo["com"]) < 1e-12
    assert got[f"prf_sentence_{tag}"] == f[f"prf_sentence_{tag}"]
    np.testing.assert_allclose(got[f"heuo_sentence_{tag}"], f[f"heuo_sentence_{tag}"], rtol=0, atol=1e-12)


@pytest.mark.parametrize("hyp", ["hyp_a", "hyp_b", "hyp_none"])
@pytest.mark.parametrize("mode,weighted", VARIANTS)
def test_hand_written_m2_cases_equal_cleme(hyp, mode, weighted):
    sents = cleme_sentences(CASES / f"{hyp}.m2", CASES / "ref.m2")
    check(ours(sents, mode, weighted), FIXTURE["cases"][f"{hyp}.m2 ref.m2"], mode, weighted)


@pytest.mark.parametrize("mode,weighted", VARIANTS)
def test_registry_cleme_is_compare_cleme_unchanged(mode, weighted):
    for hyp in ("hyp_a", "hyp_b", "hyp_none"):
        sents = cleme_sentences(CASES / f"{hyp}.m2", CASES / "ref.m2")
        variant = cleme(sents)[f"{mode}_{'weighted' if weighted else 'unweighted'}"]
        m = get_metric("cleme", mode=mode, weighted=weighted)
        stats = m.stats_of(sents)
        assert m.corpus_score(stats) == round(variant.f, 4)
        assert stats[:, :4].sum(axis=0).tolist() == [variant.tp, variant.fp, variant.fn, variant.tn]


def test_heuo_by_hand():
    # TP 2, FN 1, FP_NE 1, FP_UN 1: NE = 4; hit 1/2, err 1/4, und 1/4, ove = 1 / (2 + 2)
    hit, err, und, ove, com = C2.heuo(2, 1, 1, 1)
    assert (hit, err, und, ove) == (0.5, 0.25, 0.25, 0.25)
    assert com == 0.45 * 0.5 + 0.35 * 0.75 + 0.15 * 0.75 + 0.05 * 0.75
    assert C2.heuo(0, 0, 0, 0)[:4] == (0.0, 0.0, 0.0, 0.0)        # nothing to correct, nothing done


def test_labels_by_hand():
    # hyp_a sentence 4 "She have a cat": both references change "have" (has / had), the hypothesis writes "haves":
    # a necessary FP; sentence 3 "I like apples": no reference changes "like": an unnecessary FP
    sents = cleme_sentences(CASES / "hyp_a.m2", CASES / "ref.m2")
    parts, _ = C2.partitions(sents)
    dep = [[label for label, _ in row] for row in C2.labels(parts[3], "dependent")]
    assert dep == [["tn", "fp_ne", "tn"], ["tn", "fp_ne", "tn"]]
    assert [label for label, _ in C2.labels(parts[2], "independent")[0]] == ["tn", "fp_un", "tn"]


def test_sentence_choice_and_scores_by_hand():
    m = get_metric("cleme2")
    # two references: the first gives TP 0 / FN 1, the second TP 1: the second is kept (com 0.35 + 0.25 + 0.2 + 0.2)
    stats = np.array([[0, 0, 1, 2, 0, 0] + [0, 0, 1, 2, 0, 0] + [1, 0, 0, 2, 0, 0]], dtype=float)
    assert m.sentence_scores(stats).tolist() == [0.35 * 1 + 0.25 + 0.20 + 0.20]
    cl = get_metric("cleme")
    # SentCLEME: a sentence without any change on either side: P = R = 1, F 1
    assert cl.sentence_scores(np.array([[0, 0, 0, 3, 0, 0, 0, 3]], dtype=float)).tolist() == [1.0]


def test_bootstrap_equals_corpus_score_of_the_rows():
    sents = cleme_sentences(CASES / "hyp_b.m2", CASES / "ref.m2")
    idx = np.random.default_rng(1).integers(0, len(sents), size=(20, len(sents)))
    for name in ("cleme", "cleme2"):
        m = get_metric(name, weighted=(name == "cleme2"))
        stats = m.stats_of(sents)
        np.testing.assert_allclose(m.bootstrap(stats, idx), [m.corpus_score(stats[row]) for row in idx],
                                   rtol=0, atol=1e-12)


def test_options_refused():
    with pytest.raises(InputError, match="mode"):
        get_metric("cleme", mode="both")
    with pytest.raises(InputError, match="summing to 1"):
        get_metric("cleme2", factors=(0.5, 0.5, 0.5, 0.5))


@pytest.mark.skipif(not CHECKOUT, reason="CLEME's demo files: set PEET_FAST_CLEME_CHECKOUT to a THUKElab/CLEME checkout")
@pytest.mark.parametrize("mode,weighted", VARIANTS)
def test_cleme_readme_example_amu(mode, weighted):
    demo = Path(CHECKOUT) / "demo" / "examples"
    sents = cleme_sentences(demo / "conll14-AMU.errant", demo / "conll14.errant")
    got = ours(sents, mode, weighted)
    check(got, FIXTURE["readme"]["conll14-AMU.errant conll14.errant"], mode, weighted)
    if (mode, weighted) == ("dependent", True):         # the README's printed figures
        assert got["prf_f"] == 0.2514
        assert [round(x, 2) for x in got["prf_counts"]] == [313.51, 871.8, 1181.71, 6312.0]


@pytest.mark.slow
@pytest.mark.parametrize("system", ["conll14-task-AMU", "seeda-REF-F"])
def test_text_hypotheses_against_the_gold_m2_equal_cleme(system, shared_corpora):
    """The registry route: hypothesis text through the English annotator, references from the gold M2, equal to CLEME
    on the M2 file `peet-fast m2` writes for that text and the gold M2 (tests/fixtures/cleme2/README.md)."""
    import peet_fast
    from peet_fast.formats.m2 import annotator_references, read_m2
    from conftest import SPACY_MODEL

    gold = shared_corpora / "conll14" / "official-2014.combined.m2"
    blocks = read_m2(str(gold))
    hyp = (shared_corpora / "conll14" / "systems" / f"{system}.txt").read_text(encoding="utf-8").splitlines()
    annotator = peet_fast.load("en", spacy_model=SPACY_MODEL)
    data = EvalSet([" ".join(b.source) for b in blocks], annotator_references(blocks, str(gold)), blocks, str(gold),
                   lambda: annotator)
    fig = FIXTURE["conll14"][f"{system}.m2 official-2014.combined.m2"]
    for mode, weighted in VARIANTS:
        tag = "weighted" if weighted else "unweighted"
        cl = get_metric("cleme", mode=mode, weighted=weighted)
        c2 = get_metric("cleme2", mode=mode, weighted=weighted)
        s1, s2 = cl.sentence_stats(hyp, data), c2.sentence_stats(hyp, data)
        got = {"prf_f": cl.corpus_score(s1), "prf_counts": s1[:, :4].sum(axis=0).tolist(),
               "heuo_com": c2.corpus_score(s2), "heuo_counts": s2[:, :6].sum(axis=0).tolist(),
               f"prf_sentence_{tag}": cl.sentence_scores(s1).tolist(),
               f"heuo_sentence_{tag}": c2.sentence_scores(s2).tolist()}
        check(got, fig, mode, weighted)


@pytest.mark.skipif(not (CHECKOUT and CLEME_PYTHON),
                    reason="set PEET_FAST_CLEME_CHECKOUT and PEET_FAST_CLEME_PYTHON to run CLEME live")
def test_live_cleme_on_the_hand_written_cases():
    pairs = [str(CASES / f"{h}.m2") + "\0" + str(CASES / "ref.m2") for h in ("hyp_a", "hyp_b", "hyp_none")]
    args = [p for pair in pairs for p in pair.split("\0")]
    proc = subprocess.run([CLEME_PYTHON, str(HERE / "run_cleme.py"), CHECKOUT, *args], capture_output=True,
                          text=True, cwd=CHECKOUT, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
    live = json.loads(proc.stdout)
    for key, fig in live.items():
        h, r = key.split(" ")
        sents = cleme_sentences(CASES / h, CASES / r)
        for mode, weighted in VARIANTS:
            check(ours(sents, mode, weighted), fig, mode, weighted)


def test_chinese_registry_cleme_equals_compare_cleme(capsys, tmp_path):
    import peet_fast
    from peet_fast.cli import main

    src = ["我们去学校。", "他再学校。", "天气很好。"]
    hyp = ["我们去学校了。", "他再学校。", "天气很好了。"]
    ref = ["我们去学校了。", "他在学校。", "天气很好。"]
    paths = {}
    for name, lines in (("src", src), ("hyp", hyp), ("ref", ref)):
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    common = ["compare", "--lang", "zh", "--src", str(paths["src"]), "--hyp", str(paths["hyp"]), "--ref",
              str(paths["ref"])]
    assert main([*common, "--metric", "cleme"]) == 0
    printed = capsys.readouterr().out.split("\n")
    f = float(printed[3].split("\t")[6])
    zh = peet_fast.load("zh")
    data = EvalSet(src, [ref], annotator=lambda: zh, options={"lang": "zh"})
    m = get_metric("cleme")
    stats = m.sentence_stats(hyp, data)
    # 了 inserted: TP; 再 -> 在 missed: FN; 了 added to sentence 3: FP (as compare's test of the same sentences)
    assert stats[:, :3].sum(axis=0).tolist() == [1, 1, 1] and m.corpus_score(stats) == f
    assert main([*common, "--metric", "cleme2"]) == 0
    c2 = get_metric("cleme2")
    expected = c2.corpus_score(c2.sentence_stats(hyp, data))
    assert capsys.readouterr().out == f"CLEME2.0-dep\t{expected:.4f}\n"
    # hit 1/2, err 0, und 1/2, ove 1/2 (the FP is unnecessary): com = 0.45/2 + 0.35 + 0.15/2 + 0.05/2
    assert abs(expected - (0.45 / 2 + 0.35 + 0.15 / 2 + 0.05 / 2)) < 1e-15
