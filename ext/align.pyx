# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""ERRANT's alignment: a linguistically weighted Damerau-Levenshtein over token arrays (errant/alignment.py), with the
same cost arithmetic (IEEE doubles in the same order of operations), the same tie-breaking (transposition, substitution,
insertion, deletion) and the same backtrace; plus plain Levenshtein (-lev) and the all-split / all-merge / all-equal
strategies."""
from libc.stdlib cimport malloc, calloc, free
from libc.stdint cimport uint64_t, int32_t
from cpython.exc cimport PyErr_CheckSignals
from libcpp.vector cimport vector
from libcpp.algorithm cimport sort
from peet_fast._ext.hashing cimport mix64

cdef extern from *:
    """
    #include <vector>
    #include <cstdint>
    /* Per-thread ASCII match tables, kept all-zero between alignments (callers clear the bits they set), so no
       alignment pays for zeroing n * 128 words. */
    static uint64_t* peet_zero_tables(size_t words) {
        static thread_local std::vector<uint64_t> tables;
        if (tables.size() < words) tables.resize(words, 0);
        return tables.data();
    }
    """
    uint64_t* peet_zero_tables(size_t words) except + nogil

from peet_fast._ext.chardist cimport popcount64, low_bits
from peet_fast._ext.tokens cimport (Sent, TokView, v_orth, v_lower, v_lemma, indel_normalized_distance,
                                     POS_ADJ, POS_ADV, POS_NOUN, POS_VERB)

cdef inline bint _open_pos(int p) noexcept nogil:
    return p == POS_ADJ or p == POS_ADV or p == POS_NOUN or p == POS_VERB


# RATIO[total * 129 + dist] = dist / total, for total <= 128 (both tokens of at most 64 characters): the same IEEE
# quotient as the division, looked up instead of computed in the innermost loop.
cdef enum:
    SIGNAL_CELLS = 1 << 20

cdef double RATIO[129 * 129]
cdef int _t, _d
for _t in range(1, 129):
    for _d in range(_t + 1):
        RATIO[_t * 129 + _d] = <double>_d / <double>_t


cdef inline double _lemma_pos_cost(const TokView* o, Py_ssize_t i, const TokView* c, Py_ssize_t j) noexcept nogil:
    """The lemma and POS parts of errant's substitution cost (tokens whose lower-case forms differ)."""
    cdef double lemma_cost, pos_cost
    lemma_cost = 0.0 if v_lemma(o, i) == v_lemma(c, j) else 0.499
    if o.pos[i] == c.pos[j]:
        pos_cost = 0.0
    elif _open_pos(o.pos[i]) and _open_pos(c.pos[j]):
        pos_cost = 0.25
    else:
        pos_cost = 0.5
    return lemma_cost + pos_cost


cdef double sub_cost(const TokView* o, Py_ssize_t i, const TokView* c, Py_ssize_t j) noexcept nogil:
    """errant Alignment.get_sub_cost: lemma (0 / 0.499) + POS (0 / 0.25 / 0.5) + Indel character cost."""
    if v_lower(o, i) == v_lower(c, j):
        return 0.0
    return _lemma_pos_cost(o, i, c, j) + indel_normalized_distance(o, i, c, j)


