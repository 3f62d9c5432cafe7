"""GoToScorer's gec-metrics convention (get_metric("gotoscorer", convention="gec-metrics")) against gec-metrics 0.1.2's
own GoToScorer: its chunker on its test's example, its per-sentence counts on tests/fixtures/gotoscorer/cases, and its
meta-evaluation of SEEDA base, SEEDA +REF-F_GPT-3.5 and GJG15 (fixtures written by running gec-metrics:
tests/fixtures/meta_eval/make_gotoscorer.py says how). Floats from gec-metrics are compared within 1e-12."""
from __future__ import annotations

import json

import pytest

from peet_fast.metrics import gotoscorer_gecm as G
from peet_fast.metrics.base import EvalSet, get_metric
from tests.conftest import FIXTURES, SPACY_MODEL

HERE = FIXTURES / "meta_eval"
TOL = 1e-12


def test_chunks_of_gec_metrics_example():
    """gec-metrics' gotoscorer_test.py example: 'This sentences contain gramamtical error .' corrected to 'This
    sentence contains a grammatical error .': 13 chunks, insertion slots everywhere but after the insertion 'a'."""
    tokens = "This sentences contain gramamtical error .".split(" ")
    edits = [(1, 2, "R:NOUN:NUM", "sentence"), (2, 3, "R:VERB:SVA", "contains"), (3, 3, "M:DET", "a"),
             (3, 4, "R:SPELL", "grammatical")]
    assert G.chunks(edits, tokens) == [
        (0, 0, "", False), (0, 1, "This", False), (1, 1, "", False), (1, 2, "sentence", True), (2, 2, "", False),
        (2, 3, "contains", True), (3, 3, "a", True), (3, 4, "grammatical", True), (4, 4, "", False),
        (4, 5, "error", False), (5, 5, "", False), (5, 6, ".", False), (6, 6, "", False)]
    # an insertion after the last token: no slot after it; noop and UNK edits are no chunks
    assert G.chunks([(0, 1, "noop", "-NONE-"), (1, 1, "M:PUNCT", ".")], ["Yes"]) == [
        (0, 0, "", False), (0, 1, "Yes", False), (1, 1, ".", True)]


def test_judge_by_hand():
    """The reference inserts 'to' at 2 inside the system's one edit 1-3: gec-metrics finds no system chunk of that
    span, so the slot is correct and unmodified (a TN; GTS counts an FN). 'want' (1-2) has no same-span system
    chunk and the system's edit 1-3 covers it: wrong and modified, an FP and (the reference edits it) an FN."""
    tokens = "I want go home".split(" ")
    ref = G.chunks([(1, 2, "R:VERB", "wanted"), (2, 2, "M:PART", "to")], tokens)
    hyp = G.chunks([(1, 3, "R:OTHER", "wish to return")], tokens)
    judged = dict(zip([(s, e) for s, e, _, _ in ref], G.judge(ref, hyp)))
    assert judged[(2, 2)] == (True, False)
    assert judged[(1, 2)] == (False, True)
    assert judged[(0, 1)] == (True, False)                  # 'I' left alone, as the reference: a TN
    # 'go' (not edited by the reference) is wrong and modified: an FP alone; the 7 other chunks are TNs
    assert G.sentence_stats(ref, hyp) == (0.0, 2.0, 1.0, 7.0, 9.0)
    # P = 1 without FP, R = 1 without FN (gec-metrics' Score): nothing to do, nothing done -> 1
    assert float(G.f_beta(0.0, 0.0, 0.0, 0.5)) == 1.0
    assert float(G.f_beta(0.0, 1.0, 0.0, 0.5)) == 0.0


def test_refuses_weights():
    with pytest.raises(ValueError, match="no_weight"):
        get_metric("gotoscorer", convention="gec-metrics", weight_file="w.txt")
    with pytest.raises(ValueError, match="convention"):
        get_metric("gotoscorer", convention="gtz")


