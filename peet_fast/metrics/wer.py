"""Word error rate against the closest reference.

WER of a sentence: word-level Levenshtein distance (unit costs, whitespace tokens, case-sensitive) from the
system's sentence to the closest reference (smallest distance; the first reference on ties) divided by that
reference's length in words, ``max(1, len)``, so an empty reference counts as length 1 (an empty hypothesis against
an empty reference is 0). A system's WER is the mean of its sentence WERs (every line counts), not total edits over
total reference words. The distance is rapidfuzz's (imported when used)."""
from __future__ import annotations

from typing import Sequence

import numpy as np


def word_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Word-level Levenshtein distance (insert, delete, substitute: cost 1 each) between two token lists."""
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance(a, b)


def sentence_wer(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
    """Per-sentence WER of every system against the closest reference: ((S, n) float64 WER, (S, n) int32 index of
    the closest reference, the first on ties)."""
    from rapidfuzz.distance import Levenshtein

    S, R = len(hyps), len(refs)
    n = len(refs[0]) if refs else 0
    wer = np.empty((S, n), dtype=np.float64)
    best_ref = np.empty((S, n), dtype=np.int32)
    dist = Levenshtein.distance
    for i in range(n):
        ref_toks = [refs[r][i].split() for r in range(R)]
        cache: dict[str, tuple[float, int]] = {}
        for s in range(S):
            h = hyps[s][i]
            got = cache.get(h)
            if got is None:
                toks = h.split()
                d = [dist(toks, rt) for rt in ref_toks]
                k = int(np.argmin(d))
                got = cache[h] = (d[k] / max(1, len(ref_toks[k])), k)
            wer[s, i], best_ref[s, i] = got
    return wer, best_ref
