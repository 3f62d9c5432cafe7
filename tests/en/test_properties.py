"""Property tests (hypothesis).

1. Sentence pairs: real sentences (en_pairs.tsv orig side and, when the shared corpora are present, the CoNLL-14 GECToR
   outputs) put through random token deletions, insertions and substitutions (words drawn from the corpus vocabulary),
   adjacent and distant swaps, moved spans, case changes, duplicated words, joined and split tokens, suffix changes and
   typos. peet_fast must give exactly errant's edits for every pair of a generated batch.
2. Kernels: the character distances against rapidfuzz (exact equality), and the alignment and substitution cost against
   errant's own Alignment class on random hand-built token sequences (duck-typed tokens; no spaCy involved).
"""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import spacy.symbols as sym
from errant.alignment import Alignment
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Indel, Levenshtein

from peet_fast import Annotator
from peet_fast._ext.align import alignment, substitution_cost
from peet_fast._ext.classify import levenshtein_normalized_similarity
from peet_fast._ext.tokens import Sent, indel_distance

HERE = Path(__file__).parents[1]
SHARED_GECTOR_OP = (HERE.parent / ".." / "shared" / "corpora" / "peet" / "CONLL14" / "gector_OP.txt").resolve()

MERGES = ("rules", "all-split", "all-merge", "all-equal")
OTHER_CONFIGS = [(m, False) for m in MERGES[1:]] + [(m, True) for m in MERGES]


def _read_lines(path: Path) -> list[str]:
    lines = path.read_bytes().decode("utf-8").split("\n")
    return [ln.rstrip("\r") for ln in lines]


def _load_pool():
    sents, vocab = [], set()
    for line in _read_lines(HERE / "fixtures" / "en_pairs.tsv"):
        if "\t" not in line:
            continue
        orig, cor = line.split("\t", 1)
        if orig.split():
            sents.append(tuple(orig.split()))
        vocab.update(orig.split())
        vocab.update(cor.split())
    if SHARED_GECTOR_OP.is_file():
        for line in _read_lines(SHARED_GECTOR_OP):
            toks = line.split()
            if 0 < len(toks) <= 60:          # keep errant's O(n*m) Python alignment quick
                sents.append(tuple(toks))
                vocab.update(toks)
    return sorted(set(sents)), sorted(vocab)


SENTS, VOCAB = _load_pool()

# --- sentence mutations ------------------------------------------------------------------------------------------------

KINDS = ("delete", "insert", "substitute", "swap_adjacent", "swap_distant", "move_span", "case", "duplicate",
         "join", "split", "suffix", "typo")
CASES = (str.lower, str.upper, str.capitalize, str.swapcase, str.title)
SUFFIXES = ("s", "es", "ed", "d", "ing", "ly", "er", "n't", "'s")


def _mutate(draw, toks: list[str]) -> list[str]:
    kind = draw(st.sampled_from(KINDS))
    n = len(toks)
    if kind == "insert" or n == 0:
        i = draw(st.integers(0, n))
        return toks[:i] + [draw(st.sampled_from(VOCAB))] + toks[i:]
    i = draw(st.integers(0, n - 1))
    if kind == "delete":
        return toks[:i] + toks[i + 1:]
    if kind == "substitute":
        return toks[:i] + [draw(st.sampled_from(VOCAB))] + toks[i + 1:]
    if kind == "swap_adjacent" and n >= 2:
        i = min(i, n - 2)
        return toks[:i] + [toks[i + 1], toks[i]] + toks[i + 2:]
    if kind == "swap_distant" and n >= 3:
        i = min(i, n - 3)
        j = draw(st.integers(i + 2, n - 1))
        out = list(toks)
        out[i], out[j] = out[j], out[i]
        return out
    if kind == "move_span" and n >= 2:
        size = draw(st.integers(1, min(3, n - 1)))
        i = min(i, n - size)
        span, rest = toks[i:i + size], toks[:i] + toks[i + size:]
        k = draw(st.integers(0, len(rest)))
        return rest[:k] + span + rest[k:]
    if kind == "case":
        return toks[:i] + [draw(st.sampled_from(CASES))(toks[i])] + toks[i + 1:]
    if kind == "duplicate":
        return toks[:i + 1] + [toks[i]] + toks[i + 1:]
    if kind == "join" and n >= 2:
        i = min(i, n - 2)
        return toks[:i] + [toks[i] + draw(st.sampled_from(("", "-"))) + toks[i + 1]] + toks[i + 2:]
    if kind == "split" and len(toks[i]) >= 2:
        t = toks[i]
        if "-" in t.strip("-"):
            parts = [p for p in t.split("-") if p]
        else:
            k = draw(st.integers(1, len(t) - 1))
            parts = [t[:k], t[k:]]
        return toks[:i] + parts + toks[i + 1:]
    if kind == "suffix":
        t, suf = toks[i], draw(st.sampled_from(SUFFIXES))
        t = t[:-len(suf)] if t.endswith(suf) and len(t) > len(suf) else t + suf
        return toks[:i] + [t] + toks[i + 1:]
    if kind == "typo" and toks[i]:
        t = toks[i]
        k = draw(st.integers(0, len(t) - 1))
        how = draw(st.sampled_from(("drop", "double", "swap", "replace")))
        if how == "drop" and len(t) > 1:
            t = t[:k] + t[k + 1:]
        elif how == "swap" and k + 1 < len(t):
            t = t[:k] + t[k + 1] + t[k] + t[k + 2:]
        elif how == "replace":
            t = t[:k] + draw(st.sampled_from("aeiouystnrl")) + t[k + 1:]
        else:
            t = t[:k + 1] + t[k:]
        return toks[:i] + [t] + toks[i + 1:]
    # the drawn kind does not apply to this sentence: delete a token instead
    return toks[:i] + toks[i + 1:]


