"""Every metric of the registry in `rank` (issue 20, point 4): the peet, wer and errant metrics against the code paths
and commands they must equal, the shared bootstrap, a gold M2 as --ref, correlations per metric, and a fake
registered metric flowing through rank, --summary and report.

Expected values: the `compare --src` command (errant_compare's figures, tested against errant itself in
tests/metrics), the `score` scoring path and the legacy bootstrap (PEET), an in-test dynamic program (WER), scipy
(correlations), and hand-computed cases."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from conftest import FIXTURES, SPACY_MODEL
from test_rank import dp_wer, lines      # the helpers of the rank tests, not their tests
from peet_fast.evaluation import rank as rk
from peet_fast.cli import main
import peet_fast
from peet_fast.formats.m2 import annotator_references, looks_like_m2, parse_m2
from peet_fast.io import InputError
from peet_fast.languages import Annotators
from peet_fast.metrics import base
from peet_fast.metrics import stats as ms
from peet_fast.metrics.base import EvalSet, Metric, get_metric

RANK = FIXTURES / "rank"
SYSTEMS = [RANK / "good.txt", RANK / "middle.txt", RANK / "weak.txt"]
REFS = [RANK / "reference.txt", RANK / "reference2.txt"]
SRC = RANK / "source.txt"
SPACY = ["--spacy-model", SPACY_MODEL]
HUMAN = ["--human", RANK / "human.csv", "--human-ignore", "ref"]


@pytest.fixture(scope="module")
def annotator():
    import peet_fast

    return peet_fast.load("en", spacy_model=SPACY_MODEL)


def fixture_data(annotator, sources=True) -> EvalSet:
    return EvalSet(lines(SRC) if sources else None, [lines(r) for r in REFS], annotator=lambda: annotator)


def compare_summary(tmp_path, run_cli, src, hyp, refs) -> dict:
    out = tmp_path / f"compare-{Path(hyp).stem}.json"
    rc, _, err = run_cli("compare", "--src", src, "--hyp", hyp, "--ref", *refs, "--summary", out, *SPACY)
    assert rc == 0, err
    return json.loads(out.read_text("utf-8"))


# --- the registry ----------------------------------------------------------------------------------------------------

def test_registry_names_the_metrics():
    assert {"peet", "wer", "errant"} <= set(base.metric_names())
    for name in ("peet", "wer", "errant"):
        m = get_metric(name)
        assert m.name == name and m.title
    assert get_metric("errant").higher_is_better and get_metric("errant").needs_sources
    assert not get_metric("peet").higher_is_better and not get_metric("wer").higher_is_better
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        get_metric("nope")


# --- errant ----------------------------------------------------------------------------------------------------------

def test_errant_metric_equals_compare_src_on_the_rank_fixtures(annotator, tmp_path, run_cli):
    metric = get_metric("errant")
    data = fixture_data(annotator)
    hyps = [lines(p) for p in SYSTEMS]
    together = metric.system_stats(hyps, data)
    for hyp, path, stats in zip(hyps, SYSTEMS, together):
        expected = compare_summary(tmp_path, run_cli, SRC, path, REFS)
        assert stats.shape == (12, 6)
        assert stats[:, :3].sum(axis=0).tolist() == [expected["TP"], expected["FP"], expected["FN"]]
        assert metric.corpus_score(stats) == expected["F0.5"]
        # one system at a time: the same statistics as all systems in one batch
        assert np.array_equal(metric.sentence_stats(hyp, data), stats)


def test_errant_metric_by_hand(annotator, tmp_path, run_cli):
    src = ["He go to school .", "He like apples and she like pears .", "She walk to the park ."]
    hyp = ["He goes to school .", "He likes apples and she like pear .", "She walked to the park ."]
    ref0 = ["He goes to the school .", "He likes apples and she likes pears .", "She walks to the park ."]
    ref1 = ["He goes to the school .", "He likes apples and she likes pears .", "She walked to the park ."]
    metric = get_metric("errant")
    stats = metric.sentence_stats(hyp, EvalSet(src, [ref0, ref1], annotator=lambda: annotator))
    # 1: goes is right, "the" missed; 2: likes right, pear wrong, the second likes missed; 3: reference 1 is chosen
    assert stats[:, :3].tolist() == [[1, 0, 1], [1, 1, 1], [1, 0, 0]]
    # the pair best for each sentence alone (gec-metrics' sentence-level ERRANT) is the same pair here
    assert stats[:, 3:].tolist() == [[1, 0, 1], [1, 1, 1], [1, 0, 0]]
    assert metric.sentence_scores(stats).tolist() == [1.25 * 0.5 / (0.25 + 0.5), 1.25 * 0.25 / (0.125 + 0.5), 1.0]
    # TP 3, FP 1, FN 2: P 0.75, R 0.6, F0.5 = 1.25 * 0.45 / (0.1875 + 0.6)
    assert metric.corpus_score(stats) == round(1.25 * 0.75 * 0.6 / (0.25 * 0.75 + 0.6), 4) == 0.7143
    for name, text in (("src", src), ("hyp", hyp), ("ref0", ref0), ("ref1", ref1)):
        (tmp_path / f"{name}.txt").write_text("".join(t + "\n" for t in text), "utf-8")
    expected = compare_summary(tmp_path, run_cli, tmp_path / "src.txt", tmp_path / "hyp.txt",
                               [tmp_path / "ref0.txt", tmp_path / "ref1.txt"])
    assert (expected["TP"], expected["FP"], expected["FN"], expected["F0.5"]) == (3, 1, 2, 0.7143)


def test_errant_bootstrap_sums_the_resampled_counts():
    metric = get_metric("errant")
    stats = np.array([[1, 0, 1], [0, 2, 0], [3, 0, 1]], dtype=np.float64)
    idx = np.array([[0, 0, 0], [0, 1, 2], [2, 2, 1], [1, 1, 1]])
    got = metric.bootstrap(stats, idx)
    # by hand: (3, 0, 3) -> P 1, R 0.5; (4, 2, 2) -> P = R = 2/3; (6, 2, 2) -> P = R = 0.75; (0, 6, 0) -> F 0
    f = lambda p, r: round(1.25 * p * r / (0.25 * p + r), 4)    # noqa: E731
    assert got.tolist() == [f(1, 0.5), f(2 / 3, 2 / 3), 0.75, 0.0]
    assert got.tolist() == [metric.corpus_score(stats[row]) for row in idx]


# --- peet and wer ----------------------------------------------------------------------------------------------------

def test_peet_and_wer_metrics_equal_the_scoring_paths(annotator):
    from peet_fast.peet.model import load_model
    from peet_fast.peet.scoring import score_chunks, score_systems

    model = load_model()
    hyps = [lines(p) for p in SYSTEMS]
    refs = [lines(r) for r in REFS]
    data = EvalSet(None, refs, annotator=lambda: annotator, options={"model": model})
    peet = get_metric("peet")
    stats = peet.system_stats(hyps, data)
    scores = score_systems(annotator, model, [str(p) for p in SYSTEMS], hyps, refs)
    chunk = next(score_chunks(annotator, model, hyps, refs))
    for s in range(3):
        assert np.array_equal(stats[s][:, 0], chunk.seconds[s])
        assert peet.corpus_score(stats[s]) == scores[s].peet
        assert stats[s][:, peet.columns(data).index("NumWordsS")].sum() == scores[s].words
    wer = get_metric("wer")
    for s, w in enumerate(wer.system_stats(hyps, data)):
        expected = [dp_wer(h, [refs[0][i], refs[1][i]]) for i, h in enumerate(hyps[s])]
        assert (w[:, 0] / w[:, 1]).tolist() == expected
        assert wer.corpus_score(w) == math.fsum(expected) / 12


def test_peet_bootstrap_through_the_interface_equals_the_legacy_bootstrap(annotator, monkeypatch):
    """rank's PEET intervals come from Metric.bootstrap_systems over the shared index blocks: the same numbers as
    stats.bootstrap_means (the bootstrap rank always used), bit for bit, whatever the block size."""
    hyps = [lines(p) for p in SYSTEMS]
    refs = [lines(r) for r in REFS]
    data = EvalSet(None, refs, annotator=Annotators.given(annotator))
    ranking = rk.rank_systems(data, [str(p) for p in SYSTEMS], hyps, options=rk.RankOptions(700, 5))
    assert np.array_equal(ranking.boot, ms.bootstrap_means(ranking.seconds, 700, 5))
    low, high = ms.percentile_ci(ms.bootstrap_means(ranking.seconds, 700, 5))
    assert [s.ci_low for s in ranking.systems] == low.tolist()
    assert [s.ci_high for s in ranking.systems] == high.tolist()
    peet = get_metric("peet")
    stats = ranking.metrics["peet"].stats
    idx = ms.bootstrap_indices(12, 700, 5)
    for s in range(3):
        one = peet.bootstrap(stats[s], idx)
        assert np.allclose(one, ranking.boot[:, s], rtol=1e-14, atol=0)
        assert np.allclose(one, ranking.seconds[s][idx].mean(axis=1), rtol=1e-13, atol=0)
    monkeypatch.setattr(ms, "_BLOCK_CELLS", 50)                 # several blocks of resamples
    again = rk.rank_systems(data, [str(p) for p in SYSTEMS], hyps, ["peet", "wer"], rk.RankOptions(700, 5))
    assert np.array_equal(again.boot, ms.bootstrap_means(again.seconds, 700, 5))


def test_a_ranked_system_is_one_record_of_metrics(annotator):
    """PEET and WER ride in RankedSystem.metrics like every metric (issue 42, point 3): the record's fields are its
    name, file, sentences, human score and metrics; peet, wer and the per-word figures are views of them; the
    baseline WER is among them (no interval, no p-value) without being ranked, and --summary's per-system "metrics"
    lists the ranked ones only."""
    import dataclasses

    hyps = [lines(p) for p in SYSTEMS]
    refs = [lines(r) for r in REFS]
    data = EvalSet(None, refs, annotator=Annotators.given(annotator))
    ranking = rk.rank_systems(data, [str(p) for p in SYSTEMS], hyps, options=rk.RankOptions(50, 1))
    assert [f.name for f in dataclasses.fields(rk.RankedSystem)] == ["name", "file", "sentences", "human", "metrics"]
    summary = ranking.summary()
    for s, entry in zip(ranking.systems, summary["systems"]):
        k = [str(p) for p in SYSTEMS].index(s.file)
        expected = math.fsum(dp_wer(h, [refs[0][i], refs[1][i]]) for i, h in enumerate(hyps[k])) / 12
        assert s.wer == pytest.approx(expected, rel=1e-12) and entry["wer"] == s.wer
        base_score = s.metrics["wer"]
        assert math.isnan(base_score.ci_low) and math.isnan(base_score.ci_high) and base_score.p_next is None
        assert (s.peet, s.ci_low, s.ci_high, s.p_next) == tuple(s.metrics["peet"])[:4]
        assert s.seconds_per_word == s.metrics["peet"].figures["seconds_per_word"]
        assert list(entry["metrics"]) == ["peet"] and "figures" not in entry["metrics"]["peet"]
    assert ranking.own_figures
    both = rk.rank_systems(data, [str(p) for p in SYSTEMS], hyps, ["wer", "peet"], rk.RankOptions(50, 1))
    assert not both.own_figures
    assert [s.wer for s in both.systems] == sorted(s.wer for s in ranking.systems)


# --- rank --metric ---------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ranked_metrics(tmp_path_factory):
    d = tmp_path_factory.mktemp("rank-metrics")
    args = ["rank", "--hyp", *SYSTEMS, "--ref", *REFS, "--src", SRC, "--metric", "errant", "peet", "wer",
            *HUMAN, "--bootstrap", "400", "--seed", "2", "--summary", d / "s.json", *SPACY]
    rc = main([str(a) for a in args])
    assert rc == 0
    return json.loads((d / "s.json").read_text("utf-8"))


def test_rank_metrics_summary_and_correlations(ranked_metrics, tmp_path, run_cli):
    stats = pytest.importorskip("scipy.stats")
    s = ranked_metrics
    assert [m["name"] for m in s["metrics"]] == ["errant", "peet", "wer"]
    systems = s["systems"]
    assert [x["name"] for x in systems] == ["good", "middle", "weak"]        # by errant F0.5, highest first
    errant_f = [x["metrics"]["errant"]["score"] for x in systems]
    assert errant_f == sorted(errant_f, reverse=True)
    for x in systems:
        expected = compare_summary(tmp_path, run_cli, SRC, RANK / f"{x['name']}.txt", REFS)
        assert x["metrics"]["errant"]["score"] == expected["F0.5"]
        assert x["metrics"]["peet"]["score"] == x["peet"]
        assert x["metrics"]["wer"]["score"] == x["wer"]
        for m in ("errant", "peet", "wer"):
            f = x["metrics"][m]
            assert f["ci_low"] <= f["score"] <= f["ci_high"]
    # today's keys keep their meaning: ci_low / ci_high / p_next are PEET's
    assert [x["ci_low"] for x in systems] == [x["metrics"]["peet"]["ci_low"] for x in systems]
    human = [x["human"] for x in systems]
    c = s["correlation"]
    assert c["systems"] == 3 and set(c) == {"systems", "errant", "peet", "wer"}
    for m in ("errant", "peet", "wer"):
        vals = [x["metrics"][m]["score"] for x in systems]
        assert set(c[m]) == {"pearson", "spearman"}
        assert c[m]["pearson"] == pytest.approx(stats.pearsonr(vals, human)[0], abs=1e-12)
        assert c[m]["spearman"] == pytest.approx(stats.spearmanr(vals, human)[0], abs=1e-12)


def test_rank_metrics_printed_side_by_side(run_cli):
    rc, out, err = run_cli("rank", "--hyp", *SYSTEMS, "--ref", *REFS, "--src", SRC, "--metric", "wer",
                           "errant", *HUMAN, "--bootstrap", "200", *SPACY)
    assert rc == 0, err
    rows = out.splitlines()
    assert rows[0].split()[:4] == ["rank", "system", "WER", "v"] and "ERRANT F0.5 ^" in rows[0]
    assert [r.split()[1] for r in rows[1:4]] == ["good", "middle", "weak"]       # by WER, lowest first
    assert rows[4].startswith("WER vs human (3 systems): Spearman -1.000")
    assert rows[5].startswith("ERRANT F0.5 vs human (3 systems): Spearman +1.000")
    assert "PEET" not in out                                                     # not asked for: not computed


def test_default_rank_output_is_unchanged(run_cli):
    """The README's layout: `--metric peet` (the default) prints exactly what rank always printed."""
    base_args = ["rank", "--hyp", *SYSTEMS, "--ref", *REFS, "--bootstrap", "300", *HUMAN, *SPACY]
    rc, out, _ = run_cli(*base_args)
    assert rc == 0
    rc, out2, _ = run_cli(*base_args, "--metric", "peet")
    assert rc == 0 and out2 == out
    head = out.splitlines()[0]
    assert head.split() == ["rank", "system", "PEET", "(s)", "95%", "CI", "p(next)", "WER", "s/word", "mean",
                            "s/word", "human"]
    assert out.splitlines()[4].startswith("PEET vs human") and out.splitlines()[5].startswith("WER vs human")


