"""`peet-fast report --meta-eval NAME DIR`: the meta-evaluation section (meta_eval.metric.report_section) holds the
figures `peet-fast meta-eval --data NAME DIR` prints for the same metrics, its window plots, and the sign convention;
a bad dataset is one message and exit 2 with nothing written; without the option the page has no such section.

Data: SEEDA and GJG15 from the shared corpora (judgments/, conll14/official-2014.combined.m2); skipped without them.
The ranked systems are the small rank fixtures; the metrics gleu and wer (cheap, one of each direction)."""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from conftest import FIXTURES
from peet_fast.cli import main

pytest.importorskip("matplotlib")

RANK = FIXTURES / "rank"
PNG = b"\x89PNG\r\n\x1a\n"
HUMANS = {"seeda": ["ew_sent", "ew_edit", "ts_sent", "ts_edit"], "gjg15": ["ew", "ts"]}
# the page prints each correlation to 3 decimals, as meta-eval's table: at most half a unit of the last digit off
# the unrounded figure of meta-eval's --summary (and 1e-12 for the float arithmetic of that comparison)
ROUNDING = 5e-4 + 1e-12


def report_args(out: Path, *extra) -> list[str]:
    return [str(a) for a in ["report", "--hyp", RANK / "good.txt", RANK / "middle.txt", RANK / "weak.txt",
                             "--ref", RANK / "reference.txt", "--src", RANK / "source.txt", "--metric", "gleu", "wer",
                             "--human", RANK / "human.csv", "--human-ignore", "ref", "--bootstrap", "50",
                             "--quiet", "--out", out, *extra]]


def section(page: str, sid: str) -> str | None:
    m = re.search(rf'<section id="{sid}">(.*?)</section>', page, flags=re.S)
    return None if m is None else m.group(1)


def table_rows(body: str) -> dict[str, list[str]]:
    """metric -> its cells after the name (sign, then Pearson, Spearman per human ranking), from the section's
    table body."""
    tbody = re.search(r"<tbody>(.*?)</tbody>", body, flags=re.S).group(1)
    rows = {}
    for tr in re.findall(r"<tr>(.*?)</tr>", tbody, flags=re.S):
        cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, flags=re.S)]
        rows[cells[0]] = cells[1:]
    return rows


def check_table(page: str, summary: dict, humans: list[str]) -> str:
    """The page's meta-evaluation table holds the summary's system-level figures of gleu and wer (each human
    ranking's Pearson, Spearman; the sign column); returns the section's HTML."""
    assert [m for m in re.findall(r'<section id="([^"]+)">', page)] == ["ranking", "human", "meta-eval"]
    body = section(page, "meta-eval")
    rows = table_rows(body)
    assert list(summary["metrics"]["gleu"]["system"]) == humans
    assert list(rows) == ["gleu", "wer"]
    for metric, cells in rows.items():
        m = summary["metrics"][metric]
        assert cells[0] == ("+" if m["higher_is_better"] else "-")
        assert len(cells) == 1 + 2 * len(humans)
        for k, h in enumerate(humans):
            for j, key in enumerate(("pearson", "spearman")):
                assert m["system"][h][key] is not None
                assert abs(float(cells[1 + 2 * k + j]) - m["system"][h][key]) <= ROUNDING, (metric, h, key)
    assert summary["metrics"]["wer"]["higher_is_better"] is False
    return body


@pytest.mark.parametrize("name", ["seeda", "gjg15"])
def test_the_section_holds_meta_evals_figures(shared_corpora, tmp_path, capsys, name):
    root = shared_corpora / "judgments" / name
    gold = shared_corpora / "conll14" / "official-2014.combined.m2"
    summary_file = tmp_path / "summary.json"
    assert main([str(a) for a in ["meta-eval", "--data", name, root, "--gold", gold, "--metric", "gleu", "wer",
                                  "--window", "4", "--level", "system", "--summary", summary_file, "--quiet"]]) == 0
    printed = capsys.readouterr().out
    summary = json.loads(summary_file.read_text("utf-8"))

    out = tmp_path / "report"
    assert main(report_args(out, "--meta-eval", name, root, "--meta-eval-gold", gold)) == 0
    stdout = capsys.readouterr().out
    assert stdout.endswith(printed), "report prints meta-eval's tables (windows too) after its ranking"

    page = (out / "index.html").read_text("utf-8")
    humans = HUMANS[name]
    body = check_table(page, summary, humans)
    # the sign convention beside the figures: flipped here, raw in the human-score section (and said so there)
    assert "negated first" in body and "positive figure is agreement" in body
    assert "Sign: raw" in section(page, "human") and "meta-eval" in section(page, "human")
    # one window plot per human ranking, as meta-eval --plot draws it, embedded in the section
    images = re.findall(r'<img src="([^"]+)"', body)
    assert images == [f"meta-eval-window-{h}.png" for h in humans]
    for img in images:
        data = (out / img).read_bytes()
        assert data[:8] == PNG and len(data) > 10_000
    assert sorted(p.name for p in out.iterdir()) == sorted(["index.html", "ranking.png", "human.png", *images])