@st.composite
def mutated_tokens(draw, max_ops=4):
    orig = list(draw(st.sampled_from(SENTS)))
    cor = list(orig)
    for _ in range(draw(st.integers(1, max_ops))):
        cor = _mutate(draw, cor)
    if draw(st.booleans()):
        # corrections happen on either side: sometimes the mutated text is the original
        orig, cor = cor, orig
    return orig, cor


def mutated_batch(size):
    return st.lists(mutated_tokens(), min_size=size, max_size=size)


_DETOK_NO_SPACE_BEFORE = {".", ",", "!", "?", ";", ":", ")", "n't", "'s", "'re", "'ve", "'ll", "'m", "'d", "%"}


def detokenise(toks: list[str]) -> str:
    out = ""
    for t in toks:
        if out and t not in _DETOK_NO_SPACE_BEFORE and not out.endswith(("(", "$")):
            out += " "
        out += t
    return out


# --- oracle and peet_fast on batches -----------------------------------------------------------------------------------

_DOCS: dict = {}


def _oracle_parse(oracle, text, tokenise):
    key = (text, tokenise)
    doc = _DOCS.get(key)
    if doc is None:
        if len(_DOCS) > 50_000:
            _DOCS.clear()
        doc = _DOCS[key] = oracle.parse(text, tokenise)
    return doc


@pytest.fixture(scope="module")
def annotators(nlp):
    cache = {}

    def get(merge="rules", lev=False, tokenise=False):
        key = (merge, lev, tokenise)
        if key not in cache:
            cache[key] = Annotator(nlp, merge=merge, lev=lev, tokenise=tokenise)
        return cache[key]
    return get


def _compare(oracle, edit_tuples, mismatch_report, ann, origs, cors, merge, lev, tokenise):
    got = ann.annotate_batch(origs, cors)
    bad = []
    for k, (o, c) in enumerate(zip(origs, cors)):
        exp = edit_tuples(oracle.annotate(_oracle_parse(oracle, o, tokenise), _oracle_parse(oracle, c, tokenise),
                                          lev, merge))
        g = [tuple(e) for e in got[k]]
        if exp != g:
            bad.append((f"pair {k} (merge={merge}, lev={lev}, tokenise={tokenise})", o, c, exp, g))
    assert not bad, mismatch_report(bad)


BATCH = 12


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=mutated_batch(BATCH))
def test_mutated_corpus_sentences_rules_merge(oracle, annotators, edit_tuples, mismatch_report, batch):
    origs = [" ".join(o) for o, _ in batch]
    cors = [" ".join(c) for _, c in batch]
    _compare(oracle, edit_tuples, mismatch_report, annotators("rules", False), origs, cors, "rules", False, False)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=mutated_batch(BATCH), config=st.sampled_from(OTHER_CONFIGS))
