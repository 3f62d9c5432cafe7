"""-tok / --tokenize on the commands that read English text (issue 13, item 2): raw text is tokenised by spaCy exactly
as errant_parallel -tok tokenises it, and the features (and so the seconds) are those errant's own -tok edits imply.
The oracle is errant itself: ``annotator.parse(line.strip(), tokenise=True)`` and ``annotator.annotate``."""
from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import SPACY_MODEL

from peet_fast.cli import main
from peet_fast.en.features import ERROR_TYPES, IGNORED_LABELS
from peet_fast.peet.model import load_model

SPACY = ["--spacy-model", SPACY_MODEL]
MO = ["He go to school yesterday, and he like it.", "I has two cat's.", "  What a day!  ", "Nothing to change here.",
      "She don't know, does she?", "We was late; the bus, however, was later.", "", "It's fine."]
TRG = ["He went to school yesterday, and he liked it.", "I have two cats.", "What a day!", "Nothing to change here.",
       "She doesn't know, does she?", "We were late; the bus, however, was later.", "Hello.", "It is fine."]


def run_cli(capsys, *args):
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def errant_features(oracle, mo: str, trg: str, feature_set: str = "medium") -> dict:
    """The small or medium feature set by its definitions (peet_fast.en.features) from errant's -tok edits of one
    pair."""
    orig, cor = oracle.parse(mo.strip(), tokenise=True), oracle.parse(trg.strip(), tokenise=True)
    row = {t: 0 for t in (ERROR_TYPES if feature_set == "medium" else ("R", "M", "U"))}
    edited = 0
    for e in oracle.annotate(orig, cor):
        if e.type in IGNORED_LABELS:
            continue
        w = max(e.o_end - e.o_start, 1)
        edited += w
        row[e.type[2:] if feature_set == "medium" else e.type[0]] += w
    row.update(NONE=int(edited == 0), NumWordsS=len(orig), NumWordsT=len(cor), NumEditedWords=edited)
    return row


@pytest.fixture()
def raw(tmp_path):
    mo, trg = tmp_path / "mo.txt", tmp_path / "trg.txt"
    mo.write_text("\n".join(MO) + "\n")
    trg.write_text("\n".join(TRG) + "\n")
    return mo, trg


def test_featurize_tok_matches_errants_tok_edits(capsys, tmp_path, raw, oracle):
    out = tmp_path / "f.parquet"
    rc, _, err = run_cli(capsys, "featurize", "--mo", raw[0], "--trg", raw[1], "--features", "medium", "--out", out,
                         "-tok", *SPACY)
    assert rc == 0 and "untokenised" not in err
    table = pq.read_table(out).to_pylist()
    for k, (m, t) in enumerate(zip(MO, TRG)):
        expected = errant_features(oracle, m, t)
        assert {name: table[k][name] for name in expected} == expected, (k, m, t)


def test_score_tok_gives_the_seconds_errants_tok_edits_imply(capsys, tmp_path, raw, oracle):
    model = load_model()
    rows = [errant_features(oracle, m, t, model.feature_set) for m, t in zip(MO, TRG)]
    cols = {name: np.array([r[name] for r in rows], dtype=np.int32) for name in model.features}
    expected = model.predict(cols)
    out = tmp_path / "job"
    summary = tmp_path / "s.json"
    rc, _, err = run_cli(capsys, "score", "--hyp", raw[0], "--ref", raw[1], "--out", out, "--summary", summary,
                         "--tokenize", *SPACY)
    assert rc == 0, err
    got = pq.read_table(out).sort_by("sentence").column("seconds").to_numpy()
    assert np.allclose(got, expected, rtol=0, atol=1e-9)
    assert json.loads(summary.read_text())["systems"][0]["peet"] == pytest.approx(expected.mean(), abs=1e-9)


def test_without_tok_raw_text_gets_one_warning(capsys, tmp_path, raw):
    rc, _, err = run_cli(capsys, "score", "--hyp", raw[0], "--ref", raw[1], *SPACY)
    assert rc == 0
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "looks untokenised" in warnings[0] and "-tok" in warnings[0]
    assert str(raw[0]) in warnings[0]


def test_pretokenised_text_gets_no_warning(capsys, tmp_path):
    mo, trg = tmp_path / "mo.txt", tmp_path / "trg.txt"
    mo.write_text("He go home , then he sleep .\nI has a cat .\n")
    trg.write_text("He went home , then he slept .\nI have a cat .\n")
    rc, _, err = run_cli(capsys, "score", "--hyp", mo, "--ref", trg, *SPACY)
    assert rc == 0 and "warning" not in err


def test_pairs_table_tok_sharded_equals_text_file(capsys, tmp_path, raw):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("mo\ttrg\n" + "".join(f"{m}\t{t}\n" for m, t in zip(MO, TRG)))
    file_out, job = tmp_path / "f.parquet", tmp_path / "job"
    assert run_cli(capsys, "featurize", "--mo", raw[0], "--trg", raw[1], "--out", file_out, "-tok", *SPACY)[0] == 0
    rc, _, err = run_cli(capsys, "featurize", "--pairs", pairs, "--out", job, "--shard-rows", 3, "-tok", *SPACY)
    assert rc == 0 and "untokenised" not in err
    a = pq.read_table(file_out)
    b = pq.read_table(job).sort_by("sentence").select(a.column_names)
    assert a.cast(b.schema).equals(b) or a.to_pylist() == b.to_pylist()
    rc, _, err = run_cli(capsys, "featurize", "--pairs", pairs, "--out", tmp_path / "job2", *SPACY)
    assert rc == 0 and "looks untokenised" in err


def test_tok_is_part_of_a_jobs_settings(capsys, tmp_path, raw):
    job = tmp_path / "job"
    assert run_cli(capsys, "featurize", "--mo", raw[0], "--trg", raw[1], "--out", job, *SPACY)[0] == 0
    rc, _, err = run_cli(capsys, "featurize", "--mo", raw[0], "--trg", raw[1], "--out", job, "-tok", *SPACY)
    assert rc == 2 and str(job) in err


def test_compare_src_tok_equals_m2_tok_files(capsys, tmp_path, raw):
    hyp_m2, ref_m2 = tmp_path / "h.m2", tmp_path / "r.m2"
    assert run_cli(capsys, "m2", "-orig", raw[0], "-cor", raw[0], "-out", hyp_m2, "-tok", *SPACY)[0] == 0
    assert run_cli(capsys, "m2", "-orig", raw[0], "-cor", raw[1], "-out", ref_m2, "-tok", *SPACY)[0] == 0
    rc, expected, _ = run_cli(capsys, "compare", "-hyp", hyp_m2, "-ref", ref_m2)
    assert rc == 0
    rc, out, err = run_cli(capsys, "compare", "--src", raw[0], "--hyp", raw[0], "--ref", raw[1], "-tok", *SPACY)
    assert (rc, out) == (0, expected) and "warning" not in err


def test_rank_and_train_take_tok(capsys, tmp_path, raw):
    rc, out, err = run_cli(capsys, "rank", "--hyp", raw[0], "--ref", raw[1], "--bootstrap", 5, "-tok", *SPACY)
    assert rc == 0 and "warning" not in err
    data = tmp_path / "d.parquet"
    pq.write_table(pa.table({"mo": MO * 8, "trg": TRG * 8, "time": [float(5 + k) for k in range(64)]}), data)
    rc, _, err = run_cli(capsys, "train", "--data", data, "--out", tmp_path / "m.json", "--features", "small",
                         "-tok", *SPACY)
    assert rc == 0 and "warning" not in err, err