def test_no_section_without_the_option(tmp_path, capsys):
    out = tmp_path / "report"
    assert main(report_args(out)) == 0
    stdout = capsys.readouterr().out
    page = (out / "index.html").read_text("utf-8")
    assert re.findall(r'<section id="([^"]+)">', page) == ["ranking", "human"]
    assert "meta-eval-window" not in page and "Meta-evaluation" not in page
    assert sorted(p.name for p in out.iterdir()) == ["human.png", "index.html", "ranking.png"]
    assert "systems, " not in stdout and "window" not in stdout


def _refused(capsys, out: Path, args: list[str], flag: str) -> None:
    assert main(report_args(out, *args)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and flag in err[0], err
    assert not out.exists()


def test_a_bad_dataset_is_one_line_and_exit_2(tmp_path, capsys):
    gold = tmp_path / "gold.m2"
    gold.write_text("S a b .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n", "utf-8")
    data = tmp_path / "data"
    data.mkdir()
    out = tmp_path / "report"
    _refused(capsys, out, ["--meta-eval", "nosuch", data, "--meta-eval-gold", gold], "--meta-eval: unknown dataset")
    _refused(capsys, out, ["--meta-eval", "seeda", tmp_path / "missing", "--meta-eval-gold", gold], "missing")
    _refused(capsys, out, ["--meta-eval", "seeda", data, "--meta-eval-gold", gold], "data")   # no SEEDA files in it
    _refused(capsys, out, ["--meta-eval", "seeda", data], "--meta-eval-gold")
    _refused(capsys, out, ["--meta-eval", "seeda", data, "--meta-eval-gold", tmp_path / "nogold.m2"], "nogold.m2")
    _refused(capsys, out, ["--meta-eval", "seeda", tmp_path, "--meta-eval-gold", gold], "inside the input directory")
    _refused(capsys, out, ["--meta-eval-window", "4"], "--meta-eval-window")
    _refused(capsys, out, ["--meta-eval-gold", gold], "--meta-eval-gold")


def test_a_window_wider_than_the_dataset_is_refused(shared_corpora, tmp_path, capsys):
    gold = shared_corpora / "conll14" / "official-2014.combined.m2"
    _refused(capsys, tmp_path / "report", ["--meta-eval", "gjg15", shared_corpora / "judgments" / "gjg15",
                                           "--meta-eval-gold", gold, "--meta-eval-window", "14"],
             "--meta-eval-window")


# --- own data: the ranked outputs themselves (--meta-eval-own) ---------------------------------------------------------

def _meta_eval_summary(tmp_path: Path, capsys, *args) -> tuple[dict, str]:
    summary_file = tmp_path / "own-summary.json"
    assert main([str(a) for a in ["meta-eval", *args, "--metric", "gleu", "wer", "--level", "system",
                                  "--summary", summary_file, "--quiet"]]) == 0
    return json.loads(summary_file.read_text("utf-8")), capsys.readouterr().out


def test_own_data_from_the_human_csv(tmp_path, capsys):
    """The ranked systems meta-evaluated against report's own --human: meta-eval --outputs --human's figures, no
    windows (3 systems); the same WER correlation raw in the human section and flipped in this one."""
    summary, printed = _meta_eval_summary(
        tmp_path, capsys, "--outputs", RANK / "good.txt", RANK / "middle.txt", RANK / "weak.txt",
        "--ref", RANK / "reference.txt", "--src", RANK / "source.txt", "--human", RANK / "human.csv",
        "--human-ignore", "ref")
    out = tmp_path / "report"
    assert main(report_args(out, "--meta-eval-own")) == 0
    assert capsys.readouterr().out.endswith(printed)
    page = (out / "index.html").read_text("utf-8")
    body = check_table(page, summary, ["human"])
    assert "<img" not in body and sorted(p.name for p in out.iterdir()) == ["human.png", "index.html", "ranking.png"]
    human = section(page, "human")
    raw = re.search(r"<td[^>]*>WER</td><td>([^<]+)</td><td>([^<]+)</td>", human).groups()    # Spearman, Pearson
    flipped = table_rows(body)["wer"]
    assert float(raw[1]) < 0 < float(flipped[1]) and abs(float(raw[1]) + float(flipped[1])) <= 2 * ROUNDING


def test_own_data_from_judgments(tmp_path, capsys):
    """Human scores from an Appraise XML judging the ranked outputs (Expected Wins; no --human): meta-eval
    --outputs --judgments's figures."""
    d = tmp_path / "tiny"
    d.mkdir()
    wrong = ["she go to the school every day .", "he have a red car in the city ."]
    right = ["she goes to the school every day .", "he has a red car in the city ."]
    texts = {"src": wrong, "ref": right, "X": right, "Y": [right[0], wrong[1]], "Z": wrong}
    for name, lines in texts.items():
        (d / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    ranks = [(0, {"X": 1, "Y": 2, "Z": 3}), (1, {"X": 1, "Y": 2, "Z": 3}), (0, {"Y": 1, "X": 2, "Z": 3})]
    items = "".join(f'<ranking-item doc-id="d" id="{k}" src-id="{line}" user="u">'
                    + "".join(f'<translation rank="{r}" system="{s}"/>' for s, r in rank.items())
                    + "</ranking-item>" for k, (line, rank) in enumerate(ranks, 1))
    (d / "j.xml").write_text(f"<set>{items}</set>\n", encoding="utf-8")
    summary, printed = _meta_eval_summary(tmp_path, capsys, "--outputs", *(d / s for s in "XYZ"), "--judgments",
                                          d / "j.xml", "--src", d / "src", "--ref", d / "ref")
    out = tmp_path / "report"
    assert main([str(a) for a in ["report", "--hyp", *(d / s for s in "XYZ"), "--ref", d / "ref", "--src", d / "src",
                                  "--metric", "gleu", "wer", "--bootstrap", "20", "--quiet", "--out", out,
                                  "--meta-eval-own", "--meta-eval-judgments", d / "j.xml"]]) == 0
    assert capsys.readouterr().out.endswith(printed)
    page = (out / "index.html").read_text("utf-8")
    ew = summary["human"]["ew"]          # EW.pl's: X beat Y 2 of 3 times and Z always; Y beat X once, Z always
    assert abs(ew["X"] - 5 / 6) < 1e-12 and abs(ew["Y"] - 2 / 3) < 1e-12 and ew["Z"] == 0.0
    assert [m for m in re.findall(r'<section id="([^"]+)">', page)] == ["ranking", "meta-eval"]
    rows = table_rows(section(page, "meta-eval"))
    for metric, cells in rows.items():
        c = summary["metrics"][metric]["system"]["ew"]
        assert abs(float(cells[1]) - c["pearson"]) <= ROUNDING and abs(float(cells[2]) - c["spearman"]) <= ROUNDING


def test_own_data_refusals(tmp_path, capsys):
    out = tmp_path / "report"
    plain = [str(a) for a in ["report", "--hyp", RANK / "good.txt", RANK / "middle.txt", RANK / "weak.txt",
                              "--ref", RANK / "reference.txt", "--quiet", "--out", out]]
    for args, flag in ((["--meta-eval-own"], "--meta-eval-own: needs human scores"),
                       (["--meta-eval-judgments", RANK / "human.csv"], "--meta-eval-judgments: needs --meta-eval-own"),
                       (["--meta-eval-own", "--meta-eval-gold", RANK / "reference.txt"], "--meta-eval-gold"),
                       (["--meta-eval-own", "--meta-eval", "gjg15", tmp_path / "gjg15"], "--meta-eval-own")):
        assert main([*plain, *map(str, args)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and flag in err[0], err
        assert not out.exists()
