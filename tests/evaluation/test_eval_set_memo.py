"""Issue 42, point 3: one memo of annotated pairs, owned by the EvalSet, on for every multi-metric ranking: `rank
--metric errant senterrant gotoscorer cleme` annotates each (source, sentence) pair once, and the figures are those
of each metric scored alone."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from peet_fast.evaluation.rank import RankOptions, rank_systems
from peet_fast.languages import Annotators
from peet_fast.metrics.base import EvalSet

RANK = Path(__file__).resolve().parents[1] / "fixtures" / "rank"
METRICS = ("errant", "senterrant", "gotoscorer", "cleme")


def _lines(name: str) -> list[str]:
    return (RANK / name).read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def counted():
    """An English annotator that counts the pairs it really annotates (not those it recalls from a memo)."""
    annotators = Annotators("en", {"cache": False})
    annotator = annotators()
    seen: Counter = Counter()
    real = annotator._annotate_pairs

    def counting(origs, cors):
        seen.update(zip(origs, cors))
        return real(origs, cors)

    annotator._annotate_pairs = counting
    yield annotators, seen
    del annotator._annotate_pairs


def _rank(annotators, metrics):
    hyps = [_lines(f) for f in ("good.txt", "middle.txt", "weak.txt")]
    data = EvalSet(_lines("source.txt"), [_lines("reference.txt")], annotator=annotators, options={"lang": "en"})
    ranking = rank_systems(data, ["good", "middle", "weak"], hyps, metrics, RankOptions(resamples=20, seed=1))
    return {m: [s.metrics[m].score for s in ranking.systems] for m in metrics}, ranking


def test_four_annotating_metrics_annotate_each_pair_once(counted):
    annotators, seen = counted
    seen.clear()
    together, ranking = _rank(annotators, METRICS)
    assert seen and max(seen.values()) == 1, [p for p, k in seen.items() if k > 1][:3]
    sources = _lines("source.txt")
    hypotheses = {(s.strip(), h.strip()) for f in ("good.txt", "middle.txt", "weak.txt")
                  for s, h in zip(sources, _lines(f))}
    assert hypotheses <= set(seen)                       # every system's pairs went through the annotator
    for metric in METRICS:                               # the same figures as each metric scored on its own
        alone, _ = _rank(annotators, (metric,))
        assert alone[metric] == pytest.approx(together[metric], abs=1e-12)


def test_the_memo_is_the_eval_sets():
    a, b = EvalSet(["a"], [["a"]]), EvalSet(["a"], [["a"]])
    assert a.memo is not b.memo and a.memo.size == 0
    with a.remembered():
        from peet_fast.languages import pair_memo

        assert pair_memo() is a.memo


def test_the_constructors_hand_a_memo_on():
    """EvalSet.from_files and from_gold (the package's only ways to build one) share a memo given, else make one."""
    from types import SimpleNamespace

    from peet_fast.formats.m2 import parse_m2, split_lines
    from peet_fast.languages import PairMemo

    memo = PairMemo()
    given = SimpleNamespace(sources=["a b"], references=[["a c"]], gold=None, gold_path=None)
    shared = EvalSet.from_files(given, None, {"lang": "en"}, memo=memo)
    assert shared.memo is memo and shared == EvalSet.from_files(given, None, {"lang": "en"})
    assert EvalSet.from_files(given).memo is not memo
    blocks = parse_m2(split_lines("S a b\nA 1 2|||R:NOUN|||c|||REQUIRED|||-NONE-|||0\n\n"))
    gold = EvalSet.from_gold(blocks, None, memo=memo)
    assert gold.memo is memo and gold.sources == ["a b"] and gold.references == [["a c"]]
    assert EvalSet.from_gold(blocks).memo is not memo