@pytest.mark.parametrize("extra,words", [
    (["--metric", "nope"], "--metric: unknown metric 'nope'; known: "),
    (["--metric", "errant"], "--metric: the errant metric needs the source sentences: give --src"),
    (["--metric", "wer", "wer"], "--metric: metric 'wer' given twice"),
])
def test_rank_metric_refusals(tmp_path, run_cli, extra, words):
    summary = tmp_path / "s.json"
    rc, out, err = run_cli("rank", "--hyp", *SYSTEMS, "--ref", *REFS, "--summary", summary, *extra, *SPACY)
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err
    assert not summary.exists()


# --- a gold M2 as --ref ----------------------------------------------------------------------------------------------

GOLD = """S He go to school yesterday .
A 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||0
A 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||1
A 5 5|||M:OTHER|||again|||REQUIRED|||-NONE-|||1

S This are a example .
A 1 2|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||0
A 2 3|||R:DET|||an|||REQUIRED|||-NONE-|||0
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1

S I like the the music .
A 3 4|||U:DET||||||REQUIRED|||-NONE-|||1
A 4 5|||Um|||song|||REQUIRED|||-NONE-|||1
"""
# annotator 0: its edits; annotator 1: its edits (none in sentence 2: unchanged; its Um edit applied as written)
GOLD_REFS = [["He went to school yesterday .", "This is an example .", "I like the the music ."],
             ["He goes to school yesterday again .", "This are a example .", "I like the song ."]]
