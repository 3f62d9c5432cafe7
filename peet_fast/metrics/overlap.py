"""Text-overlap metrics on character tokens: BLEU, METEOR and ROUGE-1/2/L, as the EXCGEC evaluator computes them
for edit descriptions (NLTK ``sentence_bleu`` and ``meteor_score``, ``rouge_chinese``).

Every function takes two lists of single-character tokens (peet_fast.evaluation.excgec.tokenize makes them), so n-grams are
substrings. The metrics are implemented here (bit-parallel LCS, n-gram counting) to be fast, and reproduce those
libraries' numbers exactly (the tests check them against the libraries when installed). The integer statistics
(n-gram counts, LCS, METEOR's matches and chunks) come from the compiled kernel ``peet_fast._ext.overlap`` for all pairs
in one call; the float arithmetic on them is done here. METEOR's WordNet synonym
stage is reproduced without WordNet: with character tokens only single characters can match, and WordNet 3.0 links
exactly three pairs of lower-case single characters (``SINGLE_CHAR_SYNONYMS``), so that table replaces the corpus."""
from __future__ import annotations

import math
import sys
from typing import Iterable, Sequence

# WordNet 3.0 synonyms between single lower-case characters, as NLTK's METEOR sees them: for every code point c,
# t = c.lower(); the lemma names (without "_") of wordnet.synsets(t) that are themselves some c'.lower(), other than
# t. Derived once by running exactly that over all 1.1M code points with NLTK 3.10 and the WordNet 3.0 corpus.
SINGLE_CHAR_SYNONYMS: dict[str, tuple[str, ...]] = {
    "1": ("i",), "i": ("1",), "5": ("v",), "v": ("5",), "k": ("m",), "m": ("k",),
}

_LOG_FLOAT_MIN = math.log(sys.float_info.min)   # NLTK's method0 "no smoothing" value for a zero n-gram precision


def _chars(tokens: Sequence[str]) -> str:
    text = "".join(tokens)
    if len(text) != len(tokens):
        raise ValueError("takes single-character tokens (see excgec.tokenize)")
    return text


def _lowered(hs: str, rs: str) -> tuple[str, str]:
    """METEOR's tokens lower-cased one by one (``t.lower()``), one code point per token: the texts' own lower() when
    that keeps the length and no Σ is present (whose lower() depends on its context); otherwise each token's lower(),
    a token lowering to several characters replaced by a private-use code point that occurs in neither text (it
    matches only the same lowered token, and no synonym: SINGLE_CHAR_SYNONYMS holds single characters)."""
    hl, rl = hs.lower(), rs.lower()
    if len(hl) == len(hs) and len(rl) == len(rs) and "Σ" not in hs and "Σ" not in rs:
        return hl, rl
    h, r = [c.lower() for c in hs], [c.lower() for c in rs]
    taken = {t for t in h + r if len(t) == 1}
    codes: dict[str, str] = {}
    cp = 0xF0000
    for t in h + r:
        if len(t) > 1 and t not in codes:
            while chr(cp) in taken:
                cp += 1
            codes[t] = chr(cp)
            cp += 1
    return "".join(codes.get(t, t) for t in h), "".join(codes.get(t, t) for t in r)


def _stats(pairs: Iterable[tuple[str, str]]) -> list[tuple[int, ...]]:
    """The kernel's statistics (peet_fast._ext.overlap.COLUMNS) of (hyp, ref) character-string pairs."""
    from peet_fast._ext.overlap import pair_stats

    hyps, refs, hyps_low, refs_low = [], [], [], []
    for hs, rs in pairs:
        hl, rl = _lowered(hs, rs)
        hyps.append(hs)
        refs.append(rs)
        hyps_low.append(hl)
        refs_low.append(rl)
    return pair_stats(hyps, refs, hyps_low, refs_low, SINGLE_CHAR_SYNONYMS)


def _bleu(h: int, r: int, clipped: Sequence[int]) -> float:
    """NLTK's sentence BLEU from the lengths and the clipped matches of n = 1..4."""
    logs = []
    for n, num in enumerate(clipped, 1):
        if n == 1 and num == 0:
            return 0.0
        logs.append(0.25 * (math.log(num / max(1, h - n + 1)) if num else _LOG_FLOAT_MIN))
    bp = 1.0 if h > r else (0.0 if h == 0 else math.exp(1 - r / h))
    return bp * math.exp(math.fsum(logs))


