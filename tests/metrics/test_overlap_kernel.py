"""The compiled overlap statistics (peet_fast._ext.overlap) against the previous pure-Python implementation of BLEU,
METEOR and ROUGE on character tokens, kept here as the reference: the same values exactly (==), not merely close."""
from __future__ import annotations

import math
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from peet_fast.metrics import overlap as O

_LOG_FLOAT_MIN = math.log(sys.float_info.min)


# --- the reference: peet_fast.metrics.overlap before the kernel ----------------------------------------------------

def ref_ngram_stats(hs: str, rs: str, n: int) -> tuple[int, int, int, int]:
    """Clipped matches, distinct hyp, distinct ref, distinct shared n-grams (substrings)."""
    ref_counts: dict[str, int] = {}
    for i in range(len(rs) - n + 1):
        ref_counts[rs[i:i + n]] = ref_counts.get(rs[i:i + n], 0) + 1
    hyp_counts: dict[str, int] = {}
    for i in range(len(hs) - n + 1):
        hyp_counts[hs[i:i + n]] = hyp_counts.get(hs[i:i + n], 0) + 1
    clipped = shared = 0
    for g, c in hyp_counts.items():
        rc = ref_counts.get(g)
        if rc:
            shared += 1
            clipped += min(c, rc)
    return clipped, len(hyp_counts), len(ref_counts), shared


def ref_bleu(hs: str, rs: str) -> float:
    logs = []
    for n in range(1, 5):
        num = ref_ngram_stats(hs, rs, n)[0]
        if n == 1 and num == 0:
            return 0.0
        logs.append(0.25 * (math.log(num / max(1, len(hs) - n + 1)) if num else _LOG_FLOAT_MIN))
    h, r = len(hs), len(rs)
    bp = 1.0 if h > r else (0.0 if h == 0 else math.exp(1 - r / h))
    return bp * math.exp(math.fsum(logs))


def ref_meteor_alignment(hs: str, rs: str) -> tuple[int, int]:
    """(matches, chunks) of NLTK's METEOR on the characters of hs and rs, each lower-cased on its own."""
    h = [t.lower() for t in hs]
    r = [t.lower() for t in rs]
    positions: dict[str, list[int]] = {}
    for j, w in enumerate(r):
        positions.setdefault(w, []).append(j)
    matches, left = [], []
    for i in range(len(h) - 1, -1, -1):
        pos = positions.get(h[i])
        if pos:
            matches.append((i, pos.pop()))
        else:
            left.append(i)
    for i in left:
        best_j, best_w = -1, None
        for w in O.SINGLE_CHAR_SYNONYMS.get(h[i], ()):
            pos = positions.get(w)
            if pos and pos[-1] > best_j:
                best_j, best_w = pos[-1], w
        if best_w is not None:
            positions[best_w].pop()
            matches.append((i, best_j))
    matches.sort()
    chunks = 1 if matches else 0
    for (i0, j0), (i1, j1) in zip(matches, matches[1:]):
        if not (i1 == i0 + 1 and j1 == j0 + 1):
            chunks += 1
    return len(matches), chunks


def ref_meteor(hs: str, rs: str) -> float:
    if not hs or not rs:
        return 0.0
    m, chunks = ref_meteor_alignment(hs, rs)
    if m == 0:
        return 0.0
    alpha, beta, gamma = 0.9, 3.0, 0.5
    precision, recall = m / len(hs), m / len(rs)
    fmean = (precision * recall) / (alpha * precision + (1 - alpha) * recall)
    return (1 - gamma * (chunks / m) ** beta) * fmean


def ref_lcs(a: str, b: str) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a)):
        for j in range(len(b)):
            table[i + 1][j + 1] = table[i][j] + 1 if a[i] == b[j] else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


def ref_rouge(hs: str, rs: str) -> tuple[float, float, float]:
    if not hs or not rs:
        return 0.0, 0.0, 0.0

    def f(overlap, hc, rc):
        p = overlap / hc if hc else 0.0
        r = overlap / rc if rc else 0.0
        return 2.0 * ((p * r) / (p + r + 1e-8))

    s1, s2 = ref_ngram_stats(hs, rs, 1), ref_ngram_stats(hs, rs, 2)
    llcs = ref_lcs(rs, hs)
    r_lcs, p_lcs = llcs / len(rs), llcs / len(hs)
    return f(s1[3], s1[1], s1[2]), f(s2[3], s2[1], s2[2]), 2.0 * ((p_lcs * r_lcs) / (p_lcs + r_lcs + 1e-8))


