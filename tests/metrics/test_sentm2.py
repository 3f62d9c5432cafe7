"""The sentm2 metric against PT-M2's own sentence-level M2 (tests/fixtures/sentm2: its figures, made by RUNNING PT-M2's
m2score code, see make.py there) and against the SentM2 column of SEEDA's README (shared corpora)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from peet_fast.metrics.base import EvalSet, get_metric, metric_names
from peet_fast.metrics.m2 import read_system
from peet_fast.metrics.sentm2 import best_for_sentence, sentence_prf
from tests.conftest import FIXTURES

HERE = FIXTURES / "sentm2"


def _fixture_maker():
    """tests/fixtures/sentm2/make.py under a name of its own (other fixture folders have a make.py too)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("sentm2_fixture_make", HERE / "make.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SETS = _fixture_maker().SETS

# SEEDA's README (tmu-nlp/SEEDA), "Evaluation scores for each system", column SentM2, on the 1,312-line CoNLL-14 test
SEEDA_SENTM2 = {"BART": 51.29, "BERT-fuse": 63.21, "GECToR-BERT": 61.23, "GECToR-ens": 60.37, "GPT-3.5": 53.28,
                "INPUT": 31.33, "LM-Critic": 58.0, "PIE": 60.7, "REF-F": 48.99, "REF-M": 62.3, "Riken-Tohoku": 64.22,
                "T5": 65.2, "TemplateGEC": 57.59, "TransGEC": 68.33, "UEDIN-MS": 62.68}


def score(name: str, **options):
    gold, hyp = SETS[name]
    metric = get_metric("sentm2", **options)
    stats = metric.sentence_stats(read_system(str(hyp)), EvalSet(None, [], None, str(gold)))
    return metric, stats


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_sentence_is_ptm2s(name):
    expected = json.loads((HERE / f"{name}.json").read_text())
    metric, stats = score(name)
    assert metric.sentence_scores(stats).tolist() == expected["sentences"]
    assert metric.corpus_score(stats) == expected["mean"]


def test_hand_computed_cases():
    # extra.m2: F0.5 of the best annotator per sentence alone (see the comments of the fixture's blocks)
    metric, stats = score("extra")
    f = metric.sentence_scores(stats)
    assert f[0] == pytest.approx(1.25 * (2 / 3) / (0.25 + 2 / 3))       # annotator 0: 2 of 3 gold edits, none wrong
    assert f[1] == 1.0                                                   # annotator 1's only edit
    assert f[2] == 1.0 and f[3] == 0.0          # unchanged: one annotator without edits -> 1; every annotator -> 0
    assert f[4] == 0.0                          # an edit where the gold has none: P = 0, R = 1
    assert f[6] == pytest.approx(1.25 * (1 / 6) / (1 / 12 + 1 / 2))      # empty hypothesis: 1 of 3 deletions right
    assert stats[6].tolist()[1:] == [1, 3, 2]                            # correct, proposed, gold
    assert metric.corpus_score(stats) == pytest.approx(f.mean())


def test_ptm2_stops_where_this_scores():
    # cases.txt line 17 holds two insertions at one position: PT-M2's own check stops there; its figure without the
    # check is what sentm2 gives
    expected = json.loads((HERE / "cases.json").read_text())
    assert expected["asserts"] == [16]
    metric, stats = score("cases")
    assert metric.sentence_scores(stats)[16] == expected["sentences"][16]


def test_choice_and_conventions():
    assert sentence_prf(0, 0, 0) == (1.0, 1.0, 1.0)
    assert sentence_prf(0, 0, 3)[2] == 0.0 and sentence_prf(0, 2, 0)[2] == 0.0
    # equal F: more correct wins, then fewer proposed + beta^2 gold, then the first
    assert best_for_sentence([(0, 1, 2, 2, None), (1, 2, 4, 4, None)])[0] == 1
    assert best_for_sentence([(0, 1, 1, 1, None), (1, 1, 1, 1, None)])[0] == 0
    assert best_for_sentence([(0, 0, 0, 2, None), (1, 0, 0, 0, None)]) == (1, 1.0)


def test_registry_and_bootstrap():
    assert "sentm2" in metric_names()
    metric, stats = score("gen")
    assert metric.higher_is_better and metric.needs_gold
    f = metric.sentence_scores(stats)
    idx = np.stack([np.arange(len(f)), np.zeros(len(f), dtype=int)])
    assert metric.bootstrap(stats, idx) == pytest.approx([f.mean(), f[0]])
    assert metric.corpus_score(stats[:10]) == pytest.approx(f[:10].mean())
    assert get_metric("sentm2", beta=1.0).title == "SentM2 F1"


def test_seeda_readme_column(shared_corpora):
    """14 of the 15 figures to the printed decimals; REF-F (whose line 97 is empty) gives 48.93, see the module."""
    from peet_fast.formats.m2 import read_m2

    gold = shared_corpora / "conll14" / "official-2014.combined.m2"
    blocks = read_m2(str(gold))
    data = EvalSet([" ".join(b.source) for b in blocks], [], blocks, str(gold))
    metric = get_metric("sentm2")
    got = {}
    for name in SEEDA_SENTM2:
        path = shared_corpora / "conll14" / "systems" / (f"seeda-{name}.txt" if name != "INPUT"
                                                         else "conll14-task-INPUT.txt")
        got[name] = round(100 * metric.corpus_score(metric.sentence_stats(read_system(str(path)), data)), 2)
    assert {k: v for k, v in got.items() if v != SEEDA_SENTM2[k]} == {"REF-F": 48.93}


def test_api_with_a_gold_m2_text():
    """peet_fast.evaluate(gold=TEXT): m2 and sentm2 read the blocks (its gold_path "<gold>" names no file)."""
    import peet_fast

    gold, hyp = SETS["gen"]
    lines = read_system(str(hyp))
    ev = peet_fast.evaluate({"gen": lines}, gold=gold.read_text(encoding="utf-8"), metrics=["sentm2", "m2"])
    expected = json.loads((HERE / "gen.json").read_text())
    assert ev.systems["sentm2"].tolist() == [expected["mean"]]
    by_path = get_metric("m2")
    assert ev.systems["m2"].tolist() == [by_path.corpus_score(by_path.sentence_stats(lines, EvalSet(
        None, [], None, str(gold))))]


@pytest.mark.parametrize("iwc", [False, True])
def test_m2_and_sentm2_share_lattices_within_a_run(iwc):
    """Inside languages.remembering (what meta-eval's MetaEval scores in) m2 and sentm2 build each sentence's lattice
    once between them (m2.search.edit_seqs): the same statistics as without the memo, every sentence recalled by
    the second metric, and a memo too small for the run (cleared when full) changes nothing either."""
    from peet_fast.languages import PairMemo, remembering

    for name in SETS:
        gold, hyp = SETS[name]
        lines = read_system(str(hyp))
        plain = [get_metric(m, ignore_whitespace_casing=iwc).sentence_stats(lines, EvalSet(None, [], None, str(gold)))
                 for m in ("m2", "sentm2")]
        for size in (1_000_000, 2):
            memo = PairMemo(max_entries=size)
            with remembering(memo):
                shared = [get_metric(m, ignore_whitespace_casing=iwc).sentence_stats(
                    lines, EvalSet(None, [], None, str(gold))) for m in ("m2", "sentm2")]
            assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(plain, shared))
            assert memo.size <= size
            if size > len(lines):
                empty = sum(1 for g in get_metric("m2")._gold(EvalSet(None, [], None, str(gold))).edits if not g)
                # sentm2 recalls every sentence m2 built (and either may recall a line repeated in the file); a
                # sentence without annotators has nothing to recall
                assert memo.hits >= len(lines) - empty