GOLD_HYPS = {"fixer": ["He went to school yesterday .", "This is a example .", "I like the music ."],
             "copier": ["He go to school yesterday .", "This are a example .", "I like the the music ."],
             "breaker": ["He going to school .", "This are an examples .", "I likes the the musics ."]}


def test_annotator_references_by_hand():
    blocks = parse_m2(GOLD.splitlines(), "gold.m2")
    assert annotator_references(blocks) == GOLD_REFS
    with_none = parse_m2(["S a b c", "A 1 2|||U|||-NONE-|||REQUIRED|||-NONE-|||0", "A 3 3|||M|||d e|||REQUIRED|||"
                          "-NONE-|||2"], "x.m2")
    assert annotator_references(with_none) == [["a c"], ["a b c d e"]]
    overlap = parse_m2(["", "S a b c", "A 0 2|||R|||x|||REQUIRED|||-NONE-|||0",
                        "A 1 3|||R|||y|||REQUIRED|||-NONE-|||0"], "o.m2")
    with pytest.raises(InputError) as exc:
        annotator_references(overlap, "o.m2")
    assert exc.value.path == "o.m2" and exc.value.line == 2 and "overlap" in str(exc.value)


def test_m2_detection(tmp_path):
    plain = tmp_path / "ref.txt"
    plain.write_text("Some text .\nSentence two .\n", "utf-8")
    gold = tmp_path / "gold.txt"
    gold.write_text(GOLD, "utf-8")
    blank_blocks = tmp_path / "gold2.txt"
    blank_blocks.write_text("S one two\n\nS three\n", "utf-8")
    tricky = tmp_path / "s.txt"
    tricky.write_text("S is a letter .\nSo is T .\n", "utf-8")
    assert not looks_like_m2(str(plain)) and not looks_like_m2(str(tricky))
    assert looks_like_m2(str(gold)) and looks_like_m2(str(blank_blocks)) and looks_like_m2("x/y.M2")


