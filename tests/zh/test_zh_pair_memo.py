"""The Chinese annotator under the run's memo of annotated pairs (languages.remembering, the code the English
annotator uses: languages.recalled_pairs): a pair annotated twice under one memo is aligned once, the Annotations
are the same with and without the memo, and a pair annotated under one strategy is never recalled for another."""
from __future__ import annotations

from pathlib import Path

import pytest

from peet_fast.languages import PairMemo, remembering

pytest.importorskip("peet_fast._ext.zh_align")
from peet_fast.zh import ZhAnnotator, load_cilin_file  # noqa: E402

FX = Path(__file__).parents[1] / "fixtures" / "zh"
# edits, a tie with two alignments (from fixtures/zh/chars.para), a noop, 无法标注 and a whitespace difference
ORIGS = ["我今天去了学校。", "他刚到家就被天下雪了。", "他很好。", "这句话", "我 今天去了学校。"]
CORS = ["我昨天去过学校了。", "他刚到家天就下雪了。", "他很好。", "无法标注", "我昨天去过学校了。"]


@pytest.fixture(scope="module")
def annotator():
    return ZhAnnotator(cilin=load_cilin_file(FX / "cilin.txt"), confusion=None, t2s=False)


def counted(annotator, monkeypatch) -> list:
    """The (source, target) pairs the annotator's char-level extraction (annotate_full) is called on."""
    calls = []
    full = annotator.annotate_full

    def annotate_full(src, tgt, strategy="all"):
        calls.append((src, tgt))
        return full(src, tgt, strategy)

    monkeypatch.setattr(annotator, "annotate_full", annotate_full)
    return calls


def test_annotated_once_and_same_results(annotator, monkeypatch):
    plain = annotator.annotate_pairs(ORIGS, CORS)
    assert [a.kind for a in plain] == ["edits", "edits", "noop", "NA", "edits"]
    assert len(plain[1].alignments) > 1             # the tie: every minimum-cost alignment
    calls = counted(annotator, monkeypatch)
    memo = PairMemo()
    with remembering(memo):
        first = annotator.annotate_pairs(ORIGS + ORIGS[:2], CORS + CORS[:2])    # two pairs given twice
        assert calls == list(zip(ORIGS, CORS)) and memo.hits == 0 and memo.size == len(ORIGS)
        second = annotator.annotate_pairs(list(reversed(ORIGS)), list(reversed(CORS)))
        assert len(calls) == len(ORIGS) and memo.hits == len(ORIGS)
    assert first == plain + plain[:2] and list(reversed(second)) == plain
    first[0].source.append("x")                     # a caller changing its lists changes no one else's
    with remembering(memo):
        assert annotator.annotate_pairs(ORIGS[:1], CORS[:1]) == plain[:1]
    annotator.annotate_pairs(ORIGS, CORS)           # no memo active: annotated again
    assert len(calls) == 2 * len(ORIGS)


def test_strategies_kept_apart(annotator, monkeypatch):
    every = annotator.annotate_pairs(ORIGS, CORS)
    first = annotator.annotate_pairs(ORIGS, CORS, alternatives=False)
    assert every[1] != first[1] and len(first[1].alignments) == 1
    calls = counted(annotator, monkeypatch)
    with remembering(PairMemo()):
        assert annotator.annotate_pairs(ORIGS, CORS) == every
        assert annotator.annotate_pairs(ORIGS, CORS, alternatives=False) == first
        assert annotator.annotate_pairs(ORIGS, CORS, alternatives=False) == first
    assert len(calls) == 2 * len(ORIGS)