def ref_pair_scores(hs: str, rs: str) -> tuple[float, ...]:
    return (ref_bleu(hs, rs), ref_meteor(hs, rs), *ref_rouge(hs, rs))


# --- properties ----------------------------------------------------------------------------------------------------

# a small alphabet (many repeated n-grams), the WordNet synonym characters in both cases, characters whose lower()
# is longer than one character (İ -> i̇) or depends on context (Σ), and astral code points
ALPHABET = list("的了是我你他一不。，abAB1iI5vVkKmM") + ["İ", "Σ", "σ", "ς", "ẞ", "ß", "\U00020000", "\U0001F600"]
TEXT = st.text(alphabet=st.sampled_from(ALPHABET), max_size=40)
LONG = st.text(alphabet=st.sampled_from(list("abc的了")), min_size=60, max_size=300)


def _kernel_stats(hs: str, rs: str) -> tuple[int, ...]:
    return O._stats([(hs, rs)])[0]


@settings(max_examples=400, deadline=None)
@given(TEXT, TEXT)
def test_kernel_statistics_equal_the_reference(hs, rs):
    got = _kernel_stats(hs, rs)
    assert got[:2] == (len(hs), len(rs))
    assert got[2:6] == tuple(ref_ngram_stats(hs, rs, n)[0] for n in range(1, 5))
    assert got[6:9] == ref_ngram_stats(hs, rs, 1)[1:]
    assert got[9:12] == ref_ngram_stats(hs, rs, 2)[1:]
    assert got[12] == ref_lcs(hs, rs)
    assert got[13:] == (ref_meteor_alignment(hs, rs) if hs and rs else (0, 0))


@settings(max_examples=400, deadline=None)
@given(TEXT, TEXT)
def test_scores_equal_the_reference_exactly(hs, rs):
    assert O.pair_scores(list(hs), list(rs)) == ref_pair_scores(hs, rs)
    assert O.bleu(list(hs), list(rs)) == ref_bleu(hs, rs)
    assert O.meteor(list(hs), list(rs)) == ref_meteor(hs, rs)
    assert O.rouge(list(hs), list(rs)) == ref_rouge(hs, rs)


@settings(max_examples=60, deadline=None)
@given(LONG, LONG)
def test_long_texts_over_several_lcs_words(hs, rs):
    assert O.pair_scores(list(hs), list(rs)) == ref_pair_scores(hs, rs)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT), max_size=20))
def test_batch_equals_pair_by_pair(pairs):
    assert O.pair_scores_many(pairs) == [ref_pair_scores(h, r) for h, r in pairs]


def test_hand_cases():
    # "abab" vs "ab": bigram "ab" twice in hyp, once in ref -> clipped 1; distinct hyp bigrams {ab, ba}
    st_ = _kernel_stats("abab", "ab")
    assert st_[:6] == (4, 2, 2, 1, 0, 0) and st_[9:12] == (2, 1, 1) and st_[12] == 2
    # METEOR: exact matches from the last hyp token, each to the last free equal ref token: b(3)->1, a(2)->0, one chunk
    assert st_[13:] == (2, 1)
    # "İ" lowers to two code points; it matches only itself, never "i"
    assert _kernel_stats("İ", "i")[13:] == (0, 0) and _kernel_stats("İ", "İ")[13:] == (1, 1)
    # Σ lowers to σ token by token (not to the final ς of str.lower() on the whole text)
    assert _kernel_stats("aΣ", "aσ")[13:] == (2, 1) and _kernel_stats("aΣ", "aς")[13:] == (1, 1)
    assert O.pair_scores([], []) == (0.0, 0.0, 0.0, 0.0, 0.0)


def test_lcs_length_of_token_sequences():
    assert O.lcs_length(["ab", "c", "ab"], ["c", "ab"]) == 2
    assert O.lcs_length([], ["x"]) == 0


def test_kernel_refuses_inconsistent_input():
    from peet_fast._ext.overlap import pair_stats

    with pytest.raises(ValueError, match="same length"):
        pair_stats(["a"], [], ["a"], [], {})
    with pytest.raises(ValueError, match="one code point per token"):
        pair_stats(["İ"], ["i"], ["i̇"], ["i"], {})
    with pytest.raises(ValueError, match="single characters"):
        pair_stats([], [], [], [], {"a": ("bc",)})