@pytest.fixture(scope="module")
def gold_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("gold")
    (d / "gold.m2").write_text(GOLD, "utf-8")
    (d / "gold-m2-content.txt").write_text(GOLD, "utf-8")          # detected by content
    for name, text in GOLD_HYPS.items():
        (d / f"{name}.txt").write_text("".join(t + "\n" for t in text), "utf-8")
    (d / "src.txt").write_text("".join(" ".join(b.source) + "\n" for b in parse_m2(GOLD.splitlines())), "utf-8")
    for k, ref in enumerate(GOLD_REFS):
        (d / f"ref{k}.txt").write_text("".join(t + "\n" for t in ref), "utf-8")
    return d


@pytest.mark.parametrize("gold_name", ["gold.m2", "gold-m2-content.txt"])
def test_rank_with_a_gold_m2_ref(gold_files, tmp_path, run_cli, gold_name):
    d = gold_files
    hyps = [d / f"{n}.txt" for n in GOLD_HYPS]
    summary = tmp_path / "s.json"
    rc, out, err = run_cli("rank", "--hyp", *hyps, "--ref", d / gold_name, "--metric", "errant", "wer",
                           "peet", "--summary", summary, "--bootstrap", "100", *SPACY)
    assert rc == 0, err
    s = json.loads(summary.read_text("utf-8"))
    by_name = {x["name"]: x for x in s["systems"]}
    # errant: what compare --src gives with each annotator's corrected sentences as the references
    for name in GOLD_HYPS:
        expected = compare_summary(tmp_path, run_cli, d / "src.txt", d / f"{name}.txt", [d / "ref0.txt",
                                                                                        d / "ref1.txt"])
        assert by_name[name]["metrics"]["errant"]["score"] == expected["F0.5"]
        wer = math.fsum(dp_wer(h, [GOLD_REFS[0][i], GOLD_REFS[1][i]]) for i, h in enumerate(GOLD_HYPS[name])) / 3
        assert by_name[name]["wer"] == pytest.approx(wer, rel=1e-15)
    # the same ranking from the text references and --src
    again = tmp_path / "t.json"
    rc, _, err = run_cli("rank", "--hyp", *hyps, "--ref", d / "ref0.txt", d / "ref1.txt", "--src",
                         d / "src.txt", "--metric", "errant", "wer", "peet", "--summary", again, "--bootstrap", "100",
                         *SPACY)
    assert rc == 0, err
    assert json.loads(again.read_text("utf-8"))["systems"] == s["systems"]
    assert s["systems"][0]["name"] == "fixer"
    assert by_name["copier"]["metrics"]["errant"]["score"] == 0.0            # no edits: P 1, R 0


