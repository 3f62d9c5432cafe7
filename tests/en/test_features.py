"""Feature extraction against an independent oracle.

The expected features are computed here, in plain Python, from errant's own edits (conftest's ``oracle``:
``errant.load("en", nlp=nlp).annotate(parse(mo), parse(trg))``, MO as orig, TRG as cor) and the definitions of the
PEET scoring issue -- never from peet_fast:

- edits of type noop, UNK and Um are ignored; an edit's weight is o_end - o_start (1 for an insertion);
- small: R, M, U = summed weights per operation; NONE = 1 when the pair has no counted edit;
- medium: the 24 ERRANT types (op ignored) + NONE; large: the 54 operation:type labels + NONE;
- NumWordsS / NumWordsT = whitespace-separated words of MO / TRG; NumEditedWords = summed weights of counted edits.

Also: hypothesis properties of the compiled counting kernel (peet_fast._ext.features.count_edits through
count_features / EditArrays), and a guard that errant never emits a label outside peet_fast's label table.
"""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import peet_fast
from peet_fast.en import features as F
from peet_fast._ext.features import count_edits  # noqa: F401  (the kernel under test, via count_features)

# --- the issue's definitions, written out literally ------------------------------------------------------------------

ISSUE_TYPES = ("ADJ", "ADJ:FORM", "ADV", "CONJ", "CONTR", "DET", "MORPH", "NOUN", "NOUN:INFL", "NOUN:NUM", "NOUN:POSS",
               "ORTH", "OTHER", "PART", "PREP", "PRON", "PUNCT", "SPELL", "VERB", "VERB:FORM", "VERB:INFL", "VERB:SVA",
               "VERB:TENSE", "WO")
ISSUE_LABELS = (
    "M:ADJ", "M:ADV", "M:CONJ", "M:CONTR", "M:DET", "M:NOUN", "M:NOUN:POSS", "M:OTHER", "M:PART", "M:PREP", "M:PRON",
    "M:PUNCT", "M:VERB", "M:VERB:FORM", "M:VERB:TENSE",
    "R:ADJ", "R:ADJ:FORM", "R:ADV", "R:CONJ", "R:CONTR", "R:DET", "R:MORPH", "R:NOUN", "R:NOUN:INFL", "R:NOUN:NUM",
    "R:NOUN:POSS", "R:ORTH", "R:OTHER", "R:PART", "R:PREP", "R:PRON", "R:PUNCT", "R:SPELL", "R:VERB", "R:VERB:FORM",
    "R:VERB:INFL", "R:VERB:SVA", "R:VERB:TENSE", "R:WO",
    "U:ADJ", "U:ADV", "U:CONJ", "U:CONTR", "U:DET", "U:NOUN", "U:NOUN:POSS", "U:OTHER", "U:PART", "U:PREP", "U:PRON",
    "U:PUNCT", "U:VERB", "U:VERB:FORM", "U:VERB:TENSE",
)
ISSUE_IGNORED = ("noop", "UNK", "Um")
ISSUE_SENTENCE_FEATURES = ("NumWordsS", "NumWordsT", "NumEditedWords")
ISSUE_EDIT_FEATURES = {
    "small": ("R", "M", "U", "NONE"),
    "medium": ISSUE_TYPES + ("NONE",),
    "large": ISSUE_LABELS + ("NONE",),
}
SETS = ("small", "medium", "large")
FIXTURES = Path(__file__).parents[1] / "fixtures"

# Pairs the fixture corpus may lack: the empty-line cases of the issue, spacing variants, a pure deletion.
EXTRA_PAIRS = [
    ("", ""),
    ("", "I like it ."),
    ("I like it .", ""),
    ("I  like   it .", "I like it ."),
    ("He go to school yesterday .", "He went to school yesterday ."),
    ("She is is very very happy today .", "She is very happy today ."),
]


# --- the oracle -------------------------------------------------------------------------------------------------------

def oracle_edit_rows(oracle, mo: str, trg: str) -> list[tuple[int, int, str]]:
    """errant's edits MO -> TRG as (o_start, o_end, label)."""
    return [(e.o_start, e.o_end, e.type) for e in oracle.annotate(oracle.parse(mo), oracle.parse(trg))]


def oracle_features(edit_rows, mo: str, trg: str, feature_set: str) -> dict:
    """The issue's definitions, from (o_start, o_end, label) edit rows. A counted label without a column is an error."""
    cols = {name: 0 for name in ISSUE_EDIT_FEATURES[feature_set]}
    edited = 0
    for o_start, o_end, label in edit_rows:
        if label in ISSUE_IGNORED:
            continue
        weight = o_end - o_start if o_end > o_start else 1
        op, etype = label.split(":", 1)
        key = {"small": op, "medium": etype, "large": label}[feature_set]
        if key not in cols or key == "NONE":
            raise AssertionError(f"oracle: label {label!r} has no {feature_set} column ({mo!r} -> {trg!r})")
        cols[key] += weight
        edited += weight
    cols["NONE"] = int(edited == 0)
    cols["NumWordsS"] = len(mo.split())
    cols["NumWordsT"] = len(trg.split())
    cols["NumEditedWords"] = edited
    return cols


