"""The senterrant metric against PT-M2's own errant_score.py on errant_parallel M2 files (tests/fixtures/senterrant:
its figures, made by RUNNING it, see make.py there)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from peet_fast.io import InputError
from peet_fast.metrics.base import EvalSet, get_metric, metric_names
from peet_fast.metrics.senterrant import edit_keys, matched
from tests.conftest import FIXTURES, SPACY_MODEL

HERE = FIXTURES / "senterrant"


def _fixture_maker():
    """tests/fixtures/senterrant/make.py under a name of its own (other fixture folders have a make.py too)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("senterrant_fixture_make", HERE / "make.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SETS = _fixture_maker().SETS


@pytest.fixture(scope="module")
def annotator():
    import peet_fast

    return peet_fast.load("en", spacy_model=SPACY_MODEL)


def lines(path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_sentence_is_ptm2s(annotator, name):
    src, refs, hyps = SETS[name]
    expected = json.loads((HERE / f"{name}.json").read_text())["systems"]
    metric = get_metric("senterrant")
    data = EvalSet(lines(src), [lines(r) for r in refs], annotator=lambda: annotator)
    stats = metric.system_stats([lines(h) for h in hyps], data)
    for hyp, st in zip(hyps, stats):
        assert metric.sentence_scores(st).tolist() == expected[hyp.name]["sentences"], hyp.name
        assert metric.corpus_score(st) == expected[hyp.name]["mean"]


def test_cases_by_hand(annotator):
    src, refs, hyps = SETS["cases"]
    data = EvalSet(lines(src), [lines(r) for r in refs], annotator=lambda: annotator)
    metric = get_metric("senterrant")
    sys1, sys3 = metric.system_stats([lines(hyps[1]), lines(hyps[3])], data)
    f = metric.sentence_scores(sys1)
    assert f[0] == 1.0                      # "He goes to school ." is reference 0
    assert f[4] == 1.0                      # unchanged where both references are unchanged
    assert f[5] == 1.0                      # reference 0 exactly
    # "He likes apple .": 'likes' is right for both references, each of which has one more edit: P 1, R 1/2
    assert sys1[3][0] == pytest.approx(1.25 * 0.5 / (0.25 + 0.5)) and sys1[3].tolist()[1:] == [1, 1, 2]
    assert metric.sentence_scores(sys3).tolist() == [0.0] * 6      # empty hypotheses: only wrong deletions
    assert sys1.shape == (6, 4)


def test_gen_lists_ptm2s_own_stop():
    # gen.txt line 16 holds 'or or or' for 'or': errant's two identical insertions count once in PT-M2 (a dict), and
    # its own check then stops; the figure is PT-M2's without the check
    expected = json.loads((HERE / "gen.json").read_text())["systems"]["gen.txt"]
    assert expected["asserts"] == [15]


def test_keys_and_ordered_matching():
    edits = [(1, 2, "R:VERB", "is"), (3, 3, "M:DET", "a"), (3, 3, "M:DET", "a"), (-1, -1, "noop", "-NONE-"),
             (5, 6, "UNK", "x")]
    assert edit_keys(edits) == [(1, 2, "is"), (3, 3, "a")]
    ref = [(1, 2, "is"), (3, 3, "a")]
    assert matched([(1, 2, "is"), (3, 3, "a")], ref) == 2
    assert matched([(3, 3, "a"), (1, 2, "is")], ref) == 1      # a match moves the search past it
    assert matched([], ref) == 0


def test_registry_blank_source_and_bootstrap(annotator):
    assert "senterrant" in metric_names()
    metric = get_metric("senterrant")
    assert metric.needs_sources and metric.higher_is_better
    with pytest.raises(InputError, match="source line 2 is blank"):
        metric.system_stats([["a .", "b ."]], EvalSet(["a .", " "], [["a .", "b ."]], annotator=lambda: annotator))
    stats = np.array([[1.0, 1, 1, 1], [0.0, 0, 1, 0], [0.5, 1, 3, 1]])
    assert metric.corpus_score(stats) == 0.5
    assert metric.bootstrap(stats, np.array([[0, 0, 1], [2, 2, 2]])) == pytest.approx([2 / 3, 0.5])