@pytest.mark.parametrize("extra,words", [
    (["--src", "SRC"], "--src: the gold M2 "),
    (["--ref", "REF0"], "a gold M2 --ref is the only reference"),
])
def test_rank_gold_m2_refusals(gold_files, tmp_path, run_cli, extra, words):
    d = gold_files
    extra = [{"SRC": d / "src.txt", "REF0": d / "ref0.txt"}.get(e, e) for e in extra]
    refs = [d / "gold.m2", *extra[1:]] if extra[0] == "--ref" else [d / "gold.m2"]
    rest = [] if extra[0] == "--ref" else extra
    rc, out, err = run_cli("rank", "--hyp", d / "fixer.txt", "--ref", *refs, *rest, "--metric", "wer")
    assert rc == 2 and words in err and len(err.strip().splitlines()) == 1


def test_rank_gold_m2_line_count(gold_files, tmp_path, run_cli):
    short = tmp_path / "short.txt"
    short.write_text("He went to school yesterday .\n", "utf-8")
    rc, _, err = run_cli("rank", "--hyp", short, "--ref", gold_files / "gold.m2", "--metric", "wer")
    assert rc == 2 and f"{short}: has 1 line but the gold M2" in err and "3 sentence blocks" in err


# --- any registered metric flows through rank, --summary, report and compare ---------------------------------------

