"""The report's error-analysis section (`report --by-type`, issue 44, points 2 and 3), read from the page's HTML and
its data: the heatmap's figures, the sentence browser's edits against rank --summary's per-type figures, the cap and
its note, self-containment. tests/evaluation/test_report_browser.py drives the same page in a real browser."""
from __future__ import annotations

import json
import re

import pytest
from conftest import FIXTURES

from peet_fast.cli import main

RANK = FIXTURES / "rank"
INPUTS = ["--hyp", *(str(RANK / f"{n}.txt") for n in ("good", "middle", "weak")),
          "--ref", str(RANK / "reference.txt"), str(RANK / "reference2.txt"), "--src", str(RANK / "source.txt")]


def page_data(path) -> dict:
    text = path.read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="bt-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    d = tmp_path_factory.mktemp("report_by_type")
    assert main(["rank", *INPUTS, "--by-type", "3", "--summary", str(d / "s.json")]) == 0
    assert main(["report", *INPUTS, "--by-type", "3", "--out", str(d / "rep")]) == 0
    return d, json.loads((d / "s.json").read_text())["by_type"]


def test_the_page_carries_the_summary_figures(made):
    d, summary = made
    data = page_data(d / "rep" / "index.html")
    assert data["systems"] == [s["name"] for s in summary["systems"]] == ["good", "middle", "weak"]
    for si, s in enumerate(summary["systems"]):
        for ti, t in enumerate(data["types"]):
            cell = data["cells"][si][ti]
            row = s["types"].get(t)
            assert (cell is None) == (row is None)
            if row is not None:
                assert (cell["TP"], cell["FP"], cell["FN"], cell["F"]) == (row["TP"], row["FP"], row["FN"],
                                                                          row["F0.5"])


def test_browser_edits_add_up_to_each_systems_totals(made):
    """Every sentence's marked edits of a system, counted as the scorer counts them (TP and FN on the chosen
    reference's side, FP on the system's), sum to its TP / FP / FN in rank --summary."""
    d, summary = made
    data = page_data(d / "rep" / "index.html")
    assert len(data["sentences"]) == data["total"] == 12
    for si, s in enumerate(summary["systems"]):
        tp = sum(e[4] == 0 for sent in data["sentences"] for e in sent["o"][si][3])
        fn = sum(e[4] == 2 for sent in data["sentences"] for e in sent["o"][si][3])
        fp = sum(e[4] == 1 for sent in data["sentences"] for e in sent["o"][si][2])
        assert (tp, fp, fn) == (s["TP"], s["FP"], s["FN"])


def test_the_page_is_self_contained(made):
    d, _ = made
    text = (d / "rep" / "index.html").read_text(encoding="utf-8")
    assert not re.search(r'(src|href)\s*=\s*"(https?:)?//', text)
    assert "<script>" in text and 'id="by-type"' in text
    assert sorted(p.name for p in (d / "rep").iterdir()) == ["contributions.png", "distribution.png", "index.html",
                                                              "ranking.png"]


def test_a_capped_browser_says_so(tmp_path, capsys):
    assert main(["report", *INPUTS, "--metric", "wer", "--by-type", "2", "--by-type-sentences", "5",
                 "--out", str(tmp_path / "rep")]) == 0
    text = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    assert "Capped: the first 5 of 12 sentences are in the browser" in text
    data = page_data(tmp_path / "rep" / "index.html")
    assert len(data["sentences"]) == 5 and data["level"] == 2
    assert all(o[1] is None for sent in data["sentences"] for o in sent["o"])   # no PEET ranked: no seconds
    assert "per type (compare -cat 2" in capsys.readouterr().out


@pytest.mark.parametrize("extra, message", [
    (["--by-type-sentences", "5"], "--by-type-sentences: needs --by-type"),
    (["--by-type", "3", "--by-type-sentences", "0"], "--by-type-sentences: must be at least 1"),
])
def test_bad_sentence_caps_are_refused(tmp_path, capsys, extra, message):
    assert main(["report", *INPUTS, "--metric", "wer", *extra, "--out", str(tmp_path / "rep")]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(message)
    assert not (tmp_path / "rep").exists()


def test_the_script_and_style_ship_with_the_package():
    """The section's script and style are package data: pyproject.toml's patterns match every asset file."""
    import fnmatch
    import tomllib
    from pathlib import Path

    root = Path(__file__).parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["peet_fast"]
    assets = sorted(p.relative_to(root / "peet_fast").as_posix()
                    for p in (root / "peet_fast" / "evaluation" / "assets").iterdir())
    assert assets == ["evaluation/assets/by_type.css", "evaluation/assets/by_type.js"]
    assert all(any(fnmatch.fnmatch(a, pat) for pat in patterns) for a in assets)
