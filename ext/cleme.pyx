# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""CLEME's chunk partition, chunk labels and (length-weighted) counts of a corpus, in C.

The Python implementation (peet_fast.metrics.cleme.chunk_partition, peet_fast.metrics.cleme2.labels and .counts) is
the reference: this kernel computes exactly what they compute, on the same inputs (CSentence objects), for the
registry metrics' per-sentence statistics (peet_fast.metrics.cleme_metric: stats_of). tests/metrics/
test_cleme_kernel.py checks the two agree exactly on random sentences (hypothesis) and on CoNLL-14 outputs.

Per sentence, the edits of every target (hypothesis, then each kept reference) are read into integer arrays: each
target's edits sorted by source start (stably), its source-to-target token mapping (CLEME's map_parallel, overwrites
included), the pooled shared intervals (merged within merge_distance), the chunk intervals, and per target and chunk
the half-open range of its tokens (Python's slice rules: an end before the start is an empty chunk, indices clamped to
the target's length). Chunks compare by their tokens (the targets' own token objects, compared as tuples compare
them). Labels: 0 tp, 1 fp_ne, 2 fp_un, 3 fn, 4 tn.

Outside the domain this kernel covers (an edit with a negative start or an end before its start, a negative
merge_distance) it raises Unsupported and the caller uses the Python implementation."""
from cpython.object cimport PyObject, PyObject_RichCompareBool, Py_EQ
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from libc.math cimport exp
from libc.stdint cimport int32_t, int64_t
from libcpp.algorithm cimport sort
from libcpp.pair cimport pair
from libcpp.vector cimport vector

import numpy as np

cdef int64_t UNSET = -(1 << 62)

TP, FP_NE, FP_UN, FN, TN = 0, 1, 2, 3, 4
LABELS = ("tp", "fp_ne", "fp_un", "fn", "tn")


class Unsupported(ValueError):
    """A sentence outside what the kernel covers: use the Python implementation."""


cdef inline Py_ssize_t _clamp(int64_t i, Py_ssize_t n) noexcept:
    if i < 0:
        i += n
        if i < 0:
            i = 0
    elif i > n:
        i = n
    return <Py_ssize_t>i


cdef int _same(tuple a, Py_ssize_t a0, Py_ssize_t a1, tuple b, Py_ssize_t b0, Py_ssize_t b1) except -1:
    """a[a0:a1] == b[b0:b1] (ranges already clamped, a1 >= a0 and b1 >= b0)."""
    cdef Py_ssize_t i
    cdef int r
    if a1 - a0 != b1 - b0:
        return 0
    for i in range(a1 - a0):
        r = PyObject_RichCompareBool(<object>PyTuple_GET_ITEM(a, a0 + i), <object>PyTuple_GET_ITEM(b, b0 + i), Py_EQ)
        if r < 0:
            return -1
        if r == 0:
            return 0
    return 1


cdef int64_t _lookup(vector[int64_t]& mapping, int64_t key) except? -1:
    if key < 0 or key >= <int64_t>mapping.size() or mapping[key] == UNSET:
        raise KeyError(key)
    return mapping[key]


def partition_labels(sentences, int merge_distance, bint dependent):
    """(n_chunks, n_refs, lengths, labels, bias) of CLEME sentences (peet_fast.metrics.cleme.CSentence):
    per sentence its number of chunks K and of kept references R (int32 arrays); the hypothesis's chunk lengths
    (max(source tokens, hypothesis tokens)), K per sentence concatenated (int32); the labels, R rows of K per sentence
    concatenated (int8, dependent or independent counting); the bias of the length weigher (the mean length of the
    kept references' changed chunks, 0.0 without any)."""
    if merge_distance < 0:
        raise Unsupported("a negative merge distance")
    cdef Py_ssize_t n_sent = len(sentences), i, t, k, g, c, r, T, K, R, n_e, j
    cdef int64_t n, s, e, ts, te, si, ti, M, i0, i1, tb, tend, c0, c1, a, b
    cdef int64_t len_sum = 0, len_count = 0, length
    cdef vector[int64_t] S, E, TS, TE, target_start, mapping, shared_s, shared_e, ch0, ch1
    cdef vector[int64_t] corr0, corr1, corr_tb, corr_te, ranges_a, ranges_b
    cdef vector[char] changed
    cdef vector[pair[int64_t, int64_t]] order
    cdef vector[int32_t] out_k, out_r, out_len
    cdef vector[signed char] out_lab
    cdef Py_ssize_t n_corr, lo, hi, mid
    cdef int same, lab
    cdef bint found, any_tp, any_changed, all_changed
    cdef list targets
    cdef tuple tokens
    out_k.reserve(n_sent)
    out_r.reserve(n_sent)
    for i in range(n_sent):
        sent = sentences[i]
        source = sent.source
        n = len(source)
        refs = [rf for rf in sent.refs if rf.tokens] or list(sent.refs[:1])
        if not refs:
            raise ValueError("a sentence needs at least one reference")
        targets = [sent.hyp, *refs]
        T = len(targets)
        # the edits, target after target, each target's sorted by source start (stably)
        S.clear(); E.clear(); TS.clear(); TE.clear(); target_start.clear()
        M = n
        for t in range(T):
            target_start.push_back(S.size())
            edits = targets[t].edits
            order.clear()
            n_e = len(edits)
            for j in range(n_e):
                ed = edits[j]
                s, e = ed[0], ed[1]
                if s < 0 or e < s:
                    raise Unsupported(f"edit {ed!r}")
                order.push_back(pair[int64_t, int64_t](s, j))
            sort(order.begin(), order.end())
            for j in range(n_e):
                ed = edits[order[j].second]
                S.push_back(ed[0]); E.push_back(ed[1]); TS.push_back(ed[2]); TE.push_back(ed[3])
                if <int64_t>ed[1] > M:
                    M = ed[1]
        target_start.push_back(S.size())
        # the shared intervals: every edit pooled, sorted by start (stably: target order, then each's order)
        order.clear()
        for j in range(<Py_ssize_t>S.size()):
            order.push_back(pair[int64_t, int64_t](S[j], j))
        sort(order.begin(), order.end())
        shared_s.clear(); shared_e.clear()
        for j in range(<Py_ssize_t>order.size()):
            s, e = S[order[j].second], E[order[j].second]
            if shared_s.size() and s <= shared_e.back() + merge_distance:
                if e > shared_e.back():
                    shared_e[shared_e.size() - 1] = e
            else:
                shared_s.push_back(s)
                shared_e.push_back(e)
        # the chunk intervals
        ch0.clear(); ch1.clear()
        si = 0
        g = 0
        while si <= n:
            if g == <Py_ssize_t>shared_s.size():
                if si != n:
                    ch0.push_back(si); ch1.push_back(n)
                break
            s, e = shared_s[g], shared_e[g]
            if si == s and s == e:
                ch0.push_back(s); ch1.push_back(e)
                g += 1
            elif s <= si and si < e:
                ch0.push_back(s); ch1.push_back(e)
                si = e
                g += 1
            else:
                ch0.push_back(si); ch1.push_back(s)
                si = s
        K = ch0.size()
        R = T - 1
        # per target and chunk: the token range and whether the target changes the chunk
        ranges_a.assign(T * K, 0); ranges_b.assign(T * K, 0); changed.assign(T * K, 0)
        for t in range(T):
            tokens = targets[t].tokens
            if type(tokens) is not tuple:
                tokens = tuple(tokens)
            mapping.assign(M + 1, UNSET)
            si = ti = 0
            for j in range(target_start[t], target_start[t + 1]):
                s, e, ts, te = S[j], E[j], TS[j], TE[j]
                mapping[s] = ts
                mapping[e] = te
                while si < s:
                    mapping[si] = ti
                    si += 1
                    ti += 1
                si, ti = e, te
            while si <= n:
                mapping[si] = ti
                si += 1
                ti += 1
            corr0.clear(); corr1.clear(); corr_tb.clear(); corr_te.clear()
            for j in range(target_start[t], target_start[t + 1]):
                s, e = S[j], E[j]
                lo, hi = 0, shared_s.size()           # bisect_right(starts, s) - 1
                while lo < hi:
                    mid = (lo + hi) // 2
                    if s < shared_s[mid]:
                        hi = mid
                    else:
                        lo = mid + 1
                g = lo - 1
                if g < 0:
                    raise Unsupported("an edit before every shared interval")
                i0, i1 = shared_s[g], shared_e[g]
                if not (i0 <= s and e <= i1):
                    raise AssertionError
                found = False
                for c in range(<Py_ssize_t>corr0.size()):
                    if corr0[c] == i0 and corr1[c] == i1:
                        found = True
                        break
                if found:
                    continue
                tb = 0 if i0 == 0 else _lookup(mapping, i0 - 1) + 1
                tend = _lookup(mapping, i1)
                corr0.push_back(i0); corr1.push_back(i1); corr_tb.push_back(tb); corr_te.push_back(tend)
            n_corr = corr0.size()
            for k in range(K):
                c0, c1 = ch0[k], ch1[k]
                found = False
                for c in range(n_corr):
                    if corr0[c] == c0 and corr1[c] == c1:
                        found = True
                        break
                if found:
                    a, b = corr_tb[c], corr_te[c]
                    changed[t * K + k] = 1
                else:
                    a = _lookup(mapping, c0)
                    b = 0 if c1 == 0 else _lookup(mapping, c1 - 1) + 1
                a = _clamp(a, len(tokens))
                b = _clamp(b, len(tokens))
                if b < a:
                    b = a
                ranges_a[t * K + k], ranges_b[t * K + k] = a, b
                if t > 0 and changed[t * K + k]:
                    length = c1 - c0 if c1 - c0 > b - a else b - a
                    len_sum += length
                    len_count += 1
        out_k.push_back(K)
        out_r.push_back(R)
        hyp_tokens = targets[0].tokens if type(targets[0].tokens) is tuple else tuple(targets[0].tokens)
        for k in range(K):
            length = ch1[k] - ch0[k]
            if ranges_b[k] - ranges_a[k] > length:
                length = ranges_b[k] - ranges_a[k]
            out_len.push_back(<int32_t>length)
        ref_tokens = [rf.tokens if type(rf.tokens) is tuple else tuple(rf.tokens) for rf in refs]
        if dependent:
            for r in range(R):
                tokens = ref_tokens[r]
                for k in range(K):
                    same = _same(hyp_tokens, ranges_a[k], ranges_b[k], tokens, ranges_a[(r + 1) * K + k],
                                 ranges_b[(r + 1) * K + k])
                    if changed[k]:
                        lab = TP if same else (FP_NE if changed[(r + 1) * K + k] else FP_UN)
                    else:
                        lab = TN if same else FN
                    out_lab.push_back(lab)
        else:
            j = out_lab.size()
            for k in range(K):
                if changed[k]:
                    any_tp = False
                    any_changed = False
                    for r in range(R):
                        if _same(hyp_tokens, ranges_a[k], ranges_b[k], ref_tokens[r], ranges_a[(r + 1) * K + k],
                                 ranges_b[(r + 1) * K + k]):
                            any_tp = True
                            break
                    for r in range(R):
                        if changed[(r + 1) * K + k]:
                            any_changed = True
                    lab = TP if any_tp else (FP_NE if any_changed else FP_UN)
                else:
                    all_changed = True
                    for r in range(R):
                        if not changed[(r + 1) * K + k]:
                            all_changed = False
                    lab = FN if all_changed else TN
                out_lab.push_back(lab)
            for r in range(1, R):
                for k in range(K):
                    out_lab.push_back(out_lab[j + k])
    # Python's int / int (sum(lengths) / len(lengths)): both exact as doubles here, one correctly rounded division
    bias = (<double>len_sum) / (<double>len_count) if len_count else 0.0
    return _i32(out_k), _i32(out_r), _i32(out_len), _i8(out_lab), bias


cdef object _i32(vector[int32_t]& v):
    out = np.empty(v.size(), dtype=np.int32)
    cdef int32_t[::1] o = out
    cdef Py_ssize_t i
    for i in range(<Py_ssize_t>v.size()):
        o[i] = v[i]
    return out


cdef object _i8(vector[signed char]& v):
    out = np.empty(v.size(), dtype=np.int8)
    cdef signed char[::1] o = out
    cdef Py_ssize_t i
    for i in range(<Py_ssize_t>v.size()):
        o[i] = v[i]
    return out


cdef inline double _weight(double alpha, double lo, double hi, int64_t length, double bias, bint reverse) noexcept:
    """CLEME's LengthWeigher.weight, in the same float operations."""
    cdef double x = (length - bias) if reverse else (bias - length)
    cdef double w
    if x > 700:
        return lo
    w = alpha * (1 / (1 + (alpha - 1) * exp(x)))
    if lo > w:
        w = lo
    if hi < w:
        w = hi
    return w


def label_counts(const int32_t[:] n_chunks, const int32_t[:] n_refs, const int32_t[:] lengths,
                 const signed char[:] labels, weigher, double bias):
    """[TP, FP, FN, TN, FP_NE, FP_UN] per (sentence, kept reference), a float64 array of sum(n_refs) rows: each
    summed in chunk order as peet_fast.metrics.cleme2.counts sums them; weigher None (every chunk 1) or a
    cleme2.ClassWeigher."""
    cdef Py_ssize_t n_sent = n_chunks.shape[0], i, r, k, row = 0, pos = 0, off = 0, K
    cdef double a_tp = 0, l_tp = 0, h_tp = 0, a_fp = 0, l_fp = 0, h_fp = 0, a_fn = 0, l_fn = 0, h_fn = 0, w
    cdef bint weighted = weigher is not None
    cdef int lab
    total = 0
    for i in range(n_sent):
        total += n_refs[i]
    out = np.zeros((total, 6), dtype=np.float64)
    cdef double[:, ::1] o = out
    if weighted:
        a_tp, l_tp, h_tp = weigher.tp
        a_fp, l_fp, h_fp = weigher.fp
        a_fn, l_fn, h_fn = weigher.fn
    for i in range(n_sent):
        K = n_chunks[i]
        for r in range(n_refs[i]):
            for k in range(K):
                lab = labels[pos + k]
                if not weighted or lab == TN:
                    w = 1.0
                elif lab == TP:
                    w = _weight(a_tp, l_tp, h_tp, lengths[off + k], bias, False)
                elif lab == FN:
                    w = _weight(a_fn, l_fn, h_fn, lengths[off + k], bias, False)
                else:
                    w = _weight(a_fp, l_fp, h_fp, lengths[off + k], bias, True)
                if lab == FP_NE or lab == FP_UN:
                    o[row, 1] += w
                    o[row, 4 if lab == FP_NE else 5] += w
                else:
                    o[row, 0 if lab == TP else (2 if lab == FN else 3)] += w
            pos += K
            row += 1
        off += K
    return out
