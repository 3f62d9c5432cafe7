# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""ERRANT's alignment: a linguistically weighted Damerau-Levenshtein over token arrays (errant/alignment.py), with the
same cost arithmetic (IEEE doubles in the same order of operations), the same tie-breaking (transposition, substitution,
insertion, deletion) and the same backtrace; plus plain Levenshtein (-lev) and the all-split / all-merge / all-equal
strategies."""
from libc.stdlib cimport malloc, free
from libc.stdint cimport uint64_t
from libcpp.vector cimport vector
from libcpp.algorithm cimport sort

from peet_fast._ext.tokens cimport (Sent, TokView, v_orth, v_lower, v_lemma, indel_normalized_distance,
                                     POS_ADJ, POS_ADV, POS_NOUN, POS_VERB)

cdef inline bint _open_pos(int p) noexcept nogil:
    return p == POS_ADJ or p == POS_ADV or p == POS_NOUN or p == POS_VERB


cdef double sub_cost(const TokView* o, Py_ssize_t i, const TokView* c, Py_ssize_t j) noexcept nogil:
    """errant Alignment.get_sub_cost: lemma (0 / 0.499) + POS (0 / 0.25 / 0.5) + Indel character cost."""
    cdef double lemma_cost, pos_cost
    if v_lower(o, i) == v_lower(c, j):
        return 0.0
    lemma_cost = 0.0 if v_lemma(o, i) == v_lemma(c, j) else 0.499
    if o.pos[i] == c.pos[j]:
        pos_cost = 0.0
    elif _open_pos(o.pos[i]) and _open_pos(c.pos[j]):
        pos_cost = 0.25
    else:
        pos_cost = 0.5
    return (lemma_cost + pos_cost) + indel_normalized_distance(o, i, c, j)


cdef bint _same_multiset(const TokView* o, Py_ssize_t i0, const TokView* c, Py_ssize_t j0, Py_ssize_t size,
                         vector[uint64_t]& bo, vector[uint64_t]& bc) noexcept nogil:
    """sorted(o_low[i0:i0+size]) == sorted(c_low[j0:j0+size])"""
    cdef Py_ssize_t t
    bo.resize(size)
    bc.resize(size)
    for t in range(size):
        bo[t] = v_lower(o, i0 + t)
        bc[t] = v_lower(c, j0 + t)
    sort(bo.begin(), bo.end())
    sort(bc.begin(), bc.end())
    for t in range(size):
        if bo[t] != bc[t]:
            return False
    return True


cdef vector[AlignOp] align_seq(Sent orig_s, Sent cor_s, bint lev) except *:
    cdef const TokView* orig = &orig_s.v
    cdef const TokView* cor = &cor_s.v
    cdef Py_ssize_t n = orig.n, m = cor.n, w = m + 1, i, j, k, l
    cdef double* cost = <double*>malloc((n + 1) * w * sizeof(double))
    cdef int* ops = <int*>malloc((n + 1) * w * sizeof(int))   # op code * 65536 + transposition size
    cdef double del_cost, ins_cost, trans_cost, sc, best
    cdef double inf = float("inf")
    cdef vector[uint64_t] bo, bc
    cdef vector[AlignOp] out
    cdef AlignOp a
    cdef int code, size
    if cost == NULL or ops == NULL:
        free(cost); free(ops)
        raise MemoryError()
    try:
        with nogil:
            cost[0] = 0.0
            ops[0] = 0
            for i in range(1, n + 1):
                cost[i * w] = cost[(i - 1) * w] + 1
                ops[i * w] = OP_D << 16 | 1
            for j in range(1, m + 1):
                cost[j] = cost[j - 1] + 1
                ops[j] = OP_I << 16 | 1
            for i in range(n):
                for j in range(m):
                    if v_orth(orig, i) == v_orth(cor, j):
                        cost[(i + 1) * w + j + 1] = cost[i * w + j]
                        ops[(i + 1) * w + j + 1] = OP_M << 16 | 1
                        continue
                    del_cost = cost[i * w + j + 1] + 1
                    ins_cost = cost[(i + 1) * w + j] + 1
                    trans_cost = inf
                    k = 1
                    if lev:
                        sc = cost[i * w + j] + 1
                    else:
                        sc = cost[i * w + j] + sub_cost(orig, i, cor, j)
                        while i - k >= 0 and j - k >= 0 and \
                                cost[(i - k + 1) * w + j - k + 1] != cost[(i - k) * w + j - k]:
                            if _same_multiset(orig, i - k, cor, j - k, k + 1, bo, bc):
                                trans_cost = cost[(i - k) * w + j - k] + k
                                break
                            k += 1
                    # first cheapest of [trans, sub, ins, del]
                    best = trans_cost
                    l = 0
                    if sc < best:
                        best = sc; l = 1
                    if ins_cost < best:
                        best = ins_cost; l = 2
                    if del_cost < best:
                        best = del_cost; l = 3
                    cost[(i + 1) * w + j + 1] = best
                    if l == 0:
                        ops[(i + 1) * w + j + 1] = OP_T << 16 | (k + 1)
                    elif l == 1:
                        ops[(i + 1) * w + j + 1] = OP_S << 16 | 1
                    elif l == 2:
                        ops[(i + 1) * w + j + 1] = OP_I << 16 | 1
                    else:
                        ops[(i + 1) * w + j + 1] = OP_D << 16 | 1
            # backtrace from the bottom right
            i = n
            j = m
            while i + j != 0:
                code = ops[i * w + j] >> 16
                size = ops[i * w + j] & 0xFFFF
                a.op = code
                a.size = size
                if code == OP_M or code == OP_S:
                    a.o1 = i - 1; a.o2 = i; a.c1 = j - 1; a.c2 = j
                    i -= 1; j -= 1
                elif code == OP_D:
                    a.o1 = i - 1; a.o2 = i; a.c1 = j; a.c2 = j
                    i -= 1
                elif code == OP_I:
                    a.o1 = i; a.o2 = i; a.c1 = j - 1; a.c2 = j
                    j -= 1
                else:
                    a.o1 = i - size; a.o2 = i; a.c1 = j - size; a.c2 = j
                    i -= size; j -= size
                out.push_back(a)
    finally:
        free(cost)
        free(ops)
    # left to right
    cdef Py_ssize_t L = out.size()
    cdef AlignOp tmp
    for i in range(L // 2):
        tmp = out[i]
        out[i] = out[L - 1 - i]
        out[L - 1 - i] = tmp
    return out


cdef inline EditSpan _span(AlignOp& first, AlignOp& last) noexcept nogil:
    cdef EditSpan e
    e.o1 = first.o1; e.o2 = last.o2; e.c1 = first.c1; e.c2 = last.c2
    return e


cdef vector[EditSpan] all_split(vector[AlignOp]& seq):
    cdef vector[EditSpan] out
    cdef size_t t
    for t in range(seq.size()):
        if seq[t].op != OP_M:
            out.push_back(_span(seq[t], seq[t]))
    return out


cdef vector[EditSpan] all_merge(vector[AlignOp]& seq):
    """Merge every maximal run of non-match ops."""
    cdef vector[EditSpan] out
    cdef size_t t = 0, s, L = seq.size()
    while t < L:
        if seq[t].op == OP_M:
            t += 1
            continue
        s = t
        while t + 1 < L and seq[t + 1].op != OP_M:
            t += 1
        out.push_back(_span(seq[s], seq[t]))
        t += 1
    return out


cdef vector[EditSpan] all_equal(vector[AlignOp]& seq):
    """Merge every maximal run of identical ops (transpositions of the same size count as identical)."""
    cdef vector[EditSpan] out
    cdef size_t t = 0, s, L = seq.size()
    while t < L:
        s = t
        while t + 1 < L and seq[t + 1].op == seq[s].op and seq[t + 1].size == seq[s].size:
            t += 1
        if seq[s].op != OP_M:
            out.push_back(_span(seq[s], seq[t]))
        t += 1
    return out


def alignment(Sent orig, Sent cor, bint lev=False):
    """The cheapest alignment as a list of (op, o_start, o_end, c_start, c_end), op as errant names it
    ("M", "S", "I", "D", "T2", "T3", ...)."""
    cdef vector[AlignOp] seq = align_seq(orig, cor, lev)
    names = {OP_M: "M", OP_S: "S", OP_I: "I", OP_D: "D"}
    res = []
    for a in seq:
        name = names[a.op] if a.op != OP_T else "T" + str(a.size)
        res.append((name, a.o1, a.o2, a.c1, a.c2))
    return res


def substitution_cost(Sent o, Py_ssize_t i, Sent c, Py_ssize_t j):
    """errant's substitution cost of token i of o and token j of c (for tests)."""
    if not (0 <= i < o.n and 0 <= j < c.n):
        raise IndexError("token index out of range")
    return sub_cost(&o.v, i, &c.v, j)