class Longest(Metric):
    """A made-up metric: the mean hypothesis length in words (higher is better); the base class's bootstrap."""
    name = "longest"
    title = "Words"
    label = "Length"
    fmt = ".2f"

    def sentence_stats(self, hyp, data):
        assert len(hyp) == len(data)
        return np.array([[len(h.split())] for h in hyp], dtype=np.float64)

    def corpus_score(self, stats):
        return float(stats[:, 0].mean())


@pytest.fixture
def fake_metric(monkeypatch):
    monkeypatch.setitem(base.REGISTRY, "longest", Longest)
    return Longest


def test_a_registered_metric_flows_through_rank(fake_metric, tmp_path, run_cli):
    stats_mod = pytest.importorskip("scipy.stats")
    summary = tmp_path / "s.json"
    rc, out, err = run_cli("rank", "--hyp", *SYSTEMS, "--ref", *REFS, "--metric", "longest", "wer", *HUMAN,
                           "--bootstrap", "300", "--seed", "4", "--summary", summary)
    assert rc == 0, err
    s = json.loads(summary.read_text("utf-8"))
    version = peet_fast.__version__
    assert s["metrics"] == [{"name": "longest", "title": "Words", "higher_is_better": True, "config": {},
                             "signature": f"longest|refs:text|nrefs:2|tok:given|nlp:none|version:{version}"},
                            {"name": "wer", "title": "WER", "higher_is_better": False, "config": {},
                             "signature": f"wer|refs:text|nrefs:2|tok:given|nlp:none|version:{version}"}]
    assert s["model"] is None                                   # no PEET asked for: no model, no parse
    lengths = {p.stem: [len(x.split()) for x in lines(p)] for p in SYSTEMS}
    means = {k: float(np.mean(v)) for k, v in lengths.items()}
    order = sorted(means, key=lambda k: (-means[k], k))
    assert [x["name"] for x in s["systems"]] == order
    idx = ms.bootstrap_indices(12, 300, 4)
    boots = {k: np.asarray(v, dtype=np.float64)[idx].mean(axis=1) for k, v in lengths.items()}
    for r, x in enumerate(s["systems"]):
        f = x["metrics"]["longest"]
        assert f["score"] == means[x["name"]]
        low, high = np.quantile(boots[x["name"]], [0.025, 0.975])
        assert (f["ci_low"], f["ci_high"]) == pytest.approx((low, high), abs=1e-12)
        if r + 1 < 3:       # paired, higher is better: the share of resamples where it is not strictly longer
            nxt = boots[s["systems"][r + 1]["name"]]
            assert f["p_next"] == float(np.count_nonzero(boots[x["name"]] <= nxt)) / 300
        assert x["peet"] is None and x["ci_low"] is None
    human = [x["human"] for x in s["systems"]]
    vals = [x["metrics"]["longest"]["score"] for x in s["systems"]]
    assert s["correlation"]["longest"]["pearson"] == pytest.approx(stats_mod.pearsonr(vals, human)[0], abs=1e-12)
    assert "Length vs human (3 systems)" in out and "Words ^" in out.splitlines()[0]