cdef double _char_cost_tab(const TokView* o, Py_ssize_t i, const TokView* c, Py_ssize_t j,
                           const uint64_t* tab) noexcept nogil:
    """Indel.normalized_distance of the two token texts, the LCS computed bit-parallel from a precomputed ASCII
    match table of orig token i (tab: 128 masks; NULL when the token is longer than 64 characters)."""
    cdef int32_t a0, la, b0, lb, y, x, ch
    cdef uint64_t V, U, M
    cdef int lcs
    if tab == NULL:
        return indel_normalized_distance(o, i, c, j)
    a0 = o.off[i]; la = o.off[i + 1] - a0
    b0 = c.off[j]; lb = c.off[j + 1] - b0
    V = ~(<uint64_t>0)
    for y in range(lb):
        ch = c.chars[b0 + y]
        if 0 <= ch < 128:
            M = tab[ch]
        else:
            M = 0
            for x in range(la):
                M |= (<uint64_t>(o.chars[a0 + x] == ch)) << x
        U = V & M
        V = (V + U) | (V - U)
    lcs = la - popcount64(V & low_bits(la))
    if la + lb <= 128:
        return RATIO[(la + lb) * 129 + la + lb - 2 * lcs]
    return <double>(la + lb - 2 * lcs) / <double>(la + lb)


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
    cdef double del_cost, ins_cost, trans_cost, sc, best, base
    cdef double inf = float("inf")
    cdef vector[uint64_t] bo, bc
    cdef vector[AlignOp] out
    cdef AlignOp a
    cdef int code, size
    # per orig token: 128 ASCII match masks (bit x set where character x of the token is that character)
    cdef uint64_t* tabs = NULL
    cdef const uint64_t** tab_of = NULL
    # prefix sums over the lower-case ids (and a mix of them) for the O(1) transposition filter
    cdef uint64_t* po = <uint64_t*>malloc((2 * n + 2) * sizeof(uint64_t))
    cdef uint64_t* pc = <uint64_t*>malloc((2 * m + 2) * sizeof(uint64_t))
    cdef int32_t a0, la, x, ch
    # run[a * w + b]: how many consecutive diagonal steps ending at matrix cell (a, b) change the cost; errant's
    # transposition search walks back exactly that far
    cdef int* run = <int*>malloc((n + 1) * w * sizeof(int))
    # lasto[j]: last orig position <= i whose lower-case id equals cor[j]'s; lastc: the same in cor for orig[i]
    cdef int* lasto = <int*>malloc((m + 1) * sizeof(int))
    cdef int lastc, kmin
    cdef uint64_t ol, oo, olem
    cdef int opos
    cdef bint oopen, take
    cdef Py_ssize_t cells = 0            # matrix cells filled since signals were last checked
    cdef const uint64_t* tab
    cdef double* prev
    cdef double* cur
    cdef int* prun
    cdef int* crun
    cdef int* cops
    # cor's ids, contiguous for the inner loop
    cdef uint64_t* c_orth = <uint64_t*>malloc((3 * m + 1) * sizeof(uint64_t))
    cdef uint64_t* c_lower = c_orth + m
    cdef uint64_t* c_lemma = c_orth + 2 * m
    if not lev:
        tabs = peet_zero_tables(n * 128 + 1)
        tab_of = <const uint64_t**>malloc((n + 1) * sizeof(uint64_t*))
    if cost == NULL or ops == NULL or po == NULL or pc == NULL or run == NULL or lasto == NULL or c_orth == NULL or \
            (not lev and (tabs == NULL or tab_of == NULL)):
        free(cost); free(ops); free(po); free(pc); free(tab_of); free(run); free(lasto); free(c_orth)
        raise MemoryError()
    try:
        with nogil:
            if not lev:
                for i in range(n):
                    a0 = orig.off[i]
                    la = orig.off[i + 1] - a0
                    if la > 64:
                        tab_of[i] = NULL
                        continue
                    tab_of[i] = tabs + i * 128
                    for x in range(la):
                        ch = orig.chars[a0 + x]
                        if 0 <= ch < 128:
                            tabs[i * 128 + ch] |= (<uint64_t>1) << x
                po[0] = 0; po[n + 1] = 0
                for i in range(n):
                    po[i + 1] = po[i] + v_lower(orig, i)
                    po[n + 2 + i] = po[n + 1 + i] + mix64(v_lower(orig, i))
                pc[0] = 0; pc[m + 1] = 0
                for j in range(m):
                    pc[j + 1] = pc[j] + v_lower(cor, j)
                    pc[m + 2 + j] = pc[m + 1 + j] + mix64(v_lower(cor, j))
            for j in range(w):
                run[j] = 0
            for i in range(n + 1):
                run[i * w] = 0
            cost[0] = 0.0
            ops[0] = 0
            for i in range(1, n + 1):
                cost[i * w] = cost[(i - 1) * w] + 1
                ops[i * w] = OP_D << 16 | 1
            for j in range(1, m + 1):
                cost[j] = cost[j - 1] + 1
                ops[j] = OP_I << 16 | 1
            for j in range(m):
                lasto[j] = -1
                c_orth[j] = v_orth(cor, j)
                c_lower[j] = v_lower(cor, j)
                c_lemma[j] = v_lemma(cor, j)
            for i in range(n):
                cells += w
                if cells > SIGNAL_CELLS:     # a long pair: let Ctrl-C / SIGTERM through (~every few ms)
                    cells = 0
                    with gil:
                        PyErr_CheckSignals()
                lastc = -1
                ol = v_lower(orig, i)
                oo = v_orth(orig, i)
                olem = v_lemma(orig, i)
                opos = orig.pos[i]
                oopen = _open_pos(opos)
                tab = tab_of[i] if not lev else NULL
                prev = cost + i * w          # row i of the cost matrix
                cur = cost + (i + 1) * w     # row i + 1
                prun = run + i * w
                crun = run + (i + 1) * w
                cops = ops + (i + 1) * w
                for j in range(m):
                    if ol == c_lower[j]:
                        lasto[j] = i
                        lastc = j
                    if oo == c_orth[j]:
                        cur[j + 1] = prev[j]
                        cops[j + 1] = OP_M << 16 | 1
                        crun[j + 1] = 0
                        continue
                    del_cost = prev[j + 1] + 1
                    ins_cost = cur[j] + 1
                    trans_cost = inf
                    k = 1
                    if lev:
                        sc = prev[j] + 1
                    else:
                        if ol == c_lower[j]:
                            sc = prev[j] + 0.0
                        else:
                            # errant: sc = cost + ((lemma + pos) + char). Rounding is monotonic and char >= 0, so
                            # sc >= cost + (lemma + pos); when that bound already exceeds the insertion or deletion
                            # cost, the substitution cannot be chosen and its exact value cannot matter.
                            base = (0.0 if olem == c_lemma[j] else 0.499) + \
                                (0.0 if opos == cor.pos[j] else (0.25 if oopen and _open_pos(cor.pos[j]) else 0.5))
                            sc = prev[j] + base
                            if sc <= ins_cost and sc <= del_cost:
                                sc = prev[j] + (base + _char_cost_tab(orig, i, cor, j, tab))
                        # Transpositions (errant): walk back along the diagonal while each step changed the cost,
                        # i.e. k = 1 .. run[i, j], and take the first k where orig[i-k..i] and cor[j-k..j] hold the
                        # same lower-cased tokens. No k below kmin can work (orig[i] must occur in the cor window
                        # and cor[j] in the orig window); window sums (of the ids and of a mix of them) rule out
                        # almost every other k in O(1), and equal sums are confirmed on the sorted windows.
                        if prun[j] > 0 and lasto[j] >= 0 and lastc >= 0:
                            kmin = i - lasto[j]
                            if j - lastc > kmin:
                                kmin = j - lastc
                            k = kmin if kmin > 1 else 1
                            while k <= prun[j]:
                                if po[i + 1] - po[i - k] == pc[j + 1] - pc[j - k] and \
                                        po[n + 2 + i] - po[n + 1 + i - k] == pc[m + 2 + j] - pc[m + 1 + j - k] and \
                                        _same_multiset(orig, i - k, cor, j - k, k + 1, bo, bc):
                                    trans_cost = cost[(i - k) * w + j - k] + k
                                    break
                                k += 1
                    # first cheapest of [trans, sub, ins, del] (branch-free selects)
                    best = trans_cost
                    code = OP_T << 16 | (k + 1)
                    take = sc < best
                    best = sc if take else best
                    code = (OP_S << 16 | 1) if take else code
                    take = ins_cost < best
                    best = ins_cost if take else best
                    code = (OP_I << 16 | 1) if take else code
                    take = del_cost < best
                    best = del_cost if take else best
                    code = (OP_D << 16 | 1) if take else code
                    cur[j + 1] = best
                    crun[j + 1] = prun[j] + 1 if best != prev[j] else 0
                    cops[j + 1] = code
            if not lev:
                for i in range(n):
                    if tab_of[i] != NULL:
                        a0 = orig.off[i]
                        for x in range(orig.off[i + 1] - a0):
                            ch = orig.chars[a0 + x]
                            if 0 <= ch < 128:
                                tabs[i * 128 + ch] = 0
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
        free(cost); free(ops); free(po); free(pc); free(tab_of); free(run); free(lasto); free(c_orth)
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


def _time_align(list origs, list cors, bint lev=False):
    """Seconds spent in align_seq alone over a batch (benchmarks only)."""
    import time
    cdef Py_ssize_t k
    t0 = time.perf_counter()
    for k in range(len(origs)):
        align_seq(<Sent>origs[k], <Sent>cors[k], lev)
    return time.perf_counter() - t0
