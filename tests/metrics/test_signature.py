"""Issue 42: a typed Config per metric (its fields, defaults and bounds, checked once; the command line's
NAME:FIELD=VALUE, the API's keywords) and a signature per metric figure (every Config field, the references, the
tokenisation, the pipeline, peet-fast's version; nothing volatile)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from peet_fast import __version__
from peet_fast.io import InputError
from peet_fast.languages import Annotators
from peet_fast.metrics.base import EvalSet, get_metric, metric_class, metric_from_spec, metric_names
from peet_fast.metrics.config import kind_of, spec_parts
from peet_fast.metrics.signature import pipeline

RANK = Path(__file__).resolve().parents[1] / "fixtures" / "rank"


def _lines(name: str) -> list[str]:
    return (RANK / name).read_text(encoding="utf-8").splitlines()


def _other(f, tmp_path):
    """A valid value of field f other than its default."""
    kind, default, meta = kind_of(f), f.default, f.metadata
    if meta.get("choices"):
        return next(c for c in meta["choices"] if c != default)
    if kind == "bool":
        return not default
    if kind in ("int", "float"):
        return (meta.get("low") or 0) + 1 if default is None else default + 1
    if kind == "floats":
        return (0.4, 0.4, 0.1, 0.1)
    if kind == "strs":
        return ("M:DET",)
    path = tmp_path / "weights.txt"
    path.write_text("1 2 3\n", encoding="utf-8")
    return str(path) if kind == "path" else (str(path),)


FIELDS = [(name, f.name) for name in metric_names() for f in fields(metric_class(name).Config)]
DATA = EvalSet(["a b ."], [["a c ."]])


def test_every_metric_has_a_config_and_the_fields_reach_the_metric():
    assert len(FIELDS) >= 30          # errant 7, gleu 2, m2 3, sentm2 3, senterrant 1, gotoscorer 6, green 3, ...
    for name in metric_names():
        metric = get_metric(name)
        assert metric.settings == metric_class(name).Config()       # the defaults, read back
        for f in fields(metric.Config):
            if hasattr(metric, f.name) and f.name != "filt":
                assert getattr(metric, f.name) == getattr(metric.settings, f.name), (name, f.name)


@pytest.mark.parametrize("name,field", FIELDS)
def test_changing_one_field_changes_the_signature(name, field, tmp_path):
    f = next(x for x in fields(metric_class(name).Config) if x.name == field)
    value = _other(f, tmp_path)
    base = get_metric(name).signature(DATA)
    changed = get_metric(name, **{field: value})
    assert getattr(changed.settings, field) == (tuple(value) if isinstance(value, list) else value)
    sig = changed.signature(DATA)
    assert sig != base
    assert sig.count("|") == base.count("|")              # one field changed, none added
    assert f"|{field}:" in sig and str(tmp_path) not in sig       # a file by its bytes, never by its name


def test_the_signature_fields_hand_checked():
    sig = get_metric("m2", beta=1).signature(refs="m2", nrefs=2)
    assert sig == f"m2|beta:1|max_unchanged_words:2|ignore_whitespace_casing:no|refs:m2|nrefs:2|tok:given|nlp:none|" \
                  f"version:{__version__}"
    assert get_metric("wer").signature(DATA) == f"wer|refs:text|nrefs:1|tok:given|nlp:none|version:{__version__}"
    parsed = get_metric("errant").signature(EvalSet(["a"], [["a"]], annotator=Annotators("en", {"tokenise": True})))
    assert "|tok:spacy|nlp:" in parsed and "nlp:none" not in parsed
    assert parsed.split("|nlp:")[1].split("|")[0] == pipeline("en")
    assert "|nlp:cherrant|" in get_metric("cleme").signature(refs="text", nrefs=1, annotators=Annotators("zh"))
    assert "|nlp:none|" in get_metric("errant").signature(refs="m2", nrefs=1)        # edits given: nothing parsed


def test_a_file_is_signed_by_its_bytes_not_its_name(tmp_path):
    a = tmp_path / "a.txt"
    a.write_text("0.5 1\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    b = tmp_path / "sub" / "b.txt"
    shutil.copy(a, b)
    sig_a = get_metric("gotoscorer", weight_file=str(a)).signature(DATA)
    assert sig_a == get_metric("gotoscorer", weight_file=str(b)).signature(DATA)
    b.write_text("0.5 2\n", encoding="utf-8")
    assert sig_a != get_metric("gotoscorer", weight_file=str(b)).signature(DATA)


@pytest.mark.parametrize("spec", ["gleu:n=3:iterations=50", "green:unit=char:beta=1", "wer", "green:n=2"])
def test_the_same_signature_gives_the_same_figures(spec):
    src, ref = _lines("source.txt"), _lines("reference.txt")
    hyps = [_lines(f) for f in ("good.txt", "middle.txt", "weak.txt")]
    runs = []
    for _ in range(2):
        data = EvalSet(src, [ref])
        made = metric_from_spec(spec)
        metric = get_metric(made) if isinstance(made, str) else made
        runs.append((metric.signature(data), [metric.corpus_score(s) for s in metric.system_stats(hyps, data)]))
    assert runs[0] == runs[1]


def test_spec_and_keywords_are_one_vocabulary():
    made = metric_from_spec("m2:beta=1:max_unchanged_words=3:ignore_whitespace_casing=yes")
    assert made.settings == get_metric("m2", beta=1.0, max_unchanged_words=3, ignore_whitespace_casing=True).settings
    assert made.title == "M2 F1"
    assert metric_from_spec("m2") == "m2"                     # a bare name stays a name
    assert metric_from_spec("errant:filt=M:DET,R:SPELL:beta=1").settings.filt == ("M:DET", "R:SPELL")
    assert spec_parts("cleme2:factors=0.4,0.4,0.1,0.1") == ("cleme2", {"factors": "0.4,0.4,0.1,0.1"})
    assert metric_from_spec("cleme2:factors=0.4,0.4,0.1,0.1").factors == (0.4, 0.4, 0.1, 0.1)
    assert metric_from_spec("gotoscorer:convention=gec-metrics").convention == "gec-metrics"
    # the flags' values (dest -> value, Metric.config) set the fields; the spec's win
    assert metric_from_spec("cleme:beta=2", {"beta": 1.0, "cleme_mode": "independent"}).settings.values() == \
        {"mode": "independent", "weighted": False, "beta": 2.0, "merge_distance": 0}


@pytest.mark.parametrize("call,message", [
    (lambda: get_metric("m2", beta=-1), "beta: the F-measure's beta must be a finite number of at least 0, not -1"),
    (lambda: get_metric("gleu", iterations=0), "iterations: the number of iterations must be an integer of at least "
                                               "1, not 0"),
    (lambda: get_metric("gleu", iterations=2_000_000), "iterations: the number of iterations must be an integer of "
                                                       "at most 1,000,000, not 2000000"),
    (lambda: get_metric("gleu", n=2.5), "n: the n-gram order must be an integer of at least 1, not 2.5"),
    (lambda: get_metric("green", unit="byte"), "unit: must be 'word' or 'char', not 'byte'"),
    (lambda: get_metric("errant", cat=4), "cat: must be one of 1, 2, 3, not 4"),
    (lambda: get_metric("errant", single="yes"), "single: must be true or false, not 'yes'"),
    (lambda: get_metric("m2", bta=1), "bta: the m2 metric has no option 'bta'; its options: beta, "
                                      "max_unchanged_words, ignore_whitespace_casing"),
    (lambda: metric_from_spec("m2:beta=x"), "m2:beta: the F-measure's beta must be a number, not 'x'"),
    (lambda: metric_from_spec("m2:beta"), "m2:beta: is not FIELD=VALUE"),
    (lambda: metric_from_spec("wer:x=1"), "wer:x: the wer metric has no option 'x'; it has no options"),
    (lambda: metric_from_spec("cleme:weighted=maybe"), "cleme:weighted: must be true or false, not 'maybe'"),
])
def test_a_bad_field_is_refused_naming_it(call, message):
    with pytest.raises(InputError) as caught:
        call()
    assert str(caught.value).startswith(message)


def _cli(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "peet_fast.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "PEET_FAST_QUIET": "1"})


def test_rank_takes_specs_and_records_config_and_signature(tmp_path):
    out = tmp_path / "s.json"
    res = _cli("rank", "--hyp", *(str(RANK / f) for f in ("good.txt", "middle.txt", "weak.txt")),
               "--ref", str(RANK / "reference.txt"), "--src", str(RANK / "source.txt"),
               "--metric", "green:unit=char", "gleu:iterations=20", "--bootstrap", "10", "--summary", str(out))
    assert res.returncode == 0, res.stderr
    metrics = json.loads(out.read_text())["metrics"]
    assert [m["config"] for m in metrics] == [{"n": 4, "beta": 2.0, "unit": "char"}, {"n": 4, "iterations": 20}]
    signatures = [line[len("signature: "):] for line in res.stderr.splitlines() if line.startswith("signature: ")]
    assert signatures == [m["signature"] for m in metrics]
    assert signatures[0].startswith("green|n:4|beta:2|unit:char|refs:text|nrefs:1|tok:given|nlp:none|")
    assert "GREEN F2 (char)" in res.stdout
    bad = _cli("rank", "--hyp", str(RANK / "good.txt"), "--ref", str(RANK / "reference.txt"), "--metric",
               "green:unit=byte")
    assert bad.returncode == 2 and bad.stderr.strip().endswith(
        "error: --metric green:unit: must be 'word' or 'char', not 'byte'")


def test_the_old_flags_and_the_spec_sign_alike():
    old = _cli("gleu", "-s", str(RANK / "source.txt"), "-r", str(RANK / "reference.txt"), "-o", str(RANK / "good.txt"),
               "-n", "3", "--iter", "50")
    assert old.returncode == 0, old.stderr
    signed = [ln for ln in old.stderr.splitlines() if ln.startswith("signature: ")]
    assert signed == [f"signature: {get_metric('gleu', n=3, iterations=50).signature(refs='text', nrefs=1)}"]


def test_version_prints_what_it_signs_with():
    res = _cli("--version")
    assert res.returncode == 0
    assert res.stdout.strip() == f"peet-fast {__version__} (nlp: {pipeline('en')}; signatures: docs/metrics.md)"


def test_a_jobs_part_files_carry_its_signature(tmp_path):
    import pyarrow.parquet as pq

    from peet_fast.metrics.signature import job_signature

    sample = RANK.parent / "sample"
    res = _cli("featurize", "--mo", str(sample / "system_a.txt"), "--trg", str(sample / "reference.txt"),
               "--out", str(tmp_path / "job"), "--workers", "1", "--quiet")
    assert res.returncode == 0, res.stderr
    signed = pq.read_table(tmp_path / "job").schema.metadata[b"peet_fast.signature"].decode()
    assert signed == job_signature("featurize", "small", None, 0, None, False)
    assert signed == f"features|feature_set:small|tok:given|nlp:{pipeline('en')}|version:{__version__}"


def test_the_report_page_shows_the_signatures(tmp_path):
    import html

    res = _cli("report", "--hyp", *(str(RANK / f) for f in ("good.txt", "middle.txt", "weak.txt")),
               "--ref", str(RANK / "reference.txt"), "--src", str(RANK / "source.txt"), "--metric", "gleu:n=2", "wer",
               "--bootstrap", "10", "--out", str(tmp_path / "report"))
    assert res.returncode == 0, res.stderr
    page = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    for line in res.stderr.splitlines():
        if line.startswith("signature: "):
            assert f"<code>{html.escape(line[len('signature: '):])}</code>" in page
    assert "gleu|n:2|iterations:500|refs:text|nrefs:1|" in page