def test_mutated_corpus_sentences_other_configs(oracle, annotators, edit_tuples, mismatch_report, batch, config):
    merge, lev = config
    origs = [" ".join(o) for o, _ in batch]
    cors = [" ".join(c) for _, c in batch]
    _compare(oracle, edit_tuples, mismatch_report, annotators(merge, lev), origs, cors, merge, lev, False)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=mutated_batch(8), config=st.sampled_from([("rules", False)] * 4 + OTHER_CONFIGS))
def test_mutated_raw_text_tokenise(oracle, annotators, edit_tuples, mismatch_report, batch, config):
    merge, lev = config
    origs = [detokenise(o) for o, _ in batch]
    cors = [detokenise(c) for _, c in batch]
    _compare(oracle, edit_tuples, mismatch_report, annotators(merge, lev, True), origs, cors, merge, lev, True)


def test_mutation_pool_is_real_text():
    assert len(SENTS) >= 300
    assert len(VOCAB) >= 1000
    if SHARED_GECTOR_OP.is_file():
        assert len(SENTS) > 1500


# --- kernels vs rapidfuzz ----------------------------------------------------------------------------------------------

token_text = st.one_of(
    st.text(max_size=20),                                                  # arbitrary unicode, including empty
    st.text(alphabet="aAbB\u00e9\u00c9\U0001F600\U0001D400-'", max_size=12),     # small alphabet: long common subsequences
    st.text(alphabet=st.characters(min_codepoint=0x10000), max_size=8),    # non-BMP only
    st.text(alphabet="abc\U0001F600", min_size=100, max_size=300),         # long (several 64-bit words)
    st.text(alphabet="ab\u00e9", min_size=60, max_size=70),                # around the 64-character word size
)


def text_sent(texts) -> Sent:
    n = len(texts)
    return Sent(np.zeros((n, 7), dtype=np.uint64), list(texts), [True] * n, [t.lower() for t in texts],
                ["NN"] * n, ["dep"] * n)


@settings(max_examples=400, deadline=None)
@given(left=st.lists(token_text, min_size=1, max_size=4), right=st.lists(token_text, min_size=1, max_size=4),
       data=st.data())
def test_indel_distance_equals_rapidfuzz(left, right, data):
    i = data.draw(st.integers(0, len(left) - 1))
    j = data.draw(st.integers(0, len(right) - 1))
    got = indel_distance(text_sent(left), i, text_sent(right), j)
    assert got == Indel.normalized_distance(left[i], right[j])


@settings(max_examples=400, deadline=None)
@given(a=token_text, b=token_text)
def test_levenshtein_normalized_similarity_equals_rapidfuzz(a, b):
    assert levenshtein_normalized_similarity(a, b) == Levenshtein.normalized_similarity(a, b)


# --- alignment kernel vs errant's Alignment on synthetic tokens ----------------------------------------------------------

SYN_TOKENS = [
    ("the", "the", sym.DET), ("The", "the", sym.DET), ("a", "a", sym.DET), ("an", "an", sym.DET),
    ("cat", "cat", sym.NOUN), ("cats", "cat", sym.NOUN), ("Cat", "cat", sym.NOUN), ("mat", "mat", sym.NOUN),
    ("sat", "sit", sym.VERB), ("sits", "sit", sym.VERB), ("sit", "sit", sym.VERB), ("is", "be", sym.AUX),
    ("'s", "be", sym.AUX), ("was", "be", sym.AUX), ("on", "on", sym.ADP), ("in", "in", sym.ADP),
    ("quick", "quick", sym.ADJ), ("quickly", "quickly", sym.ADV), (".", ".", sym.PUNCT), (",", ",", sym.PUNCT),
    ("ab", "a", sym.NOUN), ("ac", "a", sym.NOUN), ("he", "he", sym.PRON), ("He", "he", sym.PRON),
    ("run", "run", sym.VERB), ("run", "run", sym.NOUN), ("x", "x", sym.X), ("café", "café", sym.NOUN),
]
_SYN_IDS: dict[str, int] = {}


def _sid(s):
    return _SYN_IDS.setdefault(s, 9_000_000 + len(_SYN_IDS))


def syn_sent(toks) -> Sent:
    rows = [[_sid(t), _sid(t.lower()), _sid(lem), int(pos), _sid("TAG"), _sid("dep"), 0] for t, lem, pos in toks]
    return Sent(np.array(rows, dtype=np.uint64).reshape(len(toks), 7), [t for t, _, _ in toks], [True] * len(toks),
                [t.lower() for t, _, _ in toks], ["TAG"] * len(toks), ["dep"] * len(toks))