def compare_all(annotator, oracle_rows, mo, trg, feature_set, where):
    """featurize() vs the oracle, every column, exact; a readable report of the first mismatching pairs."""
    got = F.featurize(annotator, mo, trg, feature_set)
    names = ISSUE_EDIT_FEATURES[feature_set] + ISSUE_SENTENCE_FEATURES
    assert set(got) == set(names), f"{feature_set}: columns differ from the issue's definition"
    assert tuple(got) == F.feature_names(feature_set), f"{feature_set}: columns not in canonical order"
    for name in names:
        assert got[name].shape == (len(mo),), name
        assert got[name].dtype == np.int32, name
    bad = []
    for k, (m, t, rows) in enumerate(zip(mo, trg, oracle_rows)):
        exp = oracle_features(rows, m, t, feature_set)
        diff = {n: (exp[n], int(got[n][k])) for n in names if exp[n] != int(got[n][k])}
        if diff:
            bad.append(f"{where} pair {k}: {m!r} -> {t!r}\n    edits {rows}\n    (expected, got): {diff}")
    assert not bad, f"{len(bad)} pair(s) differ ({feature_set}):\n" + "\n".join(bad[:8])


# --- fixtures ---------------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def annotator(nlp):
    return peet_fast.Annotator(nlp)


@pytest.fixture(scope="module")
def fixture_pairs(fixture_checker):
    pairs = [(o, c) for _, o, c in fixture_checker.read_pairs(FIXTURES / "en_pairs.tsv")]
    assert len(pairs) > 400
    return pairs + EXTRA_PAIRS


@pytest.fixture(scope="module")
def fixture_oracle(oracle, fixture_pairs):
    return [oracle_edit_rows(oracle, m, t) for m, t in fixture_pairs]


# --- the label table --------------------------------------------------------------------------------------------------

def test_label_lists_match_the_issue():
    assert len(ISSUE_TYPES) == 24 and len(set(ISSUE_TYPES)) == 24
    assert len(ISSUE_LABELS) == 54 and len(set(ISSUE_LABELS)) == 54
    assert F.ERROR_TYPES == ISSUE_TYPES
    assert len(F.OP_TYPES) == 54 and set(F.OP_TYPES) == set(ISSUE_LABELS)
    assert set(F.IGNORED_LABELS) == set(ISSUE_IGNORED)
    assert set(F.LABELS) == set(ISSUE_IGNORED) | set(ISSUE_LABELS) | {"M:SPACE", "R:SPACE", "U:SPACE"}
    assert len(F.LABELS) == len(set(F.LABELS))
    assert all(F.LABELS[F.LABEL_IDS[lab]] == lab for lab in F.LABELS)
    assert F.EDIT_FEATURES["small"] == ISSUE_EDIT_FEATURES["small"]
    assert F.EDIT_FEATURES["medium"] == ISSUE_EDIT_FEATURES["medium"]
    # the issue fixes the 54 labels, not their order; NONE comes last as in the other sets
    assert len(F.EDIT_FEATURES["large"]) == 55 and F.EDIT_FEATURES["large"][-1] == "NONE"
    assert set(F.EDIT_FEATURES["large"]) == set(ISSUE_EDIT_FEATURES["large"])
    for fs in SETS:
        assert F.feature_names(fs) == F.EDIT_FEATURES[fs] + ISSUE_SENTENCE_FEATURES
    assert len(F.feature_names("small")) == 4 + 3
    assert len(F.feature_names("medium")) == 25 + 3
    assert len(F.feature_names("large")) == 55 + 3
    with pytest.raises(ValueError):
        F.feature_names("huge")


def test_errant_labels_stay_inside_the_table(oracle, fixture_pairs, fixture_oracle, fixture_checker):
    """Fails loudly if errant (e.g. a new version) emits a label peet_fast's table does not know."""
    seen = set()
    for (m, t), rows in zip(fixture_pairs, fixture_oracle):
        for _, _, label in rows:
            seen.add(label)
            assert label in F.LABELS, f"errant label {label!r} not in LABELS ({m!r} -> {t!r})"
            if label not in ISSUE_IGNORED:
                assert label in ISSUE_LABELS, f"pre-tokenised errant label {label!r} outside the 54 ({m!r} -> {t!r})"
    assert len(seen & set(ISSUE_LABELS)) == 54, sorted(set(ISSUE_LABELS) - seen)  # the fixture reaches every label
    # spaCy's tokenizer mode can add the SPACE labels, and nothing else
    for _, o, c in fixture_checker.read_pairs(FIXTURES / "tok_pairs.tsv"):
        for e in oracle.annotate(oracle.parse(o, True), oracle.parse(c, True)):
            assert e.type in F.LABELS, f"errant label {e.type!r} (tokenise) not in LABELS ({o!r} -> {c!r})"


