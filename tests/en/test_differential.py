"""Differential tests: peet_fast must produce exactly errant's edits (spans, strings and types, in order).

Expected edits come from errant run as its own tools run it (see conftest.py); each sentence is parsed once by errant and
the parsed Docs are reused for every (lev, merge) configuration, which is what errant would do given the same input."""
from __future__ import annotations

from pathlib import Path

import pytest

from peet_fast import Annotator

FIXTURES = Path(__file__).parents[1] / "fixtures"
EN_PAIRS = FIXTURES / "en_pairs.tsv"
TOK_PAIRS = FIXTURES / "tok_pairs.tsv"

MERGES = ("rules", "all-split", "all-merge", "all-equal")
CONFIGS = [(m, False) for m in MERGES] + [(m, True) for m in MERGES]
CONFIG_IDS = [f"{m}{'-lev' if lev else ''}" for m, lev in CONFIGS]


def _oracle_config(oracle, docs, lev, merge, edit_tuples):
    return [edit_tuples(oracle.annotate(od, cd, lev, merge)) for od, cd in docs]


def _mismatches(pairs, expected, got):
    """pairs: [(where, orig, cor)] -> [(where, orig, cor, expected, got)] for the pairs that differ."""
    assert len(expected) == len(got) == len(pairs)
    return [(w, o, c, e, g) for (w, o, c), e, g in zip(pairs, expected, got) if e != g]


# --- the fixture corpus ----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def en_pairs(fixture_checker):
    return [(f"en_pairs.tsv:{n}", o, c) for n, o, c in fixture_checker.read_pairs(str(EN_PAIRS))]


@pytest.fixture(scope="module")
def en_docs(oracle, en_pairs):
    return [(oracle.parse(o, False), oracle.parse(c, False)) for _, o, c in en_pairs]


@pytest.fixture(scope="module")
def tok_pairs(fixture_checker):
    return [(f"tok_pairs.tsv:{n}", o, c) for n, o, c in fixture_checker.read_pairs(str(TOK_PAIRS))]


@pytest.fixture(scope="module")
def tok_docs(oracle, tok_pairs):
    return [(oracle.parse(o, True), oracle.parse(c, True)) for _, o, c in tok_pairs]


def test_fixture_files_are_well_formed(en_pairs, tok_pairs):
    assert len(en_pairs) == 422
    assert len(tok_pairs) == 71
    # the fixture must exercise real edits, not only identical pairs
    assert sum(o.split() != c.split() for _, o, c in en_pairs) > 300


@pytest.mark.parametrize("merge,lev", CONFIGS, ids=CONFIG_IDS)
def test_en_pairs_match_errant(nlp, oracle, en_pairs, en_docs, edit_tuples, mismatch_report, merge, lev):
    expected = _oracle_config(oracle, en_docs, lev, merge, edit_tuples)
    assert sum(map(len, expected)) > 400, "the oracle found suspiciously few edits"
    ann = Annotator(nlp, lev=lev, merge=merge)
    got = [[tuple(e) for e in edits] for edits in ann.annotate_batch([o for _, o, _ in en_pairs],
                                                                     [c for _, _, c in en_pairs])]
    bad = _mismatches(en_pairs, expected, got)
    assert not bad, mismatch_report(bad)


@pytest.mark.parametrize("merge,lev", CONFIGS, ids=CONFIG_IDS)
def test_tok_pairs_tokenise_match_errant(nlp, oracle, tok_pairs, tok_docs, edit_tuples, mismatch_report, merge, lev):
    expected = _oracle_config(oracle, tok_docs, lev, merge, edit_tuples)
    assert sum(map(len, expected)) > 40
    ann = Annotator(nlp, tokenise=True, lev=lev, merge=merge)
    got = [[tuple(e) for e in edits] for edits in ann.annotate_batch([o for _, o, _ in tok_pairs],
                                                                     [c for _, _, c in tok_pairs])]
    bad = _mismatches(tok_pairs, expected, got)
    assert not bad, mismatch_report(bad)


def test_fixture_covers_every_reachable_label(fixture_checker):
    """errant itself (via the fixture checker) finds every one of the 54 reachable operation:type labels."""
    reachable = fixture_checker.REACHABLE
    assert len(reachable) == len(set(reachable)) == 54
    assert all(label.split(":", 1)[0] in {"M", "R", "U"} for label in reachable)
    counts = fixture_checker.errant_labels(str(EN_PAIRS), False)
    missing = [label for label in reachable if counts[label] == 0]
    assert not missing, f"labels errant never produces on en_pairs.tsv: {missing}"


# --- the shared public corpora (PEET GEC outputs and their post-edits) -------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("folder,orig_file,cor_file,limit,n_expected", [
    ("CONLL14", "gector_OP.txt", "gector_EC.txt", None, 1312),
    ("BEA19", "gecpd_OP.txt", "gecpd_EC.txt", 1500, 1500),
], ids=["conll14-gector", "bea19-gecpd-1500"])
def test_shared_corpus_matches_errant(nlp, oracle, shared_corpora, corpus_lines, edit_tuples, mismatch_report,
                                      folder, orig_file, cor_file, limit, n_expected):
    base = shared_corpora / "peet" / folder
    origs = corpus_lines(base / orig_file)[:limit]
    cors = corpus_lines(base / cor_file)[:limit]
    assert len(origs) == len(cors) == n_expected
    pairs = [(f"{folder}/{orig_file}:{i}", o, c) for i, (o, c) in enumerate(zip(origs, cors), 1)]
    docs = [(oracle.parse(o, False), oracle.parse(c, False)) for o, c in zip(origs, cors)]

    # default configuration through the full batch path (parse, identical-pair skipping, annotate_many)
    expected = _oracle_config(oracle, docs, False, "rules", edit_tuples)
    assert sum(map(len, expected)) > 500
    ann = Annotator(nlp)
    got = [[tuple(e) for e in edits] for edits in ann.annotate_batch(origs, cors)]
    bad = _mismatches(pairs, expected, got)
    assert not bad, "merge=rules:\n" + mismatch_report(bad)

    # every other configuration on the same parses (Sents parsed once, annotated per configuration)
    sents = ann.parse(origs + cors)
    o_sents, c_sents = sents[:len(origs)], sents[len(origs):]
    failures = []
    for merge, lev in CONFIGS[1:]:
        expected = _oracle_config(oracle, docs, lev, merge, edit_tuples)
        cfg = Annotator(nlp, lev=lev, merge=merge)
        got = [[tuple(e) for e in cfg.annotate_sents(o, c)] for o, c in zip(o_sents, c_sents)]
        bad = _mismatches(pairs, expected, got)
        if bad:
            failures.append(f"merge={merge} lev={lev}:\n" + mismatch_report(bad))
    assert not failures, "\n".join(failures)