def syn_errant(toks):
    return [SimpleNamespace(text=t, orth=_sid(t), lower=_sid(t.lower()), lemma=_sid(lem), pos=int(pos))
            for t, lem, pos in toks]


@st.composite
def syn_pair(draw):
    tokens = st.sampled_from(SYN_TOKENS)
    orig = draw(st.lists(tokens, max_size=9))
    how = draw(st.sampled_from(("independent", "permutation", "edited")))
    if how == "independent":
        cor = draw(st.lists(tokens, max_size=9))
    elif how == "permutation":
        cor = list(draw(st.permutations(orig)))
    else:
        cor = list(orig)
        for _ in range(draw(st.integers(1, 3))):
            k = draw(st.integers(0, len(cor)))
            op = draw(st.sampled_from(("ins", "del", "sub", "swap")))
            if op == "ins" or not cor:
                cor.insert(k, draw(tokens))
            elif op == "del":
                del cor[min(k, len(cor) - 1)]
            elif op == "sub":
                cor[min(k, len(cor) - 1)] = draw(tokens)
            elif len(cor) >= 2:
                k = min(k, len(cor) - 2)
                cor[k], cor[k + 1] = cor[k + 1], cor[k]
    return orig, cor


@settings(max_examples=400, deadline=None)
@given(pair=syn_pair(), lev=st.booleans())
def test_alignment_equals_errant_on_synthetic_tokens(pair, lev):
    orig, cor = pair
    o_sent, c_sent = syn_sent(orig), syn_sent(cor)
    al = Alignment(syn_errant(orig), syn_errant(cor), lev)
    assert alignment(o_sent, c_sent, lev) == al.align_seq
    for i, ot in enumerate(al.orig):
        for j, ct in enumerate(al.cor):
            assert substitution_cost(o_sent, i, c_sent, j) == al.get_sub_cost(ot, ct)


# random token texts (ASCII and not, around and beyond 64 characters): the alignment's own substitution costs (which the
# kernel may compute differently from substitution_cost()) decide between alignments, and errant decides the same way
syn_text = st.one_of(
    st.text(alphabet="abcAB", min_size=1, max_size=8),
    st.text(alphabet="ab\u00e9\U0001F600-'", min_size=1, max_size=8),
    st.text(alphabet="abc\u00e9", min_size=60, max_size=70),
    st.text(alphabet="ab", min_size=120, max_size=140),
)
syn_random_token = st.tuples(syn_text, st.sampled_from(("l1", "l2")),
                             st.sampled_from((sym.NOUN, sym.VERB, sym.DET, sym.ADJ)))


@settings(max_examples=300, deadline=None)
@given(orig=st.lists(syn_random_token, max_size=6), cor=st.lists(syn_random_token, max_size=6), lev=st.booleans(),
       data=st.data())
def test_alignment_equals_errant_on_random_token_texts(orig, cor, lev, data):
    if orig and cor and data.draw(st.booleans()):
        cor = cor + [orig[data.draw(st.integers(0, len(orig) - 1))]]   # give the alignment a match to find
    al = Alignment(syn_errant(orig), syn_errant(cor), lev)
    assert alignment(syn_sent(orig), syn_sent(cor), lev) == al.align_seq


@settings(max_examples=300, deadline=None)
@given(a=syn_text, b=syn_text, c=syn_text)
def test_alignment_choice_follows_char_cost(a, b, c):
    """o = [a], c = [b, c], same lemma and POS: C12 = min(sub 1 + Indel(a, c), ins Indel(a, b) + 1, del 3), the
    substitution winning ties; so a aligns with c exactly when Indel(a, c) <= Indel(a, b), as computed inside align."""
    assume(len({a.lower(), b.lower(), c.lower()}) == 3)
    orig = [(a, "l", sym.NOUN)]
    cor = [(b, "l", sym.NOUN), (c, "l", sym.NOUN)]
    got = alignment(syn_sent(orig), syn_sent(cor), False)
    assert got == Alignment(syn_errant(orig), syn_errant(cor), False).align_seq
    if 1 + Indel.normalized_distance(a, c) <= Indel.normalized_distance(a, b) + 1:
        assert got == [("I", 0, 0, 0, 1), ("S", 0, 1, 1, 2)]
    else:
        assert got == [("S", 0, 1, 0, 1), ("I", 1, 1, 1, 2)]