def test_a_metric_needing_a_gold_m2_is_refused_with_text_references(fake_metric, monkeypatch, run_cli):
    class Goldy(Longest):
        name = "goldy"
        needs_gold = True

    monkeypatch.setitem(base.REGISTRY, "goldy", Goldy)
    rc, out, err = run_cli("rank", "--hyp", *SYSTEMS, "--ref", *REFS, "--metric", "wer", "goldy")
    assert rc == 2 and out == "" and err.strip().splitlines() == [
        "peet-fast rank: error: --metric: the goldy metric needs a gold M2 as --ref"]


def test_a_registered_metric_flows_through_report(fake_metric, tmp_path, run_cli):
    pytest.importorskip("matplotlib")
    import re

    out = tmp_path / "report"
    rc, _, err = run_cli("report", "--hyp", *SYSTEMS, "--ref", *REFS, "--metric", "longest", "wer",
                         "peet", *HUMAN, "--bootstrap", "100", "--out", out, *SPACY)
    assert rc == 0, err
    page = (out / "index.html").read_text("utf-8")
    assert re.findall(r'<section id="([^"]+)">', page) == ["distribution", "contributions", "ranking", "human"]
    assert '<th colspan="3">Words</th>' in page and "<th>score</th><th>95 % CI</th><th>p (vs next)</th>" in page
    assert '<td class="l">Words</td>' in page and '<td class="l">PEET (s)</td>' in page     # correlation rows
    out2 = tmp_path / "report2"
    rc, _, err = run_cli("report", "--hyp", *SYSTEMS, "--ref", *REFS, "--metric", "longest",
                         "--bootstrap", "100", "--out", out2)
    assert rc == 0, err
    assert sorted(p.name for p in out2.iterdir()) == ["index.html", "ranking.png"]