# --- featurize vs the oracle ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("feature_set", SETS)
def test_featurize_fixture_pairs(annotator, fixture_pairs, fixture_oracle, feature_set):
    mo = [m for m, _ in fixture_pairs]
    trg = [t for _, t in fixture_pairs]
    compare_all(annotator, fixture_oracle, mo, trg, feature_set, "en_pairs.tsv")


def test_featurize_empty_lines_by_hand(annotator):
    """The issue's empty-line cases, by hand: empty vs empty = identical (NONE = 1); an insertion weighs 1."""
    got = F.featurize(annotator, ["", "", "I like it ."], ["", "I like it .", ""], "small")
    assert [int(x) for x in got["NONE"]] == [1, 0, 0]
    assert [int(x) for x in got["NumWordsS"]] == [0, 0, 4]
    assert [int(x) for x in got["NumWordsT"]] == [0, 4, 0]
    assert [int(x) for x in got["R"]] == [0, 0, 0]
    assert int(got["M"][1]) >= 1 and int(got["U"][2]) == 4
    assert [int(x) for x in got["NumEditedWords"]] == [0, int(got["M"][1]), 4]


def test_featurize_batch_independent(annotator, fixture_pairs):
    """A pair's features do not depend on the other pairs of its batch (order, duplicates)."""
    mo = [m for m, _ in fixture_pairs]
    trg = [t for _, t in fixture_pairs]
    full = F.featurize(annotator, mo, trg, "large")
    idx = list(range(len(mo)))
    random.Random(7).shuffle(idx)
    idx = idx[:60] + idx[:5]
    part = F.featurize(annotator, [mo[i] for i in idx], [trg[i] for i in idx], "large")
    for name in full:
        assert [int(full[name][i]) for i in idx] == [int(x) for x in part[name]], name


CONLL14_REFS = ("gector_EC", "gecpd_EC", "source_EC")


@pytest.fixture(scope="module")
def conll14_pairs(oracle, shared_corpora, corpus_lines):
    """MO = CONLL14/gector_OP.txt against each of the three *_EC.txt references (concatenated, reference-major),
    with errant's edits for every pair (each distinct text parsed by errant once)."""
    base = shared_corpora / "peet" / "CONLL14"
    mo = corpus_lines(base / "gector_OP.txt")
    assert len(mo) == 1312
    mos, trgs = [], []
    for ref in CONLL14_REFS:
        trg = corpus_lines(base / f"{ref}.txt")
        assert len(trg) == len(mo), ref
        mos += mo
        trgs += trg
    cache = {}

    def parse(text):
        if text not in cache:
            cache[text] = oracle.parse(text)
        return cache[text]

    rows = [[(e.o_start, e.o_end, e.type) for e in oracle.annotate(parse(m), parse(t))] for m, t in zip(mos, trgs)]
    return mos, trgs, rows


@pytest.mark.slow
@pytest.mark.parametrize("feature_set", SETS)
def test_featurize_conll14(annotator, conll14_pairs, feature_set):
    mo, trg, rows = conll14_pairs
    compare_all(annotator, rows, mo, trg, feature_set, "CONLL14 gector_OP vs " + "/".join(CONLL14_REFS))


# --- properties of the counting kernel --------------------------------------------------------------------------------

SPACE_IDS = [F.LABEL_IDS[lab] for lab in ("M:SPACE", "R:SPACE", "U:SPACE")]
IGNORED_IDS = [F.LABEL_IDS[lab] for lab in ISSUE_IGNORED]
COLUMN_IDS = [F.LABEL_IDS[lab] for lab in ISSUE_LABELS]


@st.composite
def edit_batches(draw, labels=COLUMN_IDS):
    n_pairs = draw(st.integers(1, 6))
    edits = draw(st.lists(st.tuples(st.integers(0, n_pairs - 1), st.integers(0, 30), st.integers(0, 6),
                                    st.sampled_from(labels)), max_size=25))
    return n_pairs, [(p, s, s + w, lab) for p, s, w, lab in edits]


def arrays(n_pairs, edits) -> F.EditArrays:
    cols = list(zip(*edits)) if edits else [(), (), (), ()]
    return F.EditArrays(n_pairs, *(np.array(c, dtype=np.int32) for c in cols))


