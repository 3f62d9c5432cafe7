"""Text-overlap metrics on character tokens: BLEU, METEOR and ROUGE-1/2/L, as the EXCGEC evaluator computes them
for edit descriptions (NLTK ``sentence_bleu`` and ``meteor_score``, ``rouge_chinese``).

Every function takes two lists of single-character tokens (peet_fast.excgec.tokenize makes them), so n-grams are
substrings. The metrics are implemented here (bit-parallel LCS, n-gram counting) to be fast, and reproduce those
libraries' numbers exactly (the tests check them against the libraries when installed). METEOR's WordNet synonym
stage is reproduced without WordNet: with character tokens only single characters can match, and WordNet 3.0 links
exactly three pairs of lower-case single characters (``SINGLE_CHAR_SYNONYMS``), so that table replaces the corpus."""
from __future__ import annotations

import math
import sys
from typing import Sequence

# WordNet 3.0 synonyms between single lower-case characters, as NLTK's METEOR sees them: for every code point c,
# t = c.lower(); the lemma names (without "_") of wordnet.synsets(t) that are themselves some c'.lower(), other than
# t. Derived once by running exactly that over all 1.1M code points with NLTK 3.10 and the WordNet 3.0 corpus.
SINGLE_CHAR_SYNONYMS: dict[str, tuple[str, ...]] = {
    "1": ("i",), "i": ("1",), "5": ("v",), "v": ("5",), "k": ("m",), "m": ("k",),
}

_LOG_FLOAT_MIN = math.log(sys.float_info.min)   # NLTK's method0 "no smoothing" value for a zero n-gram precision


def _ngram_stats(hs: str, rs: str, n: int) -> tuple[int, int, int, int]:
    """For the n-grams (substrings) of hs and rs: NLTK's clipped matches (sum over hyp n-grams g of min(count in
    hs, count in rs)), then rouge_chinese's set sizes: distinct hyp n-grams, distinct ref n-grams, distinct shared."""
    ref_counts: dict[str, int] = {}
    get = ref_counts.get
    for i in range(len(rs) - n + 1):
        g = rs[i:i + n]
        ref_counts[g] = get(g, 0) + 1
    hyp_counts: dict[str, int] = {}
    get = hyp_counts.get
    for i in range(len(hs) - n + 1):
        g = hs[i:i + n]
        hyp_counts[g] = get(g, 0) + 1
    clipped = shared = 0
    get = ref_counts.get
    for g, c in hyp_counts.items():
        rc = get(g)
        if rc:
            shared += 1
            clipped += c if c < rc else rc
    return clipped, len(hyp_counts), len(ref_counts), shared


def _bleu(hs: str, rs: str, stats: Sequence[tuple[int, int, int, int]]) -> float:
    logs = []
    for n in range(1, 5):
        num = (stats[n - 1] if n <= len(stats) else _ngram_stats(hs, rs, n))[0]
        if n == 1 and num == 0:
            return 0.0
        logs.append(0.25 * (math.log(num / max(1, len(hs) - n + 1)) if num else _LOG_FLOAT_MIN))
    h, r = len(hs), len(rs)
    bp = 1.0 if h > r else (0.0 if h == 0 else math.exp(1 - r / h))
    return bp * math.exp(math.fsum(logs))


def _chars(tokens: Sequence[str]) -> str:
    text = "".join(tokens)
    if len(text) != len(tokens):
        raise ValueError("takes single-character tokens (see excgec.tokenize)")
    return text


def bleu(hyp: Sequence[str], ref: Sequence[str]) -> float:
    """NLTK's sentence_bleu(references=[ref], hypothesis=hyp): 4-gram, uniform weights, no smoothing (a zero
    precision above unigrams counts as sys.float_info.min, as NLTK's method0), closest-length brevity penalty.
    Tokens are single characters (see excgec.tokenize), so n-grams are substrings."""
    return _bleu(_chars(hyp), _chars(ref), ())


