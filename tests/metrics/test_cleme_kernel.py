"""The compiled CLEME chunk partition, labels and counts (ext/cleme.pyx) against their Python reference
(peet_fast.metrics.cleme.chunk_partition, peet_fast.metrics.cleme2.labels and counts, and
_ChunkMetric.stats_of_python): the same figures exactly, on random sentences (hypothesis) and on the CLEME fixtures'
M2 files. The registry metrics' figures against CLEME itself are tests/metrics/test_cleme2.py's."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from peet_fast._ext.cleme import LABELS, Unsupported, label_counts, partition_labels
from peet_fast.metrics import cleme2 as C2
from peet_fast.metrics.base import get_metric
from peet_fast.metrics.cleme import CSentence, Target, cleme_sentences

CASES = Path(__file__).parents[1] / "fixtures" / "cleme2" / "cases"
VOCAB = ["a", "b", "c", "the", "cat", "", "a"]      # repeated and empty tokens on purpose


def apply_edits(src: list[str], spans: list[tuple[int, int, list[str]]]) -> Target:
    """A target built as CLEME's M2 reader builds one (cleme._apply_edits): spans in the order given."""
    tokens, offset, edits = list(src), 0, []
    for s, e, cor in spans:
        tb = s + offset
        tokens[tb:e + offset] = cor
        offset += len(cor) - (e - s)
        edits.append((s, e, tb, tb + len(cor)))
    return Target(tuple(tokens), tuple(edits))


@st.composite
def targets(draw, src):
    n = len(src)
    k = draw(st.integers(0, 4))
    spans = []
    for _ in range(k):
        s = draw(st.integers(0, n))
        e = draw(st.integers(s, min(n, s + 3)))
        spans.append((s, e, draw(st.lists(st.sampled_from(VOCAB), max_size=3))))
    if draw(st.booleans()):                       # as annotators give them: sorted, not overlapping
        spans.sort(key=lambda x: x[0])
        kept, end = [], -1
        for s, e, cor in spans:
            if s >= end and not (s == end and e == s and kept and kept[-1][0] == kept[-1][1] == s):
                kept.append((s, e, cor))
                end = e
        spans = kept
    return apply_edits(src, spans)


@st.composite
def sentences(draw):
    src = draw(st.lists(st.sampled_from(VOCAB[:5]), min_size=0, max_size=8))
    hyp = draw(targets(src))
    refs = draw(st.lists(targets(src), min_size=1, max_size=3))
    if draw(st.booleans()):                       # an empty reference, dropped as CLEME drops it
        refs.append(Target((), ()))
    return CSentence(tuple(src), hyp, tuple(refs))


def python_side(sents, merge_distance, mode):
    """(n_chunks, n_refs, lengths, labels, bias) from the Python implementation."""
    parts, bias = C2.partitions(sents, merge_distance)
    n_chunks, n_refs, lengths, labels = [], [], [], []
    for chunks in parts:
        rows = C2.labels(chunks, mode)
        n_chunks.append(len(chunks[0]))
        n_refs.append(len(rows))
        lengths += [c.length for c in chunks[0]]
        labels += [LABELS.index(lab) for row in rows for lab, _ in row]
    return n_chunks, n_refs, lengths, labels, bias


def outcome(f):
    try:
        return f()
    except Unsupported:
        return "unsupported"
    except (KeyError, AssertionError, ValueError) as e:
        return type(e).__name__


@settings(max_examples=300, deadline=None)
@given(st.lists(sentences(), min_size=1, max_size=6), st.integers(0, 2), st.sampled_from(["dependent", "independent"]))
def test_partition_and_labels_equal_python(sents, merge_distance, mode):
    mine = outcome(lambda: partition_labels(sents, merge_distance, mode == "dependent"))
    theirs = outcome(lambda: python_side(sents, merge_distance, mode))
    if isinstance(mine, str) or isinstance(theirs, str):
        assert mine == theirs or mine == "unsupported"
        return
    for a, b in zip(mine[:4], theirs[:4]):
        assert a.tolist() == list(b)
    assert mine[4] == theirs[4]                    # the same float operations: exactly equal
    for weigher in (None, C2.CORPUS_WEIGHER, C2.ClassWeigher((10.0, 0.5, 1.5), (3.0, 0.7, 1.3), (1.5, 0.9, 1.1))):
        got = label_counts(*mine[:4], weigher, mine[4])
        parts, bias = C2.partitions(sents, merge_distance)
        want = [C2.counts(row, weigher, bias) for chunks in parts for row in C2.labels(chunks, mode)]
        assert got.tolist() == [[float(x) for x in row] for row in want]


@settings(max_examples=150, deadline=None)
@given(st.lists(sentences(), min_size=1, max_size=8), st.sampled_from(["dependent", "independent"]), st.booleans(),
       st.sampled_from(["cleme", "cleme2"]))
def test_stats_equal_python(sents, mode, weighted, name):
    metric = get_metric(name, mode=mode, weighted=weighted)
    got, want = metric.stats_of(sents), metric.stats_of_python(sents)
    assert got.shape == want.shape
    assert np.array_equal(got, want, equal_nan=True)
    assert metric.corpus_score(got) == metric.corpus_score(want)


@pytest.mark.parametrize("hyp", ["hyp_a.m2", "hyp_b.m2", "hyp_none.m2"])
@pytest.mark.parametrize("name", ["cleme", "cleme2"])
def test_fixture_files_equal_python(hyp, name):
    sents = cleme_sentences(CASES / hyp, CASES / "ref.m2")
    for mode in ("dependent", "independent"):
        for weighted in (False, True):
            metric = get_metric(name, mode=mode, weighted=weighted)
            assert np.array_equal(metric.stats_of(sents), metric.stats_of_python(sents), equal_nan=True)


def test_outside_the_domain_falls_back_to_python():
    src = ("a", "b")
    odd = CSentence(src, Target(("a",), ((1, 0, 1, 1),)), (Target(("b",), ((0, 1, 0, 0),)),))
    with pytest.raises(Unsupported):
        partition_labels([odd], 0, True)
    metric = get_metric("cleme")
    assert np.array_equal(metric.stats_of([odd]), metric.stats_of_python([odd]), equal_nan=True)
