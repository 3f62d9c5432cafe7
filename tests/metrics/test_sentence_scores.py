"""Metric.sentence_scores of every metric of the registry: errant's and gleu's follow gec-metrics' score_sentence
(checked against fixtures of gec-metrics' own figures, tests/fixtures/sentence_scores/make_fixtures.py, and against
gec-metrics run live where its venv is); peet's and wer's are their per-sentence figures; every metric listed by
peet_fast.metric_names() gives one score per sentence. Expected values come from gec-metrics or by hand."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

import gecm  # noqa: E402
import sentence_cases as S  # noqa: E402
from generated_hyps import conll14_set  # noqa: E402

from peet_fast.metrics.base import EvalSet, Metric, get_metric  # noqa: E402
from conftest import SPACY_MODEL, close  # noqa: E402

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "sentence_scores" / "gec_metrics.json").read_text())
needs_gecm = pytest.mark.skipif(gecm.python() is None, reason="gec-metrics' venv not found (tests/metrics/gecm.py)")
PEET_NAME = {"errant": "errant", "gleu_official": "gleu"}


@pytest.fixture(scope="module")
def annotator():
    import peet_fast

    return peet_fast.load("en", spacy_model=SPACY_MODEL)


def scores(name, annotator, sources, systems, refs):
    m = get_metric(name)
    data = EvalSet(sources, refs, annotator=lambda: annotator)
    out = {"corpus": [], "sentence": []}
    for h in systems:
        stats = m.sentence_stats(h, data)
        out["corpus"].append(m.corpus_score(stats))
        out["sentence"].append(m.sentence_scores(stats).tolist())
    return out


@pytest.mark.parametrize("metric", ["errant", "gleu_official"])
def test_hand_written_cases_equal_gec_metrics(metric, annotator):
    got = scores(PEET_NAME[metric], annotator, S.SRC, list(S.SYSTEMS.values()), [S.REF0, S.REF1])
    want = FIXTURE["cases"][metric]
    assert close(got["sentence"], want["sentence"], 1e-12)     # gec-metrics' figures, to 1e-12
    if metric == "errant":      # errant_compare's corpus F, rounded as it prints it, is gec-metrics' figure rounded
        assert got["corpus"] == [round(x, 4) for x in want["corpus"]]


@pytest.mark.parametrize("metric", ["errant", "gleu_official"])
def test_generated_conll14_hypotheses_equal_gec_metrics(metric, annotator, shared_corpora):
    sources, refs, hyps = conll14_set(shared_corpora, step=FIXTURE["conll14_step"])
    got = scores(PEET_NAME[metric], annotator, sources, hyps, refs)
    want = FIXTURE["conll14"][metric]
    assert close(got["sentence"], want["sentence"], 1e-12)     # gec-metrics' figures, to 1e-12
    if metric == "errant":
        assert got["corpus"] == [round(x, 4) for x in want["corpus"]]


@needs_gecm
@pytest.mark.parametrize("metric", ["errant", "gleu_official"])
def test_live_gec_metrics_sentence_scores(metric, annotator):
    systems = list(S.SYSTEMS.values())
    refs = [S.REF0, S.REF1]
    want = gecm.run(metric, {}, S.SRC, systems, refs)
    assert close(scores(PEET_NAME[metric], annotator, S.SRC, systems, refs)["sentence"], want["sentence"],
                 1e-12)     # gec-metrics' figures, to 1e-12 (numpy builds differ in the last bits)


def test_errant_sentence_score_by_hand(annotator):
    src = ["He go to school .", "This is fine ."]
    hyp = ["He goes to school .", "This is fine ."]
    ref0 = ["He went to school .", "This is fine ."]
    ref1 = ["He goes to school .", "This is good ."]
    m = get_metric("errant")
    stats = m.sentence_stats(hyp, EvalSet(src, [ref0, ref1], annotator=lambda: annotator))
    # sentence 1: ref1 is matched (F 1); sentence 2: ref0 has no edit (nothing proposed, nothing missed: F 1)
    assert m.sentence_scores(stats).tolist() == [1.0, 1.0]
    # the corpus-chosen counts come first, then (TP, FP, FN) of the reference best for the sentence alone: ref1
    # (its one edit matched) for sentence 1, ref0 (no edit, none proposed) for sentence 2
    assert stats.tolist() == [[1, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 0]]
    # without the per-reference columns the chosen pair's F is the score
    assert m.sentence_scores(stats[:, :3]).tolist() == [1.0, 1.0]


def test_gleu_sentence_score_by_hand():
    m = get_metric("gleu")
    # one reference: hyp "a b c d" = ref, source "a b c e": all four precisions 1, no brevity penalty
    stats = m.sentence_stats(["a b c d", "a b"], EvalSet(["a b c e", "a b"], [["a b c d", "a b c"]]))
    # sentence 2: hyp "a b" against ref "a b c": p1 = p2 = 1, no 3- or 4-grams (precision 1 as in gec-metrics),
    # brevity penalty exp(1 - 3/2)
    assert m.sentence_scores(stats).tolist() == [1.0, math.exp(1 - 3 / 2)]
    assert stats.shape == (2, 2, 10)        # one iteration, then one row per reference


def test_peet_and_wer_sentence_scores_are_their_per_sentence_figures():
    stats = np.array([[12.5, 3, 1], [4.0, 7, 2]])     # peet: seconds, then features
    assert get_metric("peet").sentence_scores(stats).tolist() == [12.5, 4.0]
    wer = get_metric("wer")
    stats = wer.sentence_stats(["a b c", "x"], EvalSet(None, [["a c", "x y z"], ["a b d", ""]]))
    # sentence 1: 1 edit to "a c" (2 words) or "a b d" (3 words): the closest is the first (ties: first) -> 1/2;
    # sentence 2: "" is 1 edit away (length counted as 1) -> 1/1
    assert wer.sentence_scores(stats).tolist() == [0.5, 1.0]
    assert not get_metric("peet").higher_is_better and not wer.higher_is_better


def test_default_is_each_sentence_scored_alone():
    class Mean(Metric):
        name = "mean-test"

        def corpus_score(self, stats):
            return float(np.mean(stats[:, 0]))

    assert Mean().sentence_scores(np.array([[1.0], [3.0]])).tolist() == [1.0, 3.0]


GOLD = """S He go to school .
A 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0
A 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||1

S This are fine .
A 1 2|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||0
A 1 2|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||1

S No change .
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1
"""


def test_every_metric_gives_one_score_per_sentence(annotator):
    import peet_fast
    from peet_fast.formats.m2 import annotator_references, parse_m2

    blocks = parse_m2(GOLD.splitlines(), "<gold>")
    data = EvalSet([" ".join(b.source) for b in blocks], annotator_references(blocks), blocks, None,
                   lambda: annotator)
    hyp = ["He goes to school .", "This is fine .", "No change ."]
    listed = peet_fast.metric_names()
    assert {"peet", "wer", "errant", "gleu", "m2", "green", "cleme", "cleme2"} <= set(listed)
    for name, info in listed.items():
        m = get_metric(name)
        assert info.higher_is_better == m.higher_is_better
        assert ("sources" in info.needs) == m.needs_sources and ("gold" in info.needs) == m.needs_gold
        got = m.sentence_scores(m.sentence_stats(hyp, data))
        assert got.shape == (3,) and np.isfinite(got).all(), name
    assert set(listed["cleme"].needs) == {"sources", "annotator"} and listed["m2"].needs == ("gold",)