def _meteor(h: int, r: int, m: int, chunks: int, alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5) -> float:
    """NLTK's METEOR from the lengths, the matches and the chunks."""
    if m == 0:
        return 0.0
    precision = m / h
    recall = m / r
    fmean = (precision * recall) / (alpha * precision + (1 - alpha) * recall)
    penalty = gamma * (chunks / m) ** beta
    return (1 - penalty) * fmean


def _f_rouge(overlap: int, hyp_count: int, ref_count: int) -> float:
    p = overlap / hyp_count if hyp_count else 0.0
    r = overlap / ref_count if ref_count else 0.0
    return 2.0 * ((p * r) / (p + r + 1e-8))


def _rouge(h: int, r: int, s1: Sequence[int], s2: Sequence[int], llcs: int) -> tuple[float, float, float]:
    """rouge_chinese's F values from the lengths, (distinct hyp, ref, shared) uni- and bigrams and the LCS."""
    if not h or not r:
        return 0.0, 0.0, 0.0
    r_lcs, p_lcs = llcs / r, llcs / h
    return (_f_rouge(s1[2], s1[0], s1[1]), _f_rouge(s2[2], s2[0], s2[1]),
            2.0 * ((p_lcs * r_lcs) / (p_lcs + r_lcs + 1e-8)))


def _scores(st: Sequence[int], alpha: float = 0.9, beta: float = 3.0,
            gamma: float = 0.5) -> tuple[float, float, float, float, float]:
    h, r = st[0], st[1]
    return (_bleu(h, r, st[2:6]), _meteor(h, r, st[13], st[14], alpha, beta, gamma),
            *_rouge(h, r, st[6:9], st[9:12], st[12]))


def bleu(hyp: Sequence[str], ref: Sequence[str]) -> float:
    """NLTK's sentence_bleu(references=[ref], hypothesis=hyp): 4-gram, uniform weights, no smoothing (a zero
    precision above unigrams counts as sys.float_info.min, as NLTK's method0), closest-length brevity penalty.
    Tokens are single characters (see excgec.tokenize), so n-grams are substrings."""
    return _scores(_stats([(_chars(hyp), _chars(ref))])[0])[0]


def meteor(hyp: Sequence[str], ref: Sequence[str], alpha: float = 0.9, beta: float = 3.0,
           gamma: float = 0.5) -> float:
    """NLTK's meteor_score([ref], hyp) on character tokens: lower-casing, exact matches, Porter stems (identical to
    the tokens for one character), WordNet synonyms (SINGLE_CHAR_SYNONYMS), fragmentation penalty."""
    return _scores(_stats([(_chars(hyp), _chars(ref))])[0], alpha, beta, gamma)[1]


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of a longest common subsequence of two token sequences (bit-parallel, Allison-Dix / Hyyro)."""
    from peet_fast._ext.chardist import lcs

    codes: dict = {}
    return lcs("".join(chr(codes.setdefault(t, len(codes))) for t in a),
               "".join(chr(codes.setdefault(t, len(codes))) for t in b))


def rouge(hyp: Sequence[str], ref: Sequence[str]) -> tuple[float, float, float]:
    """rouge_chinese's Rouge().get_scores(" ".join(hyp), " ".join(ref)) F values (rouge-1, rouge-2, rouge-l): n-gram
    *sets* (exclusive counting), LCS over the whole token sequences, F = 2PR / (P + R + 1e-8). Empty input: 0 (the
    library raises)."""
    return _scores(_stats([(_chars(hyp), _chars(ref))])[0])[2:]


def pair_scores(hyp: Sequence[str], ref: Sequence[str]) -> tuple[float, float, float, float, float]:
    """(BLEU, METEOR, ROUGE-1 F, ROUGE-2 F, ROUGE-L F) of one pair of character-token lists."""
    return _scores(_stats([(_chars(hyp), _chars(ref))])[0])


def pair_scores_many(pairs: Iterable[tuple[str, str]]) -> list[tuple[float, float, float, float, float]]:
    """pair_scores of each (hyp, ref) pair of strings, one token per character (whitespace already removed: see
    excgec.tokenize), with one kernel call for all pairs."""
    return [_scores(st) for st in _stats(pairs)]
