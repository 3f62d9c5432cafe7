# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""GREEN's n-gram counts (Koyama et al. 2024, as gotutiyan/gec-metrics' green.py counts them) and its score.

For each sentence the tokens of the source, the hypothesis and every reference are pooled; the n-grams of the pool
are ranked exactly (no hashing): the rank of the n-gram starting at a position is the dense rank of the pair (rank of
its (n-1)-gram there, rank of the token n - 1 further), found by sorting, so two n-grams get one rank exactly when
they are the same token sequence. Counting each rank in the source (ms), the hypothesis (mh) and a reference (mr)
gives, per order n and reference, GREEN's

    TP = TD + TI + TK = max(ms - max(mr, mh), 0) + max(min(mr, mh) - ms, 0) + min(ms, mh, mr)
    FP = OD + OI      = max(min(ms, mr) - mh, 0) + max(mh - max(ms, mr), 0)
    FN = UD + UI      = max(min(ms, mh) - mr, 0) + max(mr - max(ms, mh), 0)

summed over the distinct n-grams. green_scores turns (TP, FP, FN) per order into the score with gec-metrics' float
operations (libm log/exp, the same order of additions), so the figures are equal to the last bit."""
from libc.math cimport exp, log, pow
from libc.stdint cimport int32_t, int64_t, uint64_t
from libcpp.algorithm cimport sort
from libcpp.vector cimport vector

import numpy as np

cdef int POS_BITS = 21                      # a sentence's pool (all its texts) holds fewer than 2**21 tokens
cdef uint64_t POS_MASK = (1 << 21) - 1


cdef inline int64_t _max(int64_t a, int64_t b) noexcept nogil:
    return a if a > b else b


cdef inline int64_t _min(int64_t a, int64_t b) noexcept nogil:
    return a if a < b else b


def green_counts(const int32_t[::1] src_tok, const int64_t[::1] src_off, const int32_t[::1] hyp_tok,
                 const int64_t[::1] hyp_off, const int32_t[::1] ref_tok, const int64_t[:, ::1] ref_off, int max_n):
    """(n, R, max_n, 3) int64: per sentence, reference and order (1..max_n) GREEN's TP, FP, FN. Texts are token ids
    (>= 0) concatenated, sentence i of a text being tok[off[i]:off[i + 1]]; ref_off has one row per reference."""
    cdef Py_ssize_t n = src_off.shape[0] - 1, R = ref_off.shape[0], T = R + 2
    if hyp_off.shape[0] != n + 1 or ref_off.shape[1] != n + 1:
        raise ValueError("the texts differ in sentence count")
    if max_n < 1:
        raise ValueError("max_n must be at least 1")
    out_arr = np.zeros((n, R, max_n, 3), dtype=np.int64)
    cdef int64_t[:, :, :, ::1] out = out_arr
    cdef vector[int32_t] tok, text_of, left, rank, rank1, pos
    cdef vector[uint64_t] keyed
    cdef vector[int64_t] cnt
    cdef Py_ssize_t i, t, P, k, j, p, g, start, m, q, r
    cdef int64_t b, e, ms, mh, mr, c
    cdef uint64_t key, prev
    cnt.assign(T, 0)
    with nogil:
        for i in range(n):
            tok.clear()
            text_of.clear()
            left.clear()
            for t in range(T):
                if t == 0:
                    b, e = src_off[i], src_off[i + 1]
                elif t == 1:
                    b, e = hyp_off[i], hyp_off[i + 1]
                else:
                    b, e = ref_off[t - 2, i], ref_off[t - 2, i + 1]
                for j in range(b, e):
                    tok.push_back(src_tok[j] if t == 0 else (hyp_tok[j] if t == 1 else ref_tok[j]))
                    text_of.push_back(<int32_t>t)
                    left.push_back(<int32_t>(e - j))
            P = <Py_ssize_t>tok.size()
            if P == 0:
                continue
            if P > <Py_ssize_t>POS_MASK:
                with gil:
                    raise ValueError(f"sentence {i}: too many tokens ({P}) in its source, hypothesis and references")
            rank.assign(P, 0)
            rank1.assign(P, 0)
            for k in range(1, max_n + 1):
                keyed.clear()
                for p in range(P):
                    if left[p] >= k:
                        if k == 1:
                            key = <uint64_t>tok[p]
                        else:
                            key = <uint64_t>rank[p] * <uint64_t>P + <uint64_t>rank1[p + k - 1]
                        keyed.push_back((key << POS_BITS) | <uint64_t>p)
                m = <Py_ssize_t>keyed.size()
                if m == 0:
                    break
                sort(keyed.begin(), keyed.end())
                g = -1
                start = 0
                for q in range(m + 1):
                    if q < m:
                        key = keyed[q] >> POS_BITS
                    if q == m or q == 0 or key != prev:
                        if q > 0:                           # close the group start..q-1
                            for j in range(start, q):
                                cnt[text_of[keyed[j] & POS_MASK]] += 1
                            ms, mh = cnt[0], cnt[1]
                            for r in range(R):
                                mr = cnt[2 + r]
                                out[i, r, k - 1, 0] += (_max(ms - _max(mr, mh), 0) + _max(_min(mr, mh) - ms, 0)
                                                        + _min(ms, _min(mh, mr)))
                                out[i, r, k - 1, 1] += _max(_min(ms, mr) - mh, 0) + _max(mh - _max(ms, mr), 0)
                                out[i, r, k - 1, 2] += _max(_min(ms, mh) - mr, 0) + _max(mr - _max(ms, mh), 0)
                            for j in range(start, q):
                                cnt[text_of[keyed[j] & POS_MASK]] = 0
                        if q < m:
                            g += 1
                            start = q
                            prev = key
                    if q < m:
                        p = <Py_ssize_t>(keyed[q] & POS_MASK)
                        rank[p] = <int32_t>g
                        if k == 1:
                            rank1[p] = <int32_t>g
    return out_arr


cdef double _score(const double* c, Py_ssize_t N, double beta2) noexcept nogil:
    """gec-metrics' GREEN.aggregate_score of (TP, FP, FN) x N orders: geometric means of the precisions and of the
    recalls (0 when one is 0; a precision is 1 when FP = 0, a recall 1 when FN = 0), then F_beta."""
    cdef Py_ssize_t k
    cdef double sp = 0.0, sr = 0.0, p, rc, prec, rec
    cdef bint zp = False, zr = False
    for k in range(N):
        p = 1.0 if c[3 * k + 1] == 0 else c[3 * k] / (c[3 * k] + c[3 * k + 1])
        rc = 1.0 if c[3 * k + 2] == 0 else c[3 * k] / (c[3 * k] + c[3 * k + 2])
        if p == 0:
            zp = True
        else:
            sp += log(p)
        if rc == 0:
            zr = True
        else:
            sr += log(rc)
    prec = 0.0 if zp else exp(sp / <double>N)
    rec = 0.0 if zr else exp(sr / <double>N)
    if prec + rec == 0:
        return 0.0
    return ((1 + beta2) * prec * rec) / ((beta2 * prec) + rec)


def green_scores(const double[:, :, ::1] counts, double beta):
    """(m,) float64: the GREEN score of each row of counts (m, N, 3) (TP, FP, FN per order)."""
    cdef Py_ssize_t m = counts.shape[0], N = counts.shape[1], i
    if counts.shape[2] != 3:
        raise ValueError("counts must have shape (m, N, 3)")
    out_arr = np.empty(m, dtype=np.float64)
    cdef double[::1] out = out_arr
    cdef double beta2 = pow(beta, 2.0)
    if N == 0:
        raise ValueError("counts need at least one order")
    with nogil:
        for i in range(m):
            out[i] = _score(&counts[i, 0, 0], N, beta2)
    return out_arr
