"""The character distances of ext/chardist.pyx (LCS behind Indel, Levenshtein): hand-computed cases, the plain
dynamic programmes they replaced, rapidfuzz (what errant calls) on random strings with shared prefixes and suffixes
and across the 64-bit word boundaries, and long tokens (a quadratic kernel would not finish these tests)."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from peet_fast._ext.align import substitution_cost
from peet_fast._ext.chardist import lcs, levenshtein
from peet_fast._ext.classify import levenshtein_normalized_similarity
from peet_fast._ext.tokens import Sent, indel_distance
from rapidfuzz.distance import Indel, LCSseq, Levenshtein


def dp_lcs(a: str, b: str) -> int:
    """Longest common subsequence, the one-row dynamic programme the kernel used before."""
    row = [0] * (len(b) + 1)
    for ca in a:
        diag = 0
        for y in range(1, len(b) + 1):
            diag, row[y] = row[y], diag + 1 if ca == b[y - 1] else max(row[y - 1], row[y])
    return row[-1]


def dp_levenshtein(a: str, b: str) -> int:
    """Unit-weight Levenshtein distance, the one-row dynamic programme the classifier used before."""
    row = list(range(len(b) + 1))
    for x, ca in enumerate(a):
        diag, row[0] = row[0], x + 1
        for y in range(1, len(b) + 1):
            diag, row[y] = row[y], diag if ca == b[y - 1] else 1 + min(diag, row[y], row[y - 1])
    return row[-1]


def one_token(text: str, lower_id: int = 2) -> Sent:
    """A one-token Sent: a NOUN with lemma id 3 and the given LOWER id (only the text matters to the character
    distance; the substitution cost is 0 when the LOWER ids are equal)."""
    row = [1, lower_id, 3, 92, 4, 5, 0]
    return Sent(np.array([row], dtype=np.uint64), [text], [True], [text.lower()], ["NN"], ["dep"])


# --- hand-computed ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("a, b, n_lcs, n_lev", [
    ("", "", 0, 0),
    ("", "abc", 0, 3),
    ("kitten", "sitting", 4, 3),          # LCS "ittn"; k->s, e->i, +g
    ("flaw", "lawn", 3, 2),               # LCS "law"; -f, +n
    ("abc", "cba", 1, 2),
    ("ab\U0001F600c", "a\U0001F600bc", 3, 2),  # astral code points count as one character
    ("x" * 100 + "a" + "y" * 100, "x" * 100 + "b" + "y" * 100, 200, 1),   # only the middle differs
    ("a" * 65, "a" * 64, 64, 1),          # all of the shorter string is a common prefix
    ("ab" * 70, "ba" * 70, 139, 2),       # nothing in common at either end; 140 characters: three words
])
def test_hand_computed(a, b, n_lcs, n_lev):
    assert lcs(a, b) == lcs(b, a) == n_lcs
    assert levenshtein(a, b) == levenshtein(b, a) == n_lev


# --- random strings: the old dynamic programmes and rapidfuzz ---------------------------------------------------------

ALPHABETS = ["ab", "abcdefghij", "a\u00e9\u20ac\U0001F600\x00b", "".join(map(chr, range(100, 400)))]
affix = st.sampled_from(ALPHABETS).flatmap(lambda al: st.text(alphabet=al, max_size=80))


@st.composite
def string_pairs(draw, max_size: int):
    """Two strings over one alphabet (small ones give long common subsequences), often with a shared prefix and suffix,
    of lengths around the 64-character word."""
    alphabet = draw(st.sampled_from(ALPHABETS))
    size = st.one_of(st.integers(0, 70), st.integers(120, 140), st.integers(0, max_size))
    size = size.map(lambda k: min(k, max_size))
    a = draw(st.text(alphabet=alphabet, min_size=draw(size), max_size=max_size))
    b = draw(st.text(alphabet=alphabet, min_size=draw(size), max_size=max_size))
    pre, suf = draw(affix), draw(affix)
    return pre + a + suf, pre + b + suf


@settings(max_examples=200, deadline=None)
@given(pair=string_pairs(max_size=100))
def test_equals_old_dynamic_programmes(pair):
    a, b = pair
    assert lcs(a, b) == dp_lcs(a, b)
    assert levenshtein(a, b) == dp_levenshtein(a, b)


@settings(max_examples=300, deadline=None)
@given(pair=string_pairs(max_size=700))
def test_equals_rapidfuzz(pair):
    a, b = pair
    assert lcs(a, b) == LCSseq.similarity(a, b)
    assert levenshtein(a, b) == Levenshtein.distance(a, b)
    assert indel_distance(one_token(a), 0, one_token(b), 0) == Indel.normalized_distance(a, b)
    assert levenshtein_normalized_similarity(a, b) == Levenshtein.normalized_similarity(a, b)


# --- long tokens ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("alphabet", ["abcdefghij", "a\u00e9\u20ac\U0001F600bcdef"])
def test_long_random_pair_with_different_ends_equals_rapidfuzz(alphabet):
    """Nothing to strip: every 64-bit word of a 5,000-character pattern is used, for ASCII and wider code points."""
    rng = random.Random(5)
    a = "".join(rng.choice(alphabet) for _ in range(5000))
    b = "Z" + "".join(c if rng.random() > 0.05 else rng.choice(alphabet) for c in a[1:-1]) + "Y"
    assert lcs(a, b) == LCSseq.similarity(a, b)
    assert levenshtein(a, b) == Levenshtein.distance(a, b)


def test_million_character_token_with_one_change():
    """The pathological pair of issue 12: exact results, through the Sent, aligner and classifier entry points."""
    rng = random.Random(1)
    n = 1_000_000
    a = "".join(rng.choice("abcdefghij") for _ in range(n))
    b = a[: n // 2] + "z" + a[n // 2 + 1:]
    assert lcs(a, b) == n - 1
    assert levenshtein(a, b) == 1
    assert indel_distance(one_token(a), 0, one_token(b), 0) == 2 / (2 * n)
    assert levenshtein_normalized_similarity(a, b) == 1.0 - 1 / n
    # different LOWER ids, the same lemma and POS: the cost is the character distance alone
    assert substitution_cost(one_token(a, 2), 0, one_token(b, 6), 0) == (0.0 + 0.0) + 2 / (2 * n)