def test_a_registered_metric_flows_through_compare_and_the_api(fake_metric, tmp_path, run_cli):
    import peet_fast

    summary = tmp_path / "c.json"
    rc, out, err = run_cli("compare", "--src", SRC, "--hyp", SYSTEMS[2], "--ref", *REFS, "--metric",
                           "longest", "--summary", summary)
    assert rc == 0, err
    expected = float(np.mean([len(x.split()) for x in lines(SYSTEMS[2])]))
    assert out == f"Words\t{expected:.2f}\n"
    assert json.loads(summary.read_text("utf-8"))["score"] == expected
    ev = peet_fast.evaluate({p.stem: lines(p) for p in SYSTEMS}, [lines(r) for r in REFS], metrics=["longest", "wer"])
    assert ev.systems["longest"].tolist() == [float(np.mean([len(x.split()) for x in lines(p)])) for p in SYSTEMS]
    assert list(ev.systems.columns) == ["system", "longest", "wer"]


def test_api_evaluate_with_a_gold_m2(annotator):
    import peet_fast

    ev = peet_fast.evaluate(GOLD_HYPS, gold=GOLD, metrics=["wer", "errant"], spacy_model=SPACY_MODEL)
    for name, hyp in GOLD_HYPS.items():
        wer = math.fsum(dp_wer(h, [GOLD_REFS[0][i], GOLD_REFS[1][i]]) for i, h in enumerate(hyp)) / 3
        assert ev.systems.set_index("system").loc[name, "wer"] == pytest.approx(wer, rel=1e-15)
    srcs = [" ".join(b.source) for b in parse_m2(GOLD.splitlines())]
    direct = get_metric("errant").system_stats(list(GOLD_HYPS.values()),
                                               EvalSet(srcs, GOLD_REFS, annotator=lambda: annotator))
    assert [get_metric("errant").corpus_score(x) for x in direct] == ev.systems["errant"].tolist()
    with pytest.raises(InputError, match="errant metric needs the source sentences"):
        peet_fast.evaluate({"a": ["x"]}, [["y"]], metrics=["errant"])


# --- gleu (issue 20, point 3) through rank ----------------------------------------------------------------------------

def gleu_printed(run_cli, src, refs, hyps) -> dict:
    """`peet-fast gleu`'s printed scores (compute_gleu's lines: file score), by file stem."""
    rc, out, err = run_cli("gleu", "-s", src, "-r", *refs, "-o", *hyps)
    assert rc == 0, err
    return {Path(line.split()[0]).stem: line.split()[1] for line in out.splitlines()}


@pytest.mark.skipif("gleu" not in base.metric_names(), reason="the gleu metric is not in this checkout")
def test_rank_gleu_equals_the_gleu_command(run_cli, tmp_path, gold_files):
    summary = tmp_path / "s.json"
    rc, out, err = run_cli("rank", "--hyp", *SYSTEMS, "--ref", *REFS, "--src", SRC, "--metric", "gleu",
                           "wer", *HUMAN, "--bootstrap", "100", "--summary", summary)
    assert rc == 0, err
    s = json.loads(summary.read_text("utf-8"))
    expected = gleu_printed(run_cli, SRC, REFS, SYSTEMS)
    assert {x["name"]: f"{x['metrics']['gleu']['score']:.6f}" for x in s["systems"]} == expected
    assert set(s["correlation"]) == {"systems", "gleu", "wer"}
    # a gold M2: the S lines as the sources and each annotator's corrected sentences as the references
    d = gold_files
    hyps = [d / f"{n}.txt" for n in GOLD_HYPS]
    rc, _, err = run_cli("rank", "--hyp", *hyps, "--ref", d / "gold.m2", "--metric", "gleu",
                         "--bootstrap", "100", "--summary", summary)
    assert rc == 0, err
    s = json.loads(summary.read_text("utf-8"))
    expected = gleu_printed(run_cli, d / "src.txt", [d / "ref0.txt", d / "ref1.txt"], hyps)
    assert {x["name"]: f"{x['metrics']['gleu']['score']:.6f}" for x in s["systems"]} == expected
