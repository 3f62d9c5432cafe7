"""docs/meta-eval.md's meta-evaluation figures cannot go stale (issue 35, point 3): its tables and the figures its prose
quotes are checked here, in the default suite, against files a run wrote (tests/fixtures/meta_eval/docs_*.json,
docs_*.txt: make_docs_figures.py regenerates them) and against gec-metrics' own figures (gecm_*.json); the slow test
runs the docs' commands again and compares (regenerate: python tests/fixtures/meta_eval/make_docs_figures.py).
GMEG (every registry metric against its human corpus scores, FCE and Wiki, dev and test: docs_gmeg.{json,txt}) the
same way."""
from __future__ import annotations

import importlib.util
import io
import json
import os
import re
from pathlib import Path

import pytest

from peet_fast.metrics.base import metric_names

ROOT = Path(__file__).resolve().parents[3]
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
    make.main("../shared/corpora", str(tmp_path), "tables")
    make.main("../shared/corpora", str(tmp_path), "gotoscorer")
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


# --- GMEG: every registry metric against GMEG's human corpus scores (own data, --human CSV alone) ---------------------

GMEG_TITLES = {"fce dev": "FCE dev", "fce test": "FCE test", "wiki dev": "Wiki dev", "wiki test": "Wiki test"}


def gmeg() -> dict:
    return json.loads((HERE / "docs_gmeg.json").read_text(encoding="utf-8"))


def gmeg_doc_table() -> dict[str, list[str]]:
    """The docs' GMEG table: {first cell: the other cells}."""
    text = DOC.read_text(encoding="utf-8")
    head = "| metric | sign | " + " | ".join(f"{t} {k}" for t in GMEG_TITLES.values() for k in ("r", "rho")) + " |"
    assert text.count(head) == 1, "no GMEG table in docs/meta-eval.md"
    rows = {}
    for line in text.split(head, 1)[1].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def test_gmeg_fixture_is_every_metric_on_every_set():
    """docs_gmeg.json: the four sets GMEG ships with human scores, 7 systems each (the six and the source; the CSV's
    `ref` row left out), all 11 registry metrics, the system level only (no judgments)."""
    data = gmeg()
    assert list(data) == [f"{d} {s}" for d, s in load_make().GMEG_SETS] == list(GMEG_TITLES)
    for key, summary in data.items():
        assert summary["data"] == "own"
        assert summary["systems"] == list(load_make().GMEG_SYSTEMS)
        assert list(summary["human"]) == ["human"] and sorted(summary["human"]["human"]) == sorted(summary["systems"])
        assert list(summary["metrics"]) == list(metric_names()), key
        for name, m in summary["metrics"].items():
            assert list(m["system"]) == ["human"] and not m.get("sentence"), (key, name)


def test_gmeg_fixture_table_is_its_summary():
    """docs_gmeg.txt is what print_tables makes of the four summaries, one after the other."""
    from peet_fast.cli.meta_eval import print_tables

    out = io.StringIO()
    for summary in gmeg().values():
        print_tables(summary, out)
    assert out.getvalue() == (HERE / "docs_gmeg.txt").read_text(encoding="utf-8")


def test_gmeg_example_is_the_fixture():
    """The docs' FCE dev example is the two commands make_docs_figures.py runs, and prints the fixture's first table."""
    text = DOC.read_text(encoding="utf-8")
    m = re.search(r"```\n\$ (peet-fast m2 -orig \.\./shared/corpora/gmeg/.*?)\n(?!\s)"
                  r"\$ (peet-fast meta-eval .*?)\n(?!\s)(.*?)```", text, re.S)
    assert m, "no GMEG example in docs/meta-eval.md"
    words = [m.group(k).replace("\\\n", " ").split() for k in (1, 2)]
    assert words == load_make().gmeg_commands("fce", "dev", "../shared/corpora", "gmeg-fce-dev.m2")
    assert words[1][words[1].index("--metric") + 1:] == list(metric_names())       # all 11
    printed = (HERE / "docs_gmeg.txt").read_text(encoding="utf-8").splitlines()
    first = printed[:next(k for k in range(1, len(printed)) if printed[k].startswith("own data:"))]
    assert [ln.rstrip() for ln in m.group(3).strip("\n").splitlines()] == [ln.rstrip() for ln in first]


