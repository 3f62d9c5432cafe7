"""`peet-fast rank`: paired bootstrap CIs and p-values, WER, human-score correlations, and bad input.

Expected values are hand-computed, come from an in-test dynamic program (WER), from scipy (correlations), or from
the `score` command (PEET itself is tested against the errant oracle in test_scoring.py)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, SPACY_MODEL
from peet_fast.evaluation import rank as rk
from peet_fast.cli import main
from peet_fast.io import InputError
from peet_fast.metrics import stats as ms
from peet_fast.metrics import wer as mw

RANK = FIXTURES / "rank"
SYSTEMS = [RANK / "good.txt", RANK / "middle.txt", RANK / "weak.txt"]
REFS = [RANK / "reference.txt", RANK / "reference2.txt"]
SPACY = ["--spacy-model", SPACY_MODEL]


def lines(path: Path) -> list[str]:
    return path.read_text("utf-8").split("\n")[:-1]


def dp_distance(a, b) -> int:
    """Textbook Levenshtein dynamic program (unit costs)."""
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
        prev = cur
    return prev[-1]


def dp_wer(hyp: str, refs: list[str]) -> float:
    """WER against the closest reference (smallest distance, first on ties), over max(1, its length)."""
    h = hyp.split()
    d = [dp_distance(h, r.split()) for r in refs]
    k = d.index(min(d))
    return d[k] / max(1, len(refs[k].split()))


# --- bootstrap -------------------------------------------------------------------------------------------------------

def test_bootstrap_indices_are_deterministic_for_a_seed():
    a = ms.bootstrap_indices(50, 200, seed=7)
    assert a.shape == (200, 50) and a.min() >= 0 and a.max() < 50
    assert np.array_equal(a, ms.bootstrap_indices(50, 200, seed=7))
    assert not np.array_equal(a, ms.bootstrap_indices(50, 200, seed=8))
    # the first k resamples do not depend on how many are drawn
    assert np.array_equal(a[:20], ms.bootstrap_indices(50, 20, seed=7))


def test_resample_means_by_hand():
    values = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    idx = np.array([[0, 0, 0], [0, 1, 2], [2, 2, 1]])
    # resample 3 takes sentences 2, 2, 1: system 0 -> (3 + 3 + 2) / 3, system 1 -> (1 + 1 + 2) / 3
    expected = np.array([[1.0, 3.0], [2.0, 2.0], [8 / 3, 4 / 3]])
    assert np.allclose(ms.resample_means(values, idx), expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize("block_cells", [1, 37, 1 << 22])
def test_bootstrap_is_paired_and_independent_of_blocking(monkeypatch, block_cells):
    """Every system is resampled with the same index rows: the means equal each system's own gather over
    bootstrap_indices(n, B, seed), however the resamples are cut into blocks."""
    monkeypatch.setattr(ms, "_BLOCK_CELLS", block_cells)
    rng = np.random.default_rng(1)
    values = rng.gamma(2.0, 10.0, size=(3, 41))
    boot = ms.bootstrap_means(values, 64, seed=5)
    idx = ms.bootstrap_indices(41, 64, seed=5)
    for s in range(3):
        assert np.allclose(boot[:, s], values[s][idx].mean(axis=1), rtol=1e-13, atol=0)


def test_pairing_shows_in_complementary_systems():
    """a = [0, 1], b = [1, 0]: resampled with the same sentences, mean_a + mean_b is 1 in every resample (it would
    not be with independent resamples)."""
    boot = ms.bootstrap_means(np.array([[0.0, 1.0], [1.0, 0.0]]), 500, seed=3)
    assert np.allclose(boot.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert boot[:, 0].std() > 0.1


def test_paired_p_value_by_hand():
    assert ms.paired_p_value(np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 2.0, 1.0, 5.0])) == 0.5
    x = np.array([1.0, 5.0, 2.0])
    assert ms.paired_p_value(x, x) == 1.0           # identical systems: never strictly better
    assert ms.paired_p_value(x, x + 0.5) == 0.0


def test_a_constant_shift_is_always_significant():
    rng = np.random.default_rng(2)
    base = rng.normal(20, 5, size=300)
    boot = ms.bootstrap_means(np.stack([base, base + 0.25]), 400, seed=11)
    assert np.allclose(boot[:, 1] - boot[:, 0], 0.25, atol=1e-9)
    assert ms.paired_p_value(boot[:, 0], boot[:, 1]) == 0.0


def test_percentile_ci_by_hand():
    boot = np.arange(1.0, 102.0)[:, None]           # 101 values 1..101: linear quantiles at 2.5 % and 97.5 %
    low, high = ms.percentile_ci(boot)
    assert low[0] == pytest.approx(1 + 0.025 * 100) and high[0] == pytest.approx(1 + 0.975 * 100)


def test_ci_contains_the_point_estimate_and_is_deterministic():
    rng = np.random.default_rng(4)
    values = rng.gamma(2.0, 10.0, size=(4, 200))
    b1 = ms.bootstrap_means(values, 1000, seed=9)
    b2 = ms.bootstrap_means(values, 1000, seed=9)
    assert np.array_equal(b1, b2)
    low, high = ms.percentile_ci(b1)
    means = values.mean(axis=1)
    assert np.all(low < means) and np.all(means < high)
    assert not np.array_equal(b1, ms.bootstrap_means(values, 1000, seed=10))


# --- WER -------------------------------------------------------------------------------------------------------------

TOKENS = st.lists(st.sampled_from(["a", "b", "c", "A", ".", "the", "cat"]), max_size=14)


@settings(max_examples=300, deadline=None)
@given(TOKENS, TOKENS)
def test_word_distance_equals_the_dynamic_program(a, b):
    assert mw.word_distance(a, b) == dp_distance(a, b)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(TOKENS, TOKENS, TOKENS), min_size=1, max_size=6))
def test_sentence_wer_equals_the_dynamic_program(rows):
    hyps = [[" ".join(r[0]) for r in rows], [" ".join(r[2]) for r in rows]]
    refs = [[" ".join(r[1]) for r in rows], [" ".join(r[2]) for r in rows[::-1]]]
    wer, _ = mw.sentence_wer(hyps, refs)
    for s in range(2):
        for i in range(len(rows)):
            assert wer[s, i] == dp_wer(hyps[s][i], [refs[0][i], refs[1][i]])


def test_sentence_wer_by_hand_on_the_fixture():
    hyps = [lines(p) for p in SYSTEMS]
    refs = [lines(p) for p in REFS]
    wer, best = mw.sentence_wer(hyps, refs)
    # weak line 2 vs reference2 "She goes to the school by bus every morning ." (10 words): go->goes, +the, mornings
    assert (wer[2, 1], best[2, 1]) == (0.3, 1)
    # line 11: reference is empty, reference2 "Thank you ."
    assert (wer[0, 10], best[0, 10]) == (0.0, 0)            # "" vs "": distance 0, the first reference
    assert (wer[1, 10], best[1, 10]) == (0.0, 1)            # "Thank you ." equals reference2
    assert wer[2, 10] == pytest.approx(2 / 3)               # "Thank you very much ." : 2 insertions vs reference2
    # one reference: an empty reference counts as length 1
    wer1, _ = mw.sentence_wer(hyps, refs[:1])
    assert wer1[1, 10] == 3.0 and wer1[2, 10] == 5.0 and wer1[0, 10] == 0.0
    for s in range(3):
        for i in range(12):
            assert wer[s, i] == dp_wer(hyps[s][i], [refs[0][i], refs[1][i]])


# --- correlation -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("x,y", [
    ([1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 1.0, 4.0, 3.0, 5.5]),
    ([21.7, 22.2, 22.3, 22.4, 22.7, 23.1, 23.2], [76.7, 74.1, 74.3, 73.6, 73.7, 70.1, 67.6]),
    ([1.0, 2.0, 2.0, 3.0, 3.0, 3.0], [0.5, 0.7, 0.7, 0.2, 0.9, 0.1]),      # ties
])
def test_correlations_match_scipy(x, y):
    stats = pytest.importorskip("scipy.stats")
    assert ms.pearson(x, y) == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
    assert ms.spearman(x, y) == pytest.approx(stats.spearmanr(x, y)[0], abs=1e-12)


def test_correlation_by_hand_and_degenerate_cases():
    assert ms.spearman([1, 2, 3], [30, 20, 10]) == -1.0
    assert ms.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert list(ms.average_ranks([10, 20, 20, 5])) == [2.0, 3.5, 3.5, 1.0]
    assert math.isnan(ms.pearson([1, 1, 1], [1, 2, 3]))
    assert math.isnan(ms.spearman([1], [2]))


# --- human scores ----------------------------------------------------------------------------------------------------

NAMES = ["good", "middle", "weak"]


def write_csv(tmp_path, text: str, name="h.csv") -> str:
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8"))
    return str(p)


def test_read_human_scores(tmp_path):
    assert rk.read_human_scores(str(RANK / "human.csv"), NAMES, ["ref"]) == {"weak": 1.5, "good": 4.5, "middle": 3.0}
    p = write_csv(tmp_path, "\ufeffsystem,score\r\ngood,1\r\n\r\nmiddle,-2.5e0\r\nweak, 3\r\n")
    assert rk.read_human_scores(p, NAMES) == {"good": 1.0, "middle": -2.5, "weak": 3.0}


@pytest.mark.parametrize("text,line,words", [
    ("system,score\ngood,1\nmiddle,2\nweak,3\nref,5\n", 5, "unknown system 'ref'"),
    ("system,score\ngood,1\nmiddle,2\ngood,3\nweak,3\n", 4, "appears twice"),
    ("name,value\ngood,1\n", 1, "header"),
    ("system,score\ngood,1\nmiddle,high\nweak,3\n", 3, "not a number"),
    ("system,score\ngood,1\nmiddle,nan\nweak,3\n", 3, "not a number"),
    ("system,score\ngood,1\nmiddle,1e999\nweak,3\n", 3, "not finite"),
    ("system,score\ngood,1\nmiddle,1_5\nweak,3\n", 3, "not a number"),
    ("system,score\ngood,1\nmiddle,1\nweak,1.0\n", None, "the same score"),
    ("system,score\ngood,1,2\n", 2, "expected 2 fields"),
    ("system,score\ngood,1\nmiddle,2\n", None, "at least 3"),
    ("", 1, "header"),
    ('system,score\ngood,1\n"middle,2\n', 3, "malformed CSV"),
])
def test_read_human_scores_refuses_bad_files(tmp_path, text, line, words):
    p = write_csv(tmp_path, text)
    with pytest.raises(InputError) as exc:
        rk.read_human_scores(p, NAMES)
    assert exc.value.line == line and exc.value.path == p
    assert words in str(exc.value)


# --- the command -----------------------------------------------------------------------------------------------------

def rank_args(summary, *extra):
    return ["rank", "--hyp", *SYSTEMS, "--ref", *REFS, "--summary", summary, *SPACY, *extra]


@pytest.fixture(scope="module")
def ranked(tmp_path_factory):
    """rank and score on the fixture: the two summaries."""
    d = tmp_path_factory.mktemp("rank")
    rc = main([str(a) for a in rank_args(d / "rank.json", "--human", RANK / "human.csv", "--human-ignore", "ref",
                                         "--bootstrap", "500", "--seed", "3")])
    assert rc == 0
    rc = main([str(a) for a in ["score", "--hyp", *SYSTEMS, "--ref", *REFS, "--summary", d / "score.json", *SPACY]])
    assert rc == 0
    return (json.loads((d / "rank.json").read_text("utf-8")), json.loads((d / "score.json").read_text("utf-8")),
            d)


def test_rank_summary(ranked):
    summary, scored, _ = ranked
    systems = summary["systems"]
    # the PEET, per-word effort and order of `score` (same scoring path)
    keys = ("name", "peet", "words", "seconds_per_word", "mean_seconds_per_word")
    assert [[s[k] for k in keys] for s in systems] == [[s[k] for k in keys] for s in scored["systems"]]
    assert [s["name"] for s in systems] == ["good", "middle", "weak"]
    hyps = {p.stem: lines(p) for p in SYSTEMS}
    refs = [lines(p) for p in REFS]
    for s in systems:
        assert set(s) >= {"name", "peet", "ci_low", "ci_high", "wer"}
        assert s["ci_low"] <= s["peet"] <= s["ci_high"]
        assert s["sentences"] == 12
        assert s["words"] == sum(len(h.split()) for h in hyps[s["name"]])
        expected = math.fsum(dp_wer(h, [refs[0][i], refs[1][i]]) for i, h in enumerate(hyps[s["name"]])) / 12
        assert s["wer"] == pytest.approx(expected, rel=1e-12)
    assert systems[-1]["p_next"] is None and all(0 <= s["p_next"] <= 1 for s in systems[:-1])
    assert [s["human"] for s in systems] == [4.5, 3.0, 1.5]
    stats = pytest.importorskip("scipy.stats")
    human = [s["human"] for s in systems]
    c = summary["correlation"]
    assert c["systems"] == 3
    for m in ("peet", "wer"):
        vals = [s[m] for s in systems]
        assert c[m]["spearman"] == pytest.approx(stats.spearmanr(vals, human)[0], abs=1e-12)
        assert c[m]["pearson"] == pytest.approx(stats.pearsonr(vals, human)[0], abs=1e-12)
    assert summary["bootstrap"]["resamples"] == 500 and summary["bootstrap"]["seed"] == 3


def test_rank_is_deterministic_for_a_seed(ranked, tmp_path, run_cli):
    summary, _, _ = ranked
    again = tmp_path / "again.json"
    rc, out, err = run_cli(*rank_args(again, "--human", RANK / "human.csv", "--human-ignore", "ref",
                                              "--bootstrap", "500", "--seed", "3"))
    assert rc == 0, err
    s2 = json.loads(again.read_text("utf-8"))
    assert s2["systems"] == summary["systems"]
    assert "PEET vs human (3 systems): Spearman" in out
    other = tmp_path / "other.json"
    rc, _, err = run_cli(*rank_args(other, "--bootstrap", "500", "--seed", "4"))
    assert rc == 0, err
    s3 = json.loads(other.read_text("utf-8"))
    assert [s["ci_low"] for s in s3["systems"]] != [s["ci_low"] for s in summary["systems"]]
    assert [s["peet"] for s in s3["systems"]] == [s["peet"] for s in summary["systems"]]
    assert s3["correlation"] is None


@pytest.mark.parametrize("extra,words", [
    (["--human", RANK / "human.csv"], "human.csv:5: unknown system 'ref': not among"),     # line named once
    (["--bootstrap", "0"], "--bootstrap: must be at least 1"),
    (["--seed", "-1"], "--seed: must be a non-negative integer"),
    (["--human-ignore", "ref"], "--human-ignore: needs --human"),
    (["--human", RANK / "missing.csv"], "missing.csv: no such file"),
])
def test_rank_bad_input_writes_nothing(tmp_path, run_cli, extra, words):
    summary = tmp_path / "s.json"
    rc, out, err = run_cli(*rank_args(summary, *extra))
    assert rc == 2
    assert words in err
    assert not summary.exists() and list(tmp_path.iterdir()) == []


def test_rank_refuses_a_line_count_mismatch(tmp_path, run_cli):
    short = tmp_path / "short.txt"
    short.write_text("".join(line + "\n" for line in lines(SYSTEMS[0])[:5]), "utf-8")
    summary = tmp_path / "s.json"
    rc, _, err = run_cli("rank", "--hyp", short, SYSTEMS[1], "--ref", REFS[0], "--summary", summary, *SPACY)
    assert rc == 2 and "differ in line count" in err and not summary.exists()


# --- shared corpora --------------------------------------------------------------------------------------------------

GMEG_SYSTEMS = ["amu", "lstm", "lstm-r", "marian", "nus", "transformer", "source"]


@pytest.mark.slow
def test_rank_gmeg_fce_dev_subset(tmp_path, run_cli, shared_corpora, corpus_lines):
    """The first 120 lines of GMEG FCE dev (7 systems incl. the source, 4 references) with its human CSV as
    shipped: its 'ref' row must be skipped explicitly."""
    base = shared_corpora / "gmeg" / "dev"
    sub = tmp_path / "fce"
    sub.mkdir()
    for name in [*GMEG_SYSTEMS, "ref0", "ref1", "ref2", "ref3"]:
        (sub / name).write_text("".join(line + "\n" for line in corpus_lines(base / "fce" / name)[:120]), "utf-8")
    human = base / "fce-corpus-scores.csv"
    hyps = [sub / n for n in GMEG_SYSTEMS]
    refs = [sub / f"ref{k}" for k in range(4)]
    summary = tmp_path / "s.json"
    rc, _, err = run_cli("rank", "--hyp", *hyps, "--ref", *refs, "--human", human, "--summary", summary,
                         *SPACY)
    assert rc == 2 and "fce-corpus-scores.csv:7: unknown system 'ref'" in err and not summary.exists()
    rc, out, err = run_cli("rank", "--hyp", *hyps, "--ref", *refs, "--human", human, "--human-ignore", "ref",
                           "--summary", summary, "--bootstrap", "300", *SPACY)
    assert rc == 0, err
    s = json.loads(summary.read_text("utf-8"))
    assert sorted(x["name"] for x in s["systems"]) == sorted(GMEG_SYSTEMS)
    ref_lines = [corpus_lines(r) for r in refs]
    for x in s["systems"]:
        assert x["ci_low"] <= x["peet"] <= x["ci_high"]
        hyp = corpus_lines(sub / x["name"])
        wer = math.fsum(dp_wer(h, [r[i] for r in ref_lines]) for i, h in enumerate(hyp)) / 120
        assert x["wer"] == pytest.approx(wer, rel=1e-12)
    assert s["correlation"]["systems"] == 7
    assert all(-1 <= s["correlation"][m][c] <= 1 for m in ("peet", "wer") for c in ("spearman", "pearson"))
