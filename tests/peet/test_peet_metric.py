"""PEET as a registry metric: its breakdown (issue 34), PEET's seconds by term of the model.

Expected values: the model's own coefficients and intercept times hand-counted feature means (a pair with no edit has
every edit count 0; its word count is counted here), and the identity that the terms add up to the corpus score."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from conftest import FIXTURES, SPACY_MODEL
from peet_fast.metrics.base import EvalSet, get_metric
from peet_fast.peet.model import load_model

RANK = FIXTURES / "rank"


@pytest.fixture(scope="module")
def annotator():
    import peet_fast

    return peet_fast.load("en", spacy_model=SPACY_MODEL)


def unit_coefficient(model, name):
    k = model.features.index(name)
    c = model.coefficients[k]
    return c / model.scale[k] if model.mean is not None else c


def test_no_edit_breakdown_is_the_intercept_and_the_length_terms(annotator):
    model = load_model()
    texts = ["This is fine .", "A longer sentence with seven words ."]
    peet = get_metric("peet")
    [stats] = peet.system_stats([texts], EvalSet(None, [texts], annotator=lambda: annotator))
    got = peet.breakdown(stats)
    assert set(got) == {"intercept", *model.features}
    assert got["intercept"]["seconds"] == pytest.approx(model.intercept, abs=1e-12)
    words = [len(t.split()) for t in texts]
    assert got["NumWordsS"]["mean"] == pytest.approx(sum(words) / 2, abs=1e-12)
    for name in model.features:
        if model.mean is None:
            assert got[name]["seconds"] == pytest.approx(unit_coefficient(model, name) * got[name]["mean"], abs=1e-9)
    counts = [f for f in model.features if f not in ("NumWordsS", "NumWordsT", "NumCharsS", "NumCharsT")]
    assert any(got[f]["mean"] == 0 for f in counts)
    total = math.fsum(v["seconds"] for v in got.values())
    assert total == pytest.approx(peet.corpus_score(stats), abs=1e-9)
    assert math.fsum(v["share"] for v in got.values()) == pytest.approx(1.0, abs=1e-9)


def test_terms_add_up_to_each_systems_peet(annotator):
    systems = [[line.rstrip("\n") for line in open(RANK / f"{n}.txt", encoding="utf-8")] for n in ("good", "weak")]
    refs = [[line.rstrip("\n") for line in open(r, encoding="utf-8")] for r in (RANK / "reference.txt",
                                                                               RANK / "reference2.txt")]
    peet = get_metric("peet")
    for stats in peet.system_stats(systems, EvalSet(None, refs, annotator=lambda: annotator)):
        got = peet.breakdown(stats)
        assert math.fsum(v["seconds"] for v in got.values()) == pytest.approx(peet.corpus_score(stats), abs=1e-9)
    assert peet.breakdown(np.zeros((2, len(stats[0])))) is None        # not this instance's statistics


def test_rank_summary_carries_peets_breakdown(tmp_path):
    from peet_fast.cli import main

    summary = tmp_path / "summary.json"
    assert main(["rank", "--hyp", str(RANK / "good.txt"), str(RANK / "weak.txt"), "--ref", str(RANK / "reference.txt"),
                 "--spacy-model", SPACY_MODEL, "--no-cache", "--summary", str(summary)]) == 0
    for system in json.loads(summary.read_text())["systems"]:
        entry = system["metrics"]["peet"]
        parts = entry["breakdown"]
        assert math.fsum(v["seconds"] for v in parts.values()) == pytest.approx(entry["score"], abs=1e-6)
