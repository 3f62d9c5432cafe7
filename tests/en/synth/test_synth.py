"""Synthetic GEC pair generator (peet_fast.en.synth): determinism, prefix stability, error realism checked with errant,
rates validation, output formats, and invariants (hypothesis)."""
from __future__ import annotations

import collections
import csv
import json
import math
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, read_lines
from peet_fast.en import synth
from peet_fast.en.synth import words
from peet_fast.en.synth import DEFAULT_RATES, ERROR_KINDS, parse_rates, synthesize
from peet_fast.formats.pairs import write_pairs


@pytest.fixture(scope="module")
def clean_sentences() -> list[str]:
    """The corrected (cor) side of the English fixture: clean, pre-tokenised sentences."""
    return [line.split("\t")[1] for line in read_lines(FIXTURES / "en_pairs.tsv")]


@pytest.fixture(scope="module")
def short_sentences(clean_sentences) -> list[str]:
    """Distinct non-blank fixture sentences of at most 25 tokens (keeps the errant checks fast)."""
    seen = dict.fromkeys(s for s in clean_sentences if 0 < len(s.split()) <= 25)
    return list(seen)


def only(kind: str) -> dict[str, float]:
    return parse_rates(f"all=0,{kind}=1")


# --- determinism and ordering ----------------------------------------------------------------------------------------

def test_deterministic_for_a_seed(clean_sentences):
    a = synthesize(clean_sentences, 300, seed=7)
    b = synthesize(list(clean_sentences), 300, seed=7)
    assert a == b
    assert len(a) == 300
    assert all(isinstance(mo, str) and isinstance(trg, str) for mo, trg in a)


def test_different_seeds_differ(clean_sentences):
    a = synthesize(clean_sentences, 200, seed=1)
    b = synthesize(clean_sentences, 200, seed=2)
    assert a != b
    # both the sentence order and the injected errors depend on the seed
    assert [t for _, t in a] != [t for _, t in b]


def test_prefix_stable(clean_sentences):
    long = synthesize(clean_sentences, 1000, seed=11)
    for k in (0, 1, 17, 416, 417, 500):
        assert synthesize(clean_sentences, k, seed=11) == long[:k]


def test_round_robin_over_a_shuffled_order(clean_sentences):
    nonblank = [" ".join(s.split()) for s in clean_sentences if s.split()]
    n = len(nonblank)
    pairs = synthesize(clean_sentences, 2 * n + 5, seed=3)
    trgs = [t for _, t in pairs]
    assert collections.Counter(trgs[:n]) == collections.Counter(nonblank)      # every sentence once per round
    assert trgs[n:2 * n] == trgs[:n] and trgs[2 * n:] == trgs[:5]             # same order each round
    assert trgs[:n] != nonblank                                               # shuffled
    # a repeated sentence gets fresh errors: the rounds are not copies of each other
    assert [m for m, _ in pairs[:n]] != [m for m, _ in pairs[n:2 * n]]


def test_blank_sentences_skipped_and_whitespace_normalised():
    pairs = synthesize(["", "   ", "I  like\tcats .", "\t"], 4, seed=0, rates=parse_rates("all=0"))
    assert pairs == [("I like cats .", "I like cats .")] * 4


def test_argument_errors():
    with pytest.raises(ValueError, match="non-blank"):
        synthesize(["", " "], 3, seed=0)
    assert synthesize([], 0, seed=0) == []
    with pytest.raises(ValueError, match="n_pairs"):
        synthesize(["a b"], -1, seed=0)
    with pytest.raises(ValueError, match="seed"):
        synthesize(["a b"], 1, seed="x")
    with pytest.raises(ValueError, match="not one string"):
        synthesize("I like cats .", 1, seed=0)


# --- realism at the default rates -------------------------------------------------------------------------------------

def test_default_rates_shape():
    assert set(DEFAULT_RATES) == set(ERROR_KINDS)
    assert all(0 < r < 0.5 for r in DEFAULT_RATES.values())
    # the expected number of attempted errors per sentence stays around one
    assert 0.6 <= sum(DEFAULT_RATES.values()) <= 1.6


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_identical_share_at_default_rates(clean_sentences, seed):
    pairs = synthesize(clean_sentences, 400, seed=seed)
    identical = sum(mo == trg for mo, trg in pairs) / len(pairs)
    assert 0.28 <= identical <= 0.50, identical
    # most corrupted sentences differ from the clean one in only a few tokens
    diffs = [_token_distance(mo.split(), trg.split()) for mo, trg in pairs if mo != trg]
    assert sum(d <= 3 for d in diffs) / len(diffs) >= 0.85


