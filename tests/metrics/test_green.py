"""GREEN (metric "green") against gec-metrics: its own test values, fixtures of its figures (hand-written edge cases,
generated hypotheses of CoNLL-14 sentences: tests/fixtures/green/make_fixtures.py) and, where gec-metrics' venv is
(tests/metrics/gecm.py), gec-metrics run live on the same inputs. Expected values come from gec-metrics or by hand."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))

import gecm  # noqa: E402
from generated_hyps import Stream, conll14_set  # noqa: E402
from green_cases import CASES, HYPS, REFS, SRCS  # noqa: E402

from conftest import close  # noqa: E402

from peet_fast.io import InputError  # noqa: E402
from peet_fast.metrics.base import EvalSet, get_metric  # noqa: E402
from peet_fast.metrics.green import pair_counts  # noqa: E402

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "green" / "gec_metrics.json").read_text())
needs_gecm = pytest.mark.skipif(gecm.python() is None, reason="gec-metrics' venv not found (tests/metrics/gecm.py)")


def figures(config, sources, systems, refs):
    m = get_metric("green", **config)
    data = EvalSet(sources, refs)
    out = {"corpus": [], "sentence": []}
    for h in systems:
        stats = m.sentence_stats(h, data)
        out["corpus"].append(m.corpus_score(stats))
        out["sentence"].append(m.sentence_scores(stats).tolist())
    return out


# gec-metrics' green_test.py: (beta, corpus x 100, sentences x 100)
GEC_METRICS_TEST = [(0.5, 67.353281938837, [67.080694940041, 34.099683242425, 100.0, 89.496113939418]),
                    (2.0, 71.852523831581, [74.467815149281, 60.992075408949, 100.0, 68.051848160668])]


@pytest.mark.parametrize("beta,corpus,sentences", GEC_METRICS_TEST)
def test_gec_metrics_own_test_values(beta, corpus, sentences):
    got = figures({"beta": beta}, SRCS, [HYPS], REFS)
    assert math.isclose(100 * got["corpus"][0], corpus, abs_tol=1e-9)
    assert all(math.isclose(100 * a, b, abs_tol=1e-9) for a, b in zip(got["sentence"][0], sentences))


def test_hand_computed_counts_and_score():
    # unigrams of src "a b", hyp "a b" (unchanged), ref "a c": a is a true keep (TP); b was to be deleted and was
    # kept (UD: FN); c was to be inserted and was not (UI: FN)
    counts = pair_counts(["a b"], ["a b"], [["a c"]], n=1)
    assert counts.tolist() == [[[[1, 0, 2]]]]
    # P = 1 (no FP), R = 1/3: F2 = 5 * (1/3) / (4 + 1/3) = 5/13
    got = figures({"n": 1}, ["a b"], [["a b"]], [["a c"]])
    assert math.isclose(got["corpus"][0], 5 / 13, rel_tol=1e-15)
    # hyp "a c" makes the reference's changes: TK a, TD b, TI c; nothing else
    assert pair_counts(["a b"], ["a c"], [["a c"]], n=1).tolist() == [[[[3, 0, 0]]]]
    # bigrams: "a b" was to be deleted (TD), "a c" inserted (TI); an over-insertion "c c" is an FP (OI)
    assert pair_counts(["a b"], ["a c c"], [["a c"]], n=2)[0, 0, 1].tolist() == [2, 1, 0]


def test_best_reference_is_per_sentence_and_first_on_ties():
    m = get_metric("green")
    # the second reference equals the hypothesis (score 1); the first does not
    data = EvalSet(["a b c d", "x y"], [["a b c e", "x y"], ["a b c d", "x y"]])
    stats = m.sentence_stats(["a b c d", "x y"], data)
    assert m.sentence_scores(stats).tolist() == [1.0, 1.0]
    assert stats[0].tolist() == pair_counts(["a b c d"], ["a b c d"], [["a b c d"]])[0, 0].tolist()


@pytest.mark.parametrize("name", list(FIXTURE["cases"]))
def test_hand_written_cases_equal_gec_metrics_fixture(name):
    case = next(c for c in CASES if c[0] == name)
    assert figures(*case[1:]) == FIXTURE["cases"][name]


@pytest.mark.parametrize("name", list(FIXTURE["conll14"]))
def test_generated_conll14_hypotheses_equal_gec_metrics_fixture(name, shared_corpora):
    sources, refs, hyps = conll14_set(shared_corpora)
    assert len(sources) == FIXTURE["conll14_sentences"]
    want = FIXTURE["conll14"][name]
    got = figures(want["config"], sources, hyps, refs)
    assert got["corpus"] == want["corpus"]
    assert got["sentence"] == want["sentence"]


def random_set(seed: int, n: int = 200, vocab: str = "abcde"):
    """Short sentences over a tiny vocabulary (many repeated n-grams), with odd spacing now and then."""
    rng = Stream(seed)

    def sent():
        toks = [vocab[rng.below(len(vocab))] for _ in range(rng.below(9))]
        glue = "  " if rng.random() < 0.1 else " "
        return (" " if rng.random() < 0.1 else "") + glue.join(toks)

    sources = [sent() for _ in range(n)]
    refs = [[sent() for _ in range(n)] for _ in range(2)]
    hyps = [[sent() for _ in range(n)], [r if rng.random() < 0.5 else sent() for r in refs[0]]]
    return sources, hyps, refs


@needs_gecm
@pytest.mark.parametrize("config", [{}, {"beta": 0.5, "n": 3}, {"unit": "char"}])
def test_live_gec_metrics_on_random_sentences(config):
    sources, hyps, refs = random_set(7 + len(config))
    # gec-metrics' figures to 1e-12 (numpy builds differ in the last bits)
    assert close(figures(config, sources, hyps, refs), gecm.run("green", config, sources, hyps, refs), 1e-12)


@needs_gecm
def test_live_gec_metrics_on_the_hand_written_cases():
    for name, config, sources, systems, refs in CASES:
        assert close(figures(config, sources, systems, refs), gecm.run("green", config, sources, systems, refs),
                     1e-12), name     # gec-metrics' figures to 1e-12


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.text("ab c", max_size=12), st.text("ab c", max_size=12)), min_size=1, max_size=6))
def test_hypothesis_equal_to_its_reference_scores_one(pairs):
    # hyp == ref: every n-gram has mh = mr, so FP = FN = 0 whatever the source: P = R = 1
    sources = [s for s, _ in pairs]
    refs = [r for _, r in pairs]
    got = figures({}, sources, [refs], [refs])
    assert got["sentence"][0] == [1.0] * len(pairs)
    assert got["corpus"][0] == 1.0


def test_bootstrap_and_subsets_score_the_rows_given():
    sources, hyps, refs = random_set(3, n=40)
    m = get_metric("green")
    stats = m.sentence_stats(hyps[0], EvalSet(sources, refs))
    idx = np.random.default_rng(0).integers(0, len(stats), size=(5, len(stats)))
    assert m.bootstrap(stats, idx).tolist() == [m.corpus_score(stats[row]) for row in idx]
    assert m.sentence_scores(stats[3:4]).tolist() == [m.corpus_score(stats[3:4])]


def test_bad_options_and_inputs():
    with pytest.raises(InputError, match="unit"):
        get_metric("green", unit="token")
    with pytest.raises(InputError, match="order"):
        get_metric("green", n=0)
    m = get_metric("green")
    with pytest.raises(InputError, match="source"):
        m.sentence_stats(["a"], EvalSet(None, [["a"]]))
    with pytest.raises(InputError, match="differ in length"):
        m.sentence_stats(["a", "b"], EvalSet(["a"], [["a"]]))


def test_compare_and_rank_take_green(capsys, tmp_path):
    from peet_fast.cli import main

    R = Path(__file__).parents[1] / "fixtures" / "rank"
    common = ["--hyp", str(R / "weak.txt"), "--ref", str(R / "reference.txt"), str(R / "reference2.txt")]
    assert main(["compare", "--src", str(R / "source.txt"), *common, "--metric", "green"]) == 0
    out = capsys.readouterr().out
    src, hyp = (R / "source.txt").read_text().splitlines(), (R / "weak.txt").read_text().splitlines()
    refs = [(R / f).read_text().splitlines() for f in ("reference.txt", "reference2.txt")]
    assert out == f"GREEN F2\t{figures({}, src, [hyp], refs)['corpus'][0]:.4f}\n"
    # without the sources: one line naming the option, exit 2
    assert main(["compare", *common, "--metric", "green"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--metric" in err[0] and "--src" in err[0]