def count(n_pairs, edits, feature_set):
    mo = [" ".join(["w"] * (k + 1)) for k in range(n_pairs)]
    trg = [" ".join(["v"] * (2 * k)) for k in range(n_pairs)]
    return F.count_features(arrays(n_pairs, edits), feature_set, mo, trg)


def as_lists(cols):
    return {k: [int(x) for x in v] for k, v in cols.items()}


PROP = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROP
@given(edit_batches(COLUMN_IDS + SPACE_IDS + IGNORED_IDS))
def test_small_counts(batch):
    n_pairs, edits = batch
    got = as_lists(count(n_pairs, edits, "small"))
    assert tuple(got) == ISSUE_EDIT_FEATURES["small"] + ISSUE_SENTENCE_FEATURES
    for p in range(n_pairs):
        exp = {"R": 0, "M": 0, "U": 0}
        for q, s, e, lab in edits:
            if q == p and F.LABELS[lab] not in ISSUE_IGNORED:
                exp[F.LABELS[lab][0]] += max(e - s, 1)
        assert [got[k][p] for k in "RMU"] == [exp[k] for k in "RMU"]
        assert got["R"][p] + got["M"][p] + got["U"][p] == got["NumEditedWords"][p]
        assert got["NONE"][p] == int(got["NumEditedWords"][p] == 0)
        assert got["NumWordsS"][p] == p + 1 and got["NumWordsT"][p] == 2 * p


@PROP
@given(edit_batches(COLUMN_IDS + IGNORED_IDS), st.sampled_from(["medium", "large"]))
def test_medium_large_columns_sum_to_edited_words(batch, feature_set):
    n_pairs, edits = batch
    got = as_lists(count(n_pairs, edits, feature_set))
    small = as_lists(count(n_pairs, edits, "small"))
    edit_cols = ISSUE_EDIT_FEATURES[feature_set][:-1]
    for p in range(n_pairs):
        assert sum(got[c][p] for c in edit_cols) == got["NumEditedWords"][p] == small["NumEditedWords"][p]
        assert got["NONE"][p] == int(got["NumEditedWords"][p] == 0) == small["NONE"][p]
        for c in edit_cols:
            exp = 0
            for q, s, e, lab in edits:
                name = F.LABELS[lab]
                if q == p and name not in ISSUE_IGNORED and (name.split(":", 1)[1] if feature_set == "medium"
                                                             else name) == c:
                    exp += max(e - s, 1)
            assert got[c][p] == exp, c


@PROP
@given(edit_batches(COLUMN_IDS + SPACE_IDS), st.data())
def test_ignored_labels_change_nothing(batch, data):
    n_pairs, edits = batch
    extra = data.draw(st.lists(st.tuples(st.integers(0, n_pairs - 1), st.integers(0, 30), st.integers(0, 6),
                                         st.sampled_from(IGNORED_IDS)), min_size=1, max_size=10))
    extra = [(p, s, s + w, lab) for p, s, w, lab in extra]
    mixed = edits + extra
    random.Random(len(mixed)).shuffle(mixed)
    sets = ["small"] if any(lab in SPACE_IDS for *_, lab in edits) else SETS
    for fs in sets:
        assert as_lists(count(n_pairs, edits, fs)) == as_lists(count(n_pairs, mixed, fs)), fs


@PROP
@given(edit_batches(COLUMN_IDS + IGNORED_IDS), st.randoms(use_true_random=False))
def test_counts_invariant_to_edit_order(batch, rnd):
    n_pairs, edits = batch
    shuffled = list(edits)
    rnd.shuffle(shuffled)
    for fs in SETS:
        assert as_lists(count(n_pairs, edits, fs)) == as_lists(count(n_pairs, shuffled, fs)), fs


@PROP
@given(edit_batches(SPACE_IDS))
def test_space_labels_small_only(batch):
    """SPACE labels (spaCy tokenizer mode) count in the small set; medium/large have no column: FeatureError."""
    n_pairs, edits = batch
    small = as_lists(count(n_pairs, edits, "small"))
    for p in range(n_pairs):
        assert small["NumEditedWords"][p] == sum(max(e - s, 1) for q, s, e, _ in edits if q == p)
    if edits:
        for fs in ("medium", "large"):
            with pytest.raises(F.FeatureError, match="SPACE"):
                count(n_pairs, edits, fs)


def test_no_edits_at_all():
    for fs in SETS:
        got = as_lists(count(3, [], fs))
        assert got["NONE"] == [1, 1, 1] and got["NumEditedWords"] == [0, 0, 0]
        assert all(got[c] == [0, 0, 0] for c in ISSUE_EDIT_FEATURES[fs][:-1])