def test_gmeg_docs_table_is_the_fixture():
    """Every registry metric's row: its sign and Pearson, Spearman on each set, as the fixture has them."""
    rows, data = gmeg_doc_table(), gmeg()
    for name in metric_names():
        cells = rows.pop(f"`{name}`")
        first = data["fce dev"]["metrics"][name]
        assert cells[0] == ("+" if first["higher_is_better"] else "-"), name
        want = [format(data[key]["metrics"][name]["system"]["human"][stat], "+.3f")
                for key in GMEG_TITLES for stat in ("pearson", "spearman")]
        assert cells[1:] == want, name
    assert sorted(rows) == ["`rank --human` PEET", "`rank --human` WER"]


def _minus(x: float) -> str:
    return format(x, "+.3f").replace("-", "\u2212")


def test_gmeg_rank_rows_are_commands_md_rank_table():
    """The docs' `rank --human` rows are commands.md's measured `rank --human` figures (raw sign, Spearman before
    Pearson there), and meta-eval's peet and wer rows are they with the sign flipped, to the 3 decimals both print."""
    rows, data = gmeg_doc_table(), gmeg()
    commands = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    for label, name in (("`rank --human` PEET", "peet"), ("`rank --human` WER", "wer")):
        want = [_minus(-data[key]["metrics"][name]["system"]["human"][stat])
                for key in GMEG_TITLES for stat in ("pearson", "spearman")]
        assert rows[label] == ["raw", *want], label
    for key, title in GMEG_TITLES.items():
        m = re.search(r"^\| GMEG " + title + r" \| 7 \| (.*) \|$", commands, re.M)
        assert m, f"no GMEG {title} row in commands.md's rank table"
        p_s, p_p, w_s, w_p = (c.strip() for c in m.group(1).split("|"))
        got = {name: data[key]["metrics"][name]["system"]["human"] for name in ("peet", "wer")}
        assert [p_s, p_p, w_s, w_p] == [_minus(-got["peet"]["spearman"]), _minus(-got["peet"]["pearson"]),
                                        _minus(-got["wer"]["spearman"]), _minus(-got["wer"]["pearson"])], title


def test_gmeg_prose_claims_hold():
    """The paragraph under the table: on both Wiki splits every edit-based metric's Pearson is below each of peet's,
    wer's, sentm2's and senterrant's; on FCE every Pearson is above 0.8; one swapped pair of 7 moves Spearman by
    0.036."""
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    data = gmeg()
    r = {key: {n: m["system"]["human"]["pearson"] for n, m in data[key]["metrics"].items()} for key in data}
    for key in ("wiki dev", "wiki test"):
        assert max(r[key][n] for n in ("errant", "m2", "gotoscorer", "cleme", "cleme2")) < min(
            r[key][n] for n in ("peet", "wer", "sentm2", "senterrant")), key
    assert min(v for key in ("fce dev", "fce test") for v in r[key].values()) > 0.8
    assert "on FCE every metric's Pearson is above 0.8." in text
    n = 7
    assert f"moves Spearman by {6 * 2 / (n * (n * n - 1)):.3f}" in text


@pytest.mark.slow
def test_regenerated_gmeg_figures_equal_the_fixture(shared_corpora, tmp_path):
    """The GMEG commands run again on the four sets (about 100 CPU-seconds cold: run with PEET_FAST_DOCS_SLOW=1, as
    the docs' slow examples; the default suite checks the docs against the fixture) give the committed figures:
    floats within 1e-12, the printed tables exactly."""
    if os.environ.get("PEET_FAST_DOCS_SLOW") != "1":
        pytest.skip("slow: set PEET_FAST_DOCS_SLOW=1 to run it")
    if not (shared_corpora / "gmeg" / "test" / "wiki-corpus-scores.csv").is_file():
        pytest.skip("GMEG absent")
    load_make().main("../shared/corpora", str(tmp_path), "gmeg")
    fresh = json.loads((tmp_path / "docs_gmeg.json").read_text(encoding="utf-8"))
    assert _close(fresh, gmeg())
    assert (tmp_path / "docs_gmeg.txt").read_text() == (HERE / "docs_gmeg.txt").read_text()