def meteor(hyp: Sequence[str], ref: Sequence[str], alpha: float = 0.9, beta: float = 3.0,
           gamma: float = 0.5) -> float:
    """NLTK's meteor_score([ref], hyp) on character tokens: lower-casing, exact matches, Porter stems (identical to
    the tokens for one character), WordNet synonyms (SINGLE_CHAR_SYNONYMS), fragmentation penalty."""
    h = [t.lower() for t in hyp]
    r = [t.lower() for t in ref]
    if not h or not r:
        return 0.0
    positions: dict[str, list[int]] = {}
    for j, w in enumerate(r):
        positions.setdefault(w, []).append(j)
    matches: list[tuple[int, int]] = []
    left = []
    for i in range(len(h) - 1, -1, -1):            # exact stage, from the last hyp token, to the last free ref token
        pos = positions.get(h[i])
        if pos:
            matches.append((i, pos.pop()))
        else:
            left.append(i)
    # the stem stage matches nothing more: single-character stems are the tokens themselves
    for i in left:                                  # synonym stage (``left`` is already last-first)
        best_j, best_w = -1, None
        for w in SINGLE_CHAR_SYNONYMS.get(h[i], ()):
            pos = positions.get(w)
            if pos and pos[-1] > best_j:
                best_j, best_w = pos[-1], w
        if best_w is not None:
            positions[best_w].pop()
            matches.append((i, best_j))
    m = len(matches)
    if m == 0:
        return 0.0
    matches.sort()
    chunks = 1
    for (i0, j0), (i1, j1) in zip(matches, matches[1:]):
        if not (i1 == i0 + 1 and j1 == j0 + 1):
            chunks += 1
    precision = m / len(h)
    recall = m / len(r)
    fmean = (precision * recall) / (alpha * precision + (1 - alpha) * recall)
    penalty = gamma * (chunks / m) ** beta
    return (1 - penalty) * fmean


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of a longest common subsequence (bit-parallel, Allison-Dix / Hyyro)."""
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for j, c in enumerate(b):
        masks[c] = masks.get(c, 0) | (1 << j)
    full = (1 << len(b)) - 1
    v = full
    for c in a:
        m = masks.get(c)
        if m:
            u = v & m
            v = ((v + u) | (v - u)) & full
    return len(b) - bin(v).count("1")


def _f_rouge(overlap: int, hyp_count: int, ref_count: int) -> float:
    p = overlap / hyp_count if hyp_count else 0.0
    r = overlap / ref_count if ref_count else 0.0
    return 2.0 * ((p * r) / (p + r + 1e-8))


def _rouge(hs: str, rs: str, s1: tuple, s2: tuple) -> tuple[float, float, float]:
    if not hs or not rs:
        return 0.0, 0.0, 0.0
    llcs = lcs_length(rs, hs)
    r_lcs, p_lcs = llcs / len(rs), llcs / len(hs)
    return (_f_rouge(s1[3], s1[1], s1[2]), _f_rouge(s2[3], s2[1], s2[2]),
            2.0 * ((p_lcs * r_lcs) / (p_lcs + r_lcs + 1e-8)))


def rouge(hyp: Sequence[str], ref: Sequence[str]) -> tuple[float, float, float]:
    """rouge_chinese's Rouge().get_scores(" ".join(hyp), " ".join(ref)) F values (rouge-1, rouge-2, rouge-l): n-gram
    *sets* (exclusive counting), LCS over the whole token sequences, F = 2PR / (P + R + 1e-8). Empty input: 0 (the
    library raises)."""
    hs, rs = _chars(hyp), _chars(ref)
    return _rouge(hs, rs, _ngram_stats(hs, rs, 1), _ngram_stats(hs, rs, 2))


def pair_scores(hyp: Sequence[str], ref: Sequence[str]) -> tuple[float, float, float, float, float]:
    """(BLEU, METEOR, ROUGE-1 F, ROUGE-2 F, ROUGE-L F) of one pair of character-token lists, sharing the n-gram
    counts between BLEU and ROUGE."""
    hs, rs = _chars(hyp), _chars(ref)
    s1, s2 = _ngram_stats(hs, rs, 1), _ngram_stats(hs, rs, 2)
    return (_bleu(hs, rs, (s1, s2)), meteor(hyp, ref), *_rouge(hs, rs, s1, s2))
