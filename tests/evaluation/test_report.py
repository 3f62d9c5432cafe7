"""`peet-fast report`: the HTML page and its PNG plots (one per section), written atomically."""
from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np
import pytest

from conftest import FIXTURES, SPACY_MODEL
from peet_fast.evaluation import rank as rk
from peet_fast.evaluation import report as rp
from peet_fast.cli import main
from peet_fast.en.features import feature_names
from peet_fast.io import InputError
from peet_fast.peet.model import load_model
from peet_fast.peet.metric import PEET

pytest.importorskip("matplotlib")

RANK = FIXTURES / "rank"
PNG = b"\x89PNG\r\n\x1a\n"


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG and data[12:16] == b"IHDR", f"{path.name} is not a PNG"
    return struct.unpack(">II", data[16:24])


def sections(page: str) -> list[tuple[str, list[str]]]:
    """(section id, image sources) for each <section> of the page."""
    return [(m.group(1), re.findall(r'<img src="([^"]+)"', m.group(2)))
            for m in re.finditer(r'<section id="([^"]+)">(.*?)</section>', page, flags=re.S)]


def check_page(out: Path, expected_sections: list[str]) -> None:
    page = (out / "index.html").read_text("utf-8")
    found = sections(page)
    assert [sid for sid, _ in found] == expected_sections
    for sid, imgs in found:
        assert imgs == [f"{sid}.png"], f"section {sid} must hold exactly one plot"
        img = out / imgs[0]
        w, h = png_size(img)
        assert w >= 400 and h >= 200
        assert img.stat().st_size > 10_000, f"{img.name} is suspiciously small"
    assert sorted(p.name for p in out.iterdir()) == sorted(["index.html", *(f"{s}.png" for s in expected_sections)])


def synthetic_ranking(human: dict | None, n_systems: int = 4, n: int = 300):
    """A Ranking from made-up features (seconds = the published model's prediction from them)."""
    model = load_model()
    rng = np.random.default_rng(0)
    feats = {k: rng.integers(0, 6, size=(n_systems, n)).astype(np.int32) for k in feature_names("small")}
    seconds = model.predict({k: v.reshape(-1) for k, v in feats.items()}).reshape(n_systems, n)
    names = [f"sys-{k}" for k in range(n_systems)]
    ref_words = rng.integers(1, 30, size=(n_systems, n)).astype(np.float64)
    wer = np.stack([rng.integers(0, 15, size=(n_systems, n)), ref_words], axis=2)     # (edits, reference words)
    stats = [np.concatenate([seconds[k][:, None], *(feats[f][k][:, None] for f in feats)], axis=1)
             for k in range(n_systems)]
    arrays = {"peet": {"seconds": seconds, **feats}}
    figures = {"peet": [PEET(model).system_figures(st, None) for st in stats]}
    ranking = rk.assemble_metrics([(nm, nm + ".txt") for nm in names], [PEET(model)],
                                  {"peet": stats, "wer": list(wer)}, rk.RankOptions(200, 1, human), figures, arrays)
    return ranking, model


@pytest.mark.parametrize("with_human", [True, False])
def test_report_page_and_images(tmp_path, with_human):
    human = {"sys-0": 3.0, "sys-1": 1.0, "sys-2": 2.0, "sys-3": 5.0} if with_human else None
    ranking, model = synthetic_ranking(human)
    out = tmp_path / "report"
    images = rp.write_report(str(out), ranking, model, title="A <test> & report", human_file="h.csv")
    expected = ["distribution", "contributions", "ranking"] + (["human"] if with_human else [])
    assert images == [f"{s}.png" for s in expected]
    check_page(out, expected)
    page = (out / "index.html").read_text("utf-8")
    assert "<title>A &lt;test&gt; &amp; report</title>" in page
    for s in ranking.systems:
        assert s.name in page
    assert [p for p in tmp_path.iterdir() if p.name != "report"] == []          # no temporary directory left


def test_contributions_sum_to_peet():
    ranking, model = synthetic_ranking(None)
    terms, contrib = rp.contributions(ranking, model)
    assert terms == ["intercept", *model.features]
    assert np.allclose(contrib.sum(axis=1), [s.peet for s in ranking.systems], rtol=1e-12)
    # by hand: the R term of a system is the R coefficient times its mean R count
    r = model.features.index("R")
    assert contrib[0, 1 + r] == pytest.approx(model.coefficients[r] * ranking.features["R"][0].mean())


def test_an_earlier_report_is_replaced_and_other_directories_refused(tmp_path):
    ranking, model = synthetic_ranking(None)
    out = tmp_path / "report"
    rp.write_report(str(out), ranking, model)
    (out / "stale.png").write_bytes(PNG)              # an earlier report with an extra plot: replaced wholesale
    rp.write_report(str(out), ranking, model)
    assert not (out / "stale.png").exists()
    check_page(out, ["distribution", "contributions", "ranking"])
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine", "utf-8")
    with pytest.raises(InputError, match="not empty"):
        rp.write_report(str(other), ranking, model)
    assert [p.name for p in other.iterdir()] == ["notes.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    rp.write_report(str(empty), ranking, model)
    check_page(empty, ["distribution", "contributions", "ranking"])


def test_a_failure_leaves_nothing(tmp_path, monkeypatch):
    ranking, model = synthetic_ranking(None)

    def boom(*args):
        raise RuntimeError("plotting failed")

    monkeypatch.setattr(rp, "_plot_ranking", boom)
    with pytest.raises(RuntimeError):
        rp.write_report(str(tmp_path / "report"), ranking, model)
    assert list(tmp_path.iterdir()) == []


def test_report_command(tmp_path, capsys):
    out = tmp_path / "rep"
    systems = [RANK / "good.txt", RANK / "middle.txt", RANK / "weak.txt"]
    common = ["report", "--hyp", *systems, "--ref", RANK / "reference.txt", RANK / "reference2.txt",
              "--human", RANK / "human.csv", "--bootstrap", "200", "--spacy-model", SPACY_MODEL]
    assert main([str(a) for a in [*common, "--human-ignore", "ref", "--out", out]]) == 0
    check_page(out, ["distribution", "contributions", "ranking", "human"])
    assert "PEET vs human (3 systems)" in capsys.readouterr().out
    # bad input: an unknown system in --human; nothing written
    bad = tmp_path / "bad"
    assert main([str(a) for a in [*common, "--out", bad]]) == 2
    assert "unknown system 'ref'" in capsys.readouterr().err
    assert not bad.exists()
    # --out a file
    f = tmp_path / "file.html"
    f.write_text("x", "utf-8")
    assert main(["report", "--hyp", str(systems[0]), "--ref", str(RANK / "reference.txt"), "--out", str(f)]) == 2
    assert "must be a directory" in capsys.readouterr().err
