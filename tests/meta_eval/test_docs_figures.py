"""docs/meta-eval.md's meta-evaluation figures cannot go stale (issue 35, point 3): its tables and the figures its prose
quotes are checked here, in the default suite, against files a run wrote (tests/fixtures/meta_eval/docs_*.json,
docs_*.txt: make_docs_figures.py regenerates them) and against gec-metrics' own figures (gecm_*.json); the slow test
runs the docs' commands again and compares (regenerate: python tests/fixtures/meta_eval/make_docs_figures.py)."""
from __future__ import annotations

import importlib.util
import io
import json
import re
from pathlib import Path

import pytest

from peet_fast.metrics.base import metric_names

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "fixtures" / "meta_eval"
DOC = ROOT / "docs" / "meta-eval.md"
TOL = 1e-12


def load_make():
    spec = importlib.util.spec_from_file_location("make_docs_figures", HERE / "make_docs_figures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def doc_example(name: str) -> tuple[list[str], list[str]]:
    """(command words, expected output lines) of the docs' `peet-fast meta-eval --data NAME` example."""
    text = DOC.read_text(encoding="utf-8")
    m = re.search(r"```\n\$ (peet-fast meta-eval --data " + name + r" .*?)\n(?!\s)(.*?)```", text, re.S)
    assert m, f"no meta-eval example for {name} in {DOC}"
    command = m.group(1).replace("\\\n", " ").split()
    return command, [ln.rstrip() for ln in m.group(2).strip("\n").splitlines()]


def summary(name: str) -> dict:
    return json.loads((HERE / f"docs_{name}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["seeda", "gjg15"])
def test_docs_tables_are_the_fixture(name):
    """The docs' example is the command make_docs_figures.py runs (every registry metric) and prints its output."""
    command, expected = doc_example(name)
    assert command == load_make().command(name, "../shared/corpora")
    assert command[command.index("--metric") + 1:] == list(metric_names())       # all 11
    printed = (HERE / f"docs_{name}.txt").read_text(encoding="utf-8").rstrip("\n").splitlines()
    assert expected == [ln.rstrip() for ln in printed]


@pytest.mark.parametrize("name", ["seeda", "gjg15"])
def test_fixture_table_is_its_summary(name):
    """docs_NAME.txt is what print_tables makes of docs_NAME.json (the two files cannot drift apart)."""
    from peet_fast.cli.meta_eval import print_tables

    out = io.StringIO()
    print_tables(summary(name), out)
    assert out.getvalue() == (HERE / f"docs_{name}.txt").read_text(encoding="utf-8")


def prose_figures() -> list[tuple[str, float, str]]:
    """(the docs' text holding a figure, the figure from a fixture, its format) for every figure the prose quotes."""
    s, g = summary("seeda")["metrics"], summary("gjg15")["metrics"]
    gts = json.loads((HERE / "docs_gotoscorer.json").read_text(encoding="utf-8"))
    gecm = {k: json.loads((HERE / f"gecm_{k}.json").read_text(encoding="utf-8"))
            for k in ("GLEUOfficial_seeda_base", "GLEUOfficial_gjg15_all")}
    out = [
        ("agreement with SEEDA ({} / ", s["peet"]["sentence"]["sent"]["accuracy"], ".3f"),
        (" / {} pairwise accuracy)", s["peet"]["sentence"]["edit"]["accuracy"], ".3f"),
        ("their accuracy ({} and ", g["peet"]["sentence"]["sent"]["accuracy"], ".3f"),
        (" and {}) is again", g["wer"]["sentence"]["sent"]["accuracy"], ".3f"),
        ("EW sent Pearson: {} here", s["gleu"]["system"]["ew_sent"]["pearson"], ".4f"),
        ("here, {} `GLEUOfficial`", gecm["GLEUOfficial_seeda_base"]["system"]["ew_sent"]["pearson"], ".4f"),
        ("sentence accuracy SEEDA-S {} here", s["gleu"]["sentence"]["sent"]["accuracy"], ".4f"),
        ("here and {} `GLEUOfficial`", gecm["GLEUOfficial_seeda_base"]["sentence"]["sent"]["accuracy"], ".4f"),
        ("GJG15 EW Pearson {} here", g["gleu"]["system"]["ew"]["pearson"], ".4f"),
        ("here, {} `GLEUOfficial` on GJG15", gecm["GLEUOfficial_gjg15_all"]["system"]["ew"]["pearson"], ".4f"),
    ]
    out += [("ew_sent.pearson, 4)  # -> {}", s["errant"]["system"]["ew_sent"]["pearson"], ".4f"),
            ("edit.accuracy, 4)  # -> {}", s["errant"]["sentence"]["edit"]["accuracy"], ".4f")]
    rows = {"dataset": "every output of the dataset", "set": "the system set's own", "gec-metrics": "gec-metrics"}
    for key, title in rows.items():
        for data, cols in (("seeda base", (("system", "ew_sent", "pearson"), ("system", "ew_edit", "pearson"),
                                           ("sentence", "sent", "accuracy"))),
                           ("seeda +REF-F_GPT-3.5", (("system", "ts_sent", "pearson"),)),
                           ("gjg15 all", (("system", "ew", "spearman"),))):
            for level, h, stat in cols:
                out.append((f"| {title} | {data} | {h} {stat} | {{}} |", gts[data][key][level][h][stat],
                            ".4f" if stat == "accuracy" else "+.4f"))
    for data, fixture, gap in (("seeda", "GLEUOfficial_seeda_base", "up to {} apart on SEEDA"),
                               ("gjg15", "GLEUOfficial_gjg15_all", "{} on GJG15")):
        mine, theirs = summary(data)["metrics"]["gleu"]["system_scores"], gecm[fixture]["system_scores"]
        out.append((gap, max(abs(mine[k] - theirs[k]) for k in mine), ".1e"))
    return out


def test_prose_figures_are_the_fixtures():
    text = DOC.read_text(encoding="utf-8")
    missing = []
    for template, value, fmt in prose_figures():
        figure = format(value, fmt)
        if template.format(figure) not in text:
            missing.append(template.format(figure))
    assert not missing, "docs/meta-eval.md does not quote these (stale?):\n" + "\n".join(missing)


def test_gotoscorer_gec_metrics_figures_are_gec_metrics():
    """docs_gotoscorer.json's gec-metrics rows (what the docs quote) equal gec-metrics' own run within 1e-12."""
    gts = json.loads((HERE / "docs_gotoscorer.json").read_text(encoding="utf-8"))
    for key, fixture in (("seeda base", "seeda_base"), ("seeda +REF-F_GPT-3.5", "seeda_fluency"),
                         ("gjg15 all", "gjg15_all")):
        ref = json.loads((HERE / f"gecm_GoToScorer_{fixture}.json").read_text(encoding="utf-8"))
        mine = gts[key]["gec-metrics"]
        for h, v in ref["system"].items():
            assert mine["system"][h]["pearson"] == pytest.approx(v["pearson"], abs=TOL, rel=0)
            assert mine["system"][h]["spearman"] == pytest.approx(v["spearman"], abs=TOL, rel=0)
        for j, v in ref["sentence"].items():
            assert mine["sentence"][{"corr": "sent"}.get(j, j)]["accuracy"] == pytest.approx(v["accuracy"], abs=TOL,
                                                                                              rel=0)


def _close(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, (float, int)):
        return abs(a - b) <= TOL
    return a == b


@pytest.mark.slow
def test_regenerated_figures_equal_the_fixtures(shared_corpora, tmp_path):
    """The docs' commands run again (every registry metric on SEEDA base and GJG15, GoToScorer's three weightings)
    give the committed figures: floats within 1e-12, the printed tables exactly."""
    make = load_make()
    make.main("../shared/corpora", str(tmp_path))
    for name in ("docs_seeda", "docs_gjg15", "docs_gotoscorer"):
        fresh = json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8"))
        assert _close(fresh, json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))), name
    for name in ("docs_seeda", "docs_gjg15"):
        assert (tmp_path / f"{name}.txt").read_text() == (HERE / f"{name}.txt").read_text()


def test_python_example_plain_scores(shared_corpora):
    """The Python example's figures of plain scores (the outputs' lengths: no metric to run)."""
    from peet_fast.meta_eval.metric import data as D
    from peet_fast.meta_eval.metric.evaluator import MetaEval

    me = MetaEval(D.load("seeda", str(shared_corpora / "judgments" / "seeda"),
                         str(shared_corpora / "conll14" / "official-2014.combined.m2"), "base"))
    lengths = {name: [len(h) for h in sents] for name, sents in me.hypotheses.items()}
    text = DOC.read_text(encoding="utf-8")
    assert f"me.corr_sentence(lengths).sent.accuracy  # -> {me.corr_sentence(lengths).sent.accuracy!r}" in text
    rho = round(me.corr_system(lengths, aggregation="ew").ts_edit.spearman, 4)
    assert f'round(me.corr_system(lengths, aggregation="ew").ts_edit.spearman, 4)  # -> {rho!r}' in text
    assert "(len(me.systems), len(me.sources), len(me.hypotheses[\"BART\"]))  # -> (12, 391, 391)" in text