def _token_distance(a: list[str], b: list[str]) -> int:
    """Levenshtein distance over tokens (a swap counts 2)."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


# --- each error kind gives the intended ERRANT label (errant is the judge) --------------------------------------------

# kind -> (predicate on an ERRANT label, minimum share of changed pairs on the sample)
EXPECTED = {
    "det": (lambda t: t[2:] == "DET", 0.5),
    "prep": (lambda t: t[2:] == "PREP", 0.3),
    "verb_tense": (lambda t: t[2:] == "VERB:TENSE", 0.5),
    "verb_form": (lambda t: t[2:] == "VERB:FORM", 0.15),
    "verb_sva": (lambda t: t[2:] == "VERB:SVA", 0.3),
    "noun_num": (lambda t: t[2:] == "NOUN:NUM", 0.4),
    "spelling": (lambda t: t[2:] == "SPELL", 0.95),
    "punct": (lambda t: t[2:] == "PUNCT", 0.95),
    "word_order": (lambda t: t == "R:WO", 0.9),
    "missing": (lambda t: t.startswith("M:"), 0.95),
    "extra": (lambda t: t.startswith("U:"), 0.95),
    "case": (lambda t: t == "R:ORTH", 0.95),
}


def test_expected_covers_every_kind():
    assert set(EXPECTED) == set(ERROR_KINDS)


@pytest.mark.parametrize("kind", ERROR_KINDS)
def test_single_kind_gives_intended_errant_label(kind, short_sentences, oracle_edits):
    want, min_changed = EXPECTED[kind]
    pairs = synthesize(short_sentences, 60, seed=5, rates=only(kind))
    changed = [(mo, trg) for mo, trg in pairs if mo != trg]
    assert len(changed) >= min_changed * len(pairs), f"{kind}: only {len(changed)}/{len(pairs)} pairs changed"
    labels = collections.Counter()
    pairs_ok = 0
    for mo, trg in changed:
        types = [e[6] for e in oracle_edits(mo, trg)]
        labels.update(types)
        pairs_ok += bool(types) and all(want(t) for t in types)
    good = sum(n for t, n in labels.items() if want(t))
    total = sum(labels.values())
    assert total > 0
    assert good / total >= 0.75, f"{kind}: {good}/{total} edits of the intended type; {labels.most_common()}"
    assert pairs_ok / len(changed) >= 0.7, f"{kind}: {pairs_ok}/{len(changed)} pairs only of the intended type"
    # a single injected error gives one ERRANT edit (occasionally a merged or split one)
    assert total <= 1.3 * len(changed)


def test_noun_number_and_verb_tables():
    assert words._plural("city") == "cities" and words._plural("box") == "boxes" and words._plural("day") == "days"
    assert words._plural("child") == "children" and words._plural("knife") == "knives"
    assert words._third_person("watch") == "watches" and words._third_person("study") == "studies"
    assert words._third_person("play") == "plays" and words._third_person("go") == "goes"
    assert words._regular_past("stop") == "stopped" and words._regular_past("live") == "lived"
    assert words._regular_past("try") == "tried" and words._regular_past("enjoy") == "enjoyed"
    assert words._ing("make") == "making" and words._ing("swim") == "swimming" and words._ing("die") == "dying"
    assert words._ing("see") == "seeing"


def test_corrupt_examples():
    rng = random.Random(0)
    # with every kind at rate 0 nothing changes (whitespace is normalised)
    assert synth.corrupt("  She  goes to school . ", rng, parse_rates("all=0")) == "She goes to school ."
    outs = {synth.corrupt("She goes to school .", random.Random(s), only("verb_tense")) for s in range(20)}
    assert outs == {"She went to school ."}
    outs = {synth.corrupt("She goes to school .", random.Random(s), only("verb_sva")) for s in range(20)}
    assert outs == {"She go to school ."}
    outs = {synth.corrupt("I want to leave .", random.Random(s), only("verb_form")) for s in range(40)}
    assert outs <= {"I want leaving .", "I want to leaving ."} and len(outs) == 2
    outs = {synth.corrupt("He is a good boy .", random.Random(s), only("noun_num")) for s in range(20)}
    assert outs == {"He is a good boys ."}


# --- rates --------------------------------------------------------------------------------------------------------------

def test_parse_rates_accepts():
    assert parse_rates("det=0.2,prep=0.1") == {"det": 0.2, "prep": 0.1}
    assert parse_rates(" det = 1 , case=0 ") == {"det": 1.0, "case": 0.0}
    assert parse_rates("") == {}
    assert parse_rates("all=0,spelling=0.5") == {**{k: 0.0 for k in ERROR_KINDS}, "spelling": 0.5}


@pytest.mark.parametrize("spec, names", [
    ("det=0.2,bogus=0.1", "bogus"),
    ("det=1.5", "det"),
    ("prep=-0.1", "prep"),
    ("case=nan", "case"),
    ("case=inf", "case"),
    ("spelling=abc", "spelling"),
    ("det", "det"),
    ("det=", "det="),
    ("det=0.1,det=0.2", "det"),
    ("det=0.1,,prep=0.2", "empty"),
    ("det=0.1,all=0", "all"),
    ("all=2", "all"),
])
def test_parse_rates_refuses(spec, names):
    with pytest.raises(ValueError) as info:
        parse_rates(spec)
    assert names in str(info.value)


def test_synthesize_validates_rates(clean_sentences):
    with pytest.raises(ValueError, match="nonsense"):
        synthesize(clean_sentences, 5, seed=0, rates={"nonsense": 0.5})
    with pytest.raises(ValueError, match="det"):
        synthesize(clean_sentences, 5, seed=0, rates={"det": 1.01})
    with pytest.raises(ValueError, match="prep"):
        synthesize(clean_sentences, 5, seed=0, rates={"prep": math.nan})
    with pytest.raises(ValueError, match="case"):
        synthesize(clean_sentences, 5, seed=0, rates={"case": True})


def test_rates_override_defaults(clean_sentences):
    # naming one kind keeps the defaults of the others
    a = synthesize(clean_sentences, 100, seed=4, rates={"det": DEFAULT_RATES["det"]})
    assert a == synthesize(clean_sentences, 100, seed=4)
    none = synthesize(clean_sentences, 100, seed=4, rates=parse_rates("all=0"))
    assert all(mo == trg for mo, trg in none)
    every = synthesize(clean_sentences, 100, seed=4, rates=parse_rates("all=1"))
    assert sum(mo != trg for mo, trg in every) >= 95


# --- output files ---------------------------------------------------------------------------------------------------

PAIRS = [("She go to school .", "She goes to school ."),
         ('He said " hello " .', 'He said " hello " .'),
         ("Mr. Müller 's crème brûlée", "Mr. Müller 's crème brûlée ."),
         ("x", "y")]


def _leftovers(directory) -> list[str]:
    return [p for p in os.listdir(directory) if p.startswith(".peet-fast-")]


@pytest.mark.parametrize("ids", [True, False])
def test_write_tsv(tmp_path, ids):
    path = tmp_path / "pairs.tsv"
    write_pairs(path, PAIRS, ids=ids)
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    if ids:
        assert rows[0] == ["id", "mo", "trg"]
        assert rows[1:] == [[str(i), mo, trg] for i, (mo, trg) in enumerate(PAIRS)]
    else:
        assert rows[0] == ["mo", "trg"]
        assert rows[1:] == [[mo, trg] for mo, trg in PAIRS]
    assert path.read_bytes().count(b"\n") == len(PAIRS) + 1 and b"\r" not in path.read_bytes()
    assert not _leftovers(tmp_path)


@pytest.mark.parametrize("ids", [True, False])
def test_write_jsonl(tmp_path, ids):
    path = tmp_path / "pairs.jsonl"
    write_pairs(path, PAIRS, ids=ids)
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    if ids:
        assert recs == [{"id": i, "mo": mo, "trg": trg} for i, (mo, trg) in enumerate(PAIRS)]
        assert list(recs[0]) == ["id", "mo", "trg"]
    else:
        assert recs == [{"mo": mo, "trg": trg} for mo, trg in PAIRS]
    assert not _leftovers(tmp_path)


@pytest.mark.parametrize("ids", [True, False])
def test_write_parquet(tmp_path, ids):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "pairs.parquet"
    write_pairs(str(path), PAIRS, ids=ids)
    table = pq.read_table(path)
    if ids:
        assert table.schema.names == ["id", "mo", "trg"]
        assert table.schema.field("id").type == pa.int64()
        assert table.column("id").to_pylist() == list(range(len(PAIRS)))
    else:
        assert table.schema.names == ["mo", "trg"]
    assert table.schema.field("mo").type == pa.string() and table.schema.field("trg").type == pa.string()
    assert list(zip(table.column("mo").to_pylist(), table.column("trg").to_pylist())) == PAIRS
    assert not _leftovers(tmp_path)


def test_write_synthesized_round_trip(tmp_path, clean_sentences):
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pairs = synthesize(clean_sentences, 250, seed=9)
    write_pairs(tmp_path / "s.tsv", pairs)
    write_pairs(tmp_path / "s.jsonl", pairs)
    write_pairs(tmp_path / "s.parquet", pairs)
    with open(tmp_path / "s.tsv", encoding="utf-8", newline="") as fh:
        tsv = [(r[1], r[2]) for r in list(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]]
    jsonl = [(r["mo"], r["trg"]) for r in map(json.loads, (tmp_path / "s.jsonl").read_text("utf-8").splitlines())]
    t = pq.read_table(tmp_path / "s.parquet")
    parquet = list(zip(t.column("mo").to_pylist(), t.column("trg").to_pylist()))
    assert tsv == jsonl == parquet == pairs


def test_write_empty(tmp_path):
    write_pairs(tmp_path / "e.tsv", [])
    assert (tmp_path / "e.tsv").read_text() == "id\tmo\ttrg\n"
    write_pairs(tmp_path / "e.jsonl", [])
    assert (tmp_path / "e.jsonl").read_text() == ""


@pytest.mark.parametrize("name", ["pairs.txt", "pairs.csv", "pairs", "pairs.arrow", "pairs.tsv.gz"])
def test_write_refuses_unknown_suffix(tmp_path, name):
    with pytest.raises(ValueError, match="format"):
        write_pairs(tmp_path / name, PAIRS)
    assert os.listdir(tmp_path) == []


def test_write_refuses_bad_pairs_and_leaves_nothing(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("old\n")
    with pytest.raises(ValueError, match="tab or line break"):
        write_pairs(path, [("a\tb", "a b")])
    with pytest.raises(ValueError, match="tab or line break"):
        write_pairs(path, [("a b", "a\nb")])
    with pytest.raises(ValueError, match="pair 1"):
        write_pairs(tmp_path / "p.jsonl", [("a", "b"), ("only one",)])
    assert path.read_text() == "old\n"                      # the old file is untouched
    assert sorted(os.listdir(tmp_path)) == ["p.tsv"]
    with pytest.raises(ValueError):
        write_pairs(tmp_path / "missing-dir" / "p.tsv", PAIRS)


# --- invariants (hypothesis) -----------------------------------------------------------------------------------------

_VOCAB = sorted({*words._ARTICLES, *words._PREP_CONFUSIONS, *words._V_BASE, *words._V_THIRD, *words._V_PAST,
                 *words._V_ING, *words._NOUN_SING, *words._NOUN_PLUR, *words._UNCOUNTABLE, *words._BE, *words._HAVE,
                 *words._DO, *words._MODALS, *words._SUBJ_PLURAL, *words._SUBJ_3SG, "I", "The", "A", "He",
                 ",", ".", "?", "!", "n't", "'s", "to", "Müller", "ǅemal", "ß", "İstanbul", "x", "ab"})
_token = st.one_of(st.sampled_from(_VOCAB), st.text(min_size=1, max_size=8))
_sentence = st.one_of(
    st.lists(_token, min_size=0, max_size=14).map(lambda ws: " ".join(ws)),
    st.text(max_size=40),                                   # anything, including odd whitespace and control chars
)
_rates = st.one_of(st.just(None), st.just({k: 1.0 for k in ERROR_KINDS}),
                   st.dictionaries(st.sampled_from(ERROR_KINDS), st.floats(0, 1)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_sentence, min_size=1, max_size=6), st.integers(0, 40), st.integers(-2**70, 2**70), _rates)
def test_invariants(sentences, n_pairs, seed, rates):
    nonblank = [s for s in sentences if s.split()]
    if not nonblank:
        if n_pairs:
            with pytest.raises(ValueError):
                synthesize(sentences, n_pairs, seed, rates)
        return
    pairs = synthesize(sentences, n_pairs, seed, rates)
    assert len(pairs) == n_pairs
    trgs_allowed = {" ".join(s.split()) for s in nonblank}
    for mo, trg in pairs:
        assert trg in trgs_allowed
        for side in (mo, trg):
            assert side                                       # never empty from a non-empty sentence
            assert side == " ".join(side.split())             # single spaces, no leading/trailing whitespace
            assert side.splitlines() == [side]                # one line
            assert "\t" not in side and "\r" not in side and "\n" not in side
    # prefix stability and determinism
    assert synthesize(sentences, n_pairs // 2, seed, rates) == pairs[:n_pairs // 2]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_VOCAB), min_size=1, max_size=12), st.integers(0, 2**32))
def test_all_errors_at_once_keep_a_sentence(words, seed):
    sentence = " ".join(words)
    mo = synth.corrupt(sentence, random.Random(seed), {k: 1.0 for k in ERROR_KINDS})
    assert mo and mo == " ".join(mo.split())
    # at most one error per kind: MO stays close to TRG
    assert abs(len(mo.split()) - len(words)) <= len(ERROR_KINDS)
