"""The report's ranking table (issue 42): one layout for PEET alone and for `--metric`, a column group per metric; its
figures are `rank --summary`'s and the Ranking's, formatted here by hand (PEET to 3 digits, WER and the per-word
figures to 4, as the PEET-only table always showed them)."""
from __future__ import annotations

import html
import json
import math
import re

import pytest

from conftest import FIXTURES, SPACY_MODEL
from peet_fast.cli import main
from peet_fast.evaluation import report as rp

pytest.importorskip("matplotlib")

RANK = FIXTURES / "rank"
INPUTS = ["--hyp", *(str(RANK / f"{n}.txt") for n in ("weak", "good", "middle")),
          "--ref", str(RANK / "reference.txt"), str(RANK / "reference2.txt"), "--human", str(RANK / "human.csv"),
          "--human-ignore", "ref", "--bootstrap", "200", "--seed", "3", "--spacy-model", SPACY_MODEL]
PEET_GROUP = [("PEET (s)", h) for h in ("score", "95 % CI", "p (vs next)", "s/word", "mean s/word")]
RANKED = ["score", "95 % CI", "p (vs next)"]


def ranking_table(page: str) -> tuple[list[tuple[str, str]], list[list[str]]]:
    """The ranking section's one table: (group, sub-header) of each column (a column spanning both header rows: (its
    header, "")) and the body's cells, unescaped."""
    section = re.search(r'<section id="ranking">(.*?)</section>', page, re.S).group(1)
    tables = re.findall(r"<thead>(.*?)</thead><tbody>(.*?)</tbody>", section, re.S)
    assert len(tables) == 1, "one table in the ranking section"
    head, body = tables[0]
    first, second = re.findall(r"<tr>(.*?)</tr>", head)
    subs = iter(html.unescape(t) for t in re.findall(r"<th[^>]*>(.*?)</th>", second))
    columns = []
    for attrs, text in re.findall(r"<th([^>]*)>(.*?)</th>", first):
        if 'rowspan="2"' in attrs:
            columns.append((html.unescape(text), ""))
        else:
            span = re.search(r'colspan="(\d+)"', attrs)
            columns += [(html.unescape(text), next(subs)) for _ in range(int(span.group(1)) if span else 1)]
    assert next(subs, None) is None
    cells = [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
             for row in re.findall(r"<tr>(.*?)</tr>", body)]
    return columns, cells


def shown(x, digits: int) -> str:
    return "–" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{x:.{digits}f}"


@pytest.fixture(scope="module")
def pages(tmp_path_factory, request):
    """rank --summary (PEET alone), and report pages of PEET alone, of --metric peet wer and of --metric wer, each
    with the Ranking its run wrote the page from."""
    d = tmp_path_factory.mktemp("report_table")
    mp = pytest.MonkeyPatch()
    request.addfinalizer(mp.undo)
    made = []
    real = rp.write_report

    def recording(out_dir, ranking, *args, **kwargs):
        made.append(ranking)
        return real(out_dir, ranking, *args, **kwargs)

    mp.setattr(rp, "write_report", recording)
    assert main(["rank", *INPUTS, "--summary", str(d / "s.json"), "--quiet"]) == 0
    out = {"summary": json.loads((d / "s.json").read_text("utf-8"))}
    for key, metric in (("peet", []), ("peet wer", ["--metric", "peet", "wer"]), ("wer", ["--metric", "wer"])):
        assert main(["report", *INPUTS, *metric, "--out", str(d / key.replace(" ", "-")), "--quiet"]) == 0
        out[key] = ((d / key.replace(" ", "-") / "index.html").read_text("utf-8"), made[-1])
    return out


def test_peet_alone_shows_peet_and_wer_as_metric_groups_with_the_summarys_figures(pages):
    page, ranking = pages["peet"]
    columns, cells = ranking_table(page)
    assert columns == [("rank", ""), ("system", ""), *PEET_GROUP, ("WER", "score"), ("human", ""), ("sentences", "")]
    systems = pages["summary"]["systems"]
    assert [s["name"] for s in systems] == ["good", "middle", "weak"]
    assert cells == [[str(k), s["name"], shown(s["peet"], 3), f"[{shown(s['ci_low'], 3)}, {shown(s['ci_high'], 3)}]",
                      shown(s["p_next"], 3), shown(s["seconds_per_word"], 4), shown(s["mean_seconds_per_word"], 4),
                      shown(s["wer"], 4), shown(s["human"], 3), str(s["sentences"])] for k, s in enumerate(systems, 1)]
    assert cells[-1][4] == "–" and cells[0][4] != "–"          # the last system has no next one
    assert [s.name for s in ranking.systems] == [s["name"] for s in systems]
    assert "<p>s/word: the system's total predicted seconds / its total MO words (whitespace-separated); mean " \
           "s/word: the mean over sentences of seconds / MO words (sentences without MO words left out).</p>" in page
    assert "<p>Ranked by " in page and "WER computed beside the ranking: no interval or p-value" in page


def test_peet_and_wer_ranked_show_the_same_figures_in_the_same_table(pages):
    alone = ranking_table(pages["peet"][0])
    page, ranking = pages["peet wer"]
    columns, cells = ranking_table(page)
    assert columns == [("rank", ""), ("system", ""), *PEET_GROUP, *(("WER", h) for h in RANKED), ("human", ""),
                       ("sentences", "")]
    shared = [columns.index(c) for c in alone[0]]          # every column of PEET alone, in its order
    assert shared == sorted(shared)
    assert [[row[j] for j in shared] for row in cells] == alone[1]
    for row, s in zip(cells, ranking.systems):             # WER ranked: its interval and p (vs next), the Ranking's
        wer = s.metrics["wer"]
        assert row[columns.index(("WER", "95 % CI"))] == f"[{shown(wer.ci_low, 4)}, {shown(wer.ci_high, 4)}]"
        assert row[columns.index(("WER", "p (vs next)"))] == shown(wer.p_next, 3)
        assert row[columns.index(("WER", "score"))] == shown(s.wer, 4)
    assert math.isfinite(ranking.systems[0].metrics["wer"].ci_low)
    assert "s/word: the system's total predicted seconds" in page and "computed beside the ranking" not in page


def test_a_metric_without_figures_has_no_per_word_columns(pages):
    page, ranking = pages["wer"]
    columns, cells = ranking_table(page)
    assert columns == [("rank", ""), ("system", ""), *(("WER", h) for h in RANKED), ("human", ""), ("sentences", "")]
    assert [row[1] for row in cells] == [s.name for s in ranking.systems]
    assert [row[2] for row in cells] == [f"{s.wer:.4f}" for s in ranking.systems]
    assert "s/word" not in page and "Ranked by WER" in page