def test_cases_equal_gec_metrics():
    """Per system and sentence gec-metrics' TP, FP, FN, TN exactly (integers), its corpus F0.5 within 1e-12."""
    import peet_fast

    annotator = peet_fast.load("en", spacy_model=SPACY_MODEL)
    where = FIXTURES / "gotoscorer"

    def lines(name):
        return (where / name).read_text(encoding="utf-8").split("\n")[:-1]

    data = EvalSet(lines("cases.src"), [lines("cases.ref0"), lines("cases.ref1")], annotator=lambda: annotator)
    want = json.loads((HERE / "gecm_GoToScorer_cases.json").read_text())
    metric = get_metric("gotoscorer", convention="gec-metrics")
    stats = metric.system_stats([lines(f"cases.sys{k}") for k in range(5)], data)
    assert [s[:, :4].tolist() for s in stats] == [w["sentences"] for w in want]
    assert [metric.corpus_score(s) for s in stats] == pytest.approx([w["corpus"] for w in want], abs=TOL, rel=0)
    # the GTS convention differs on these cases (sentence 3: an FN where gec-metrics counts a TN)
    gts = get_metric("gotoscorer", no_weight=True).system_stats([lines("cases.sys0")], data)
    assert gts[0][2, :4].tolist() != want[0]["sentences"][2]


@pytest.mark.slow
@pytest.mark.parametrize("fixture, name, system_set", [("seeda_base", "seeda", "base"),
                                                        ("seeda_fluency", "seeda", "+REF-F_GPT-3.5"),
                                                        ("gjg15_all", "gjg15", "all")])
def test_meta_eval_equals_gec_metrics(shared_corpora, fixture, name, system_set):
    """gec-metrics' MetaEvalSEEDA / MetaEvalGJG with its GoToScorer(): system scores, correlations, windows of 4,
    sentence accuracy and Kendall, pairwise analysis, within 1e-12."""
    from peet_fast.meta_eval.metric import data as D
    from peet_fast.meta_eval.metric.evaluator import MetaEval

    ref = json.loads((HERE / f"gecm_GoToScorer_{fixture}.json").read_text())
    root = shared_corpora / "judgments" / name
    me = MetaEval(D.load(name, str(root), str(shared_corpora / "conll14" / "official-2014.combined.m2"), system_set))
    metric = get_metric("gotoscorer", convention="gec-metrics")
    assert me.systems == ref["systems"]
    scores = me.system_scores(metric)
    assert [scores[s] for s in me.systems] == pytest.approx([ref["system_scores"][s] for s in me.systems],
                                                            abs=TOL, rel=0)
    got = me.corr_system(metric)
    for h, v in ref["system"].items():
        assert (got[h].pearson, got[h].spearman) == pytest.approx((v["pearson"], v["spearman"]), abs=TOL, rel=0)
    win = me.window_analysis(metric, 4)
    for h, rows in ref["window"].items():
        assert [[r["from"], r["to"]] for r in win[h]] == [[a + 1, b + 1] for a, b, _ in rows]
        assert [x for r in win[h] for x in (r["pearson"], r["spearman"])] == pytest.approx(
            [x for _, _, c in rows for x in (c["pearson"], c["spearman"])], abs=TOL, rel=0)
    sent = me.corr_sentence(metric)
    for j, v in ref["sentence"].items():
        j = {"corr": "sent"}.get(j, j)
        assert (sent[j].accuracy, sent[j].kendall) == pytest.approx((v["accuracy"], v["kendall"]), abs=TOL, rel=0)
    pw = me.pairwise_analysis(metric)
    for j, cells in ref["pairwise"].items():
        j = {"corr": "sent"}.get(j, j)
        mine = {tuple(c["ranks"]): c["accuracy"] for c in pw[j]}
        for ranks, acc in cells:
            assert mine[tuple(ranks)] == pytest.approx(acc, abs=TOL, rel=0)
