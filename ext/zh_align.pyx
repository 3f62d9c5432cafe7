# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""ChERRANT's char-level alignment for Chinese (MuCGEC's scorers/ChERRANT, char granularity) over token ids.

One ``ZhCore`` holds a growing vocabulary: per token id its code points, whether it is all CJK (U+4E00..U+9FFF), whether
it is punctuation (a substring of ChERRANT's alignment punctuation string), its Cilin code levels and its toneless pinyin
readings; plus the confusion set as (key char, member char) pairs and the merger's punctuation string. ``annotate`` runs:

- the DP: insertion/deletion 1, substitution ``semantic / 6 + char + punct`` (IEEE doubles, ChERRANT's order of
  operations), transpositions found by widening a window while the diagonal cost changes, ties kept in the order
  T, S, I, D (a match is the only op of its cell);
- the backtrace: every minimum-cost path in depth-first order (or only the first path, following each cell's first op;
  ChERRANT also takes only the first when the lengths differ by more than 10);
- per path the merger: runs of M / T / the rest, run merging, the S-M-S and D-M-I / I-M-D transposition patterns,
  dropping unchanged spans and trimming shared ends of S edits;
- distinct merged edit lists, in path order, typed W (transposition), R (deletion), M (insertion), S (substitution)."""
from libc.stdint cimport uint64_t, uint32_t, int32_t, uint8_t
from libcpp.vector cimport vector
from libcpp.unordered_set cimport unordered_set
from peet_fast._ext.hashing cimport mix64

cdef enum:
    OP_M = 0
    OP_T = 1
    OP_S = 2
    OP_I = 3
    OP_D = 4

# op bits of a DP cell; the backtrace tries them in this order (ChERRANT appends tied ops as T, S, I, D)
cdef enum:
    B_T = 1
    B_S = 2
    B_I = 4
    B_D = 8
    B_M = 16

cdef double INF = float("inf")


cdef struct Op:
    int op
    int o1
    int o2
    int c1
    int c2


cdef struct Frame:
    int i
    int j
    int next_bit


cdef inline Op _op(int op, int o1, int o2, int c1, int c2) noexcept nogil:
    cdef Op e
    e.op = op; e.o1 = o1; e.o2 = o2; e.c1 = c1; e.c2 = c2
    return e


cdef inline Op _span(int op, Op& a, Op& b) noexcept nogil:
    """ChERRANT's _merge_edits: one edit from the first op's starts to the last op's ends."""
    return _op(op, a.o1, b.o2, a.c1, b.c2)


cdef bint _contains(vector[int32_t]& hay, vector[int32_t]& needle) noexcept nogil:
    """Python's ``needle in hay`` for code-point strings."""
    cdef size_t n = hay.size(), m = needle.size(), s, t
    if m == 0:
        return True
    if m > n:
        return False
    for s in range(n - m + 1):
        t = 0
        while t < m and hay[s + t] == needle[t]:
            t += 1
        if t == m:
            return True
    return False


cdef int _levenshtein(vector[int32_t]& a, vector[int32_t]& b) noexcept nogil:
    """Unit-cost edit distance (insert, delete, substitute), as Levenshtein.distance."""
    cdef size_t la = a.size(), lb = b.size(), x, y
    cdef vector[int] row
    cdef int diag, up, best
    row.resize(lb + 1)
    for y in range(lb + 1):
        row[y] = <int>y
    for x in range(1, la + 1):
        diag = row[0]
        row[0] = <int>x
        for y in range(1, lb + 1):
            up = row[y]
            best = diag + (0 if a[x - 1] == b[y - 1] else 1)
            if up + 1 < best:
                best = up + 1
            if row[y - 1] + 1 < best:
                best = row[y - 1] + 1
            row[y] = best
            diag = up
    return row[lb]


cdef inline int _slot(int32_t cp, int mask) noexcept nogil:
    return <int>((<uint32_t>cp * 2654435761U) >> 12) & mask


cdef bint _same(vector[Op]& a, vector[Op]& b) noexcept nogil:
    cdef size_t x
    if a.size() != b.size():
        return False
    for x in range(a.size()):
        if (a[x].op != b[x].op or a[x].o1 != b[x].o1 or a[x].o2 != b[x].o2 or a[x].c1 != b[x].c1
                or a[x].c2 != b[x].c2):
            return False
    return True


cdef class ZhCore:
    """The vocabulary's per-token cost inputs and the compiled aligner/merger (see the module docstring)."""
    cdef vector[int32_t] cp_off, cp
    cdef vector[uint8_t] cjk, punct
    cdef vector[int32_t] sem_h, sem_m, sem_l
    cdef vector[int32_t] py_off, py
    cdef unordered_set[uint64_t] conf
    cdef vector[int32_t] cf_off, cf_mask, cf   # per token: an open-addressing set of its confusion code points
    cdef vector[int32_t] merge_punct
    cdef vector[int32_t] counts
    cdef vector[double] cost
    cdef vector[uint8_t] opm
    cdef vector[int32_t] tlen
    cdef vector[int32_t] run
    cdef vector[uint64_t] rnd
    cdef const int32_t* s
    cdef const int32_t* t
    cdef int n, m

    def __cinit__(self):
        self.cp_off.push_back(0)
        self.py_off.push_back(0)
        self.cf_off.push_back(0)

    @property
    def size(self) -> int:
        return self.cjk.size()

    def add_token(self, str text, bint cjk, bint punct, int high, int mid, int low, pinyin_ids, confusable=()) -> int:
        """Append a token (non-empty) with its cost inputs; returns its id. ``high < 0``: not in Cilin.
        ``confusable``: for a one-character token, the code points listed in its confusion set."""
        cdef int tid = <int>self.cjk.size()
        if not text:
            raise ValueError("empty token")
        for ch in text:
            self.cp.push_back(ord(ch))
        self.cp_off.push_back(<int32_t>self.cp.size())
        self.cjk.push_back(cjk)
        self.punct.push_back(punct)
        self.sem_h.push_back(high)
        self.sem_m.push_back(mid)
        self.sem_l.push_back(low)
        for r in pinyin_ids:
            self.py.push_back(<int32_t>r)
        self.py_off.push_back(<int32_t>self.py.size())
        members = sorted(set(confusable))
        cdef int size = 1, base = <int>self.cf.size(), slot
        while size < 2 * len(members):
            size <<= 1
        self.cf.resize(base + (size if members else 0), 0)
        for c in members:
            slot = _slot(c, size - 1)
            while self.cf[base + slot] != 0:
                slot = (slot + 1) & (size - 1)
            self.cf[base + slot] = <int32_t>c
        self.cf_mask.push_back(size - 1 if members else -1)
        self.cf_off.push_back(<int32_t>self.cf.size())
        self.counts.push_back(0)
        self.rnd.push_back(mix64(<uint64_t>tid + 0x9e3779b97f4a7c15ULL))
        return tid

    def add_confusion(self, int key, int member) -> None:
        """Record that char ``member`` is listed in the confusion set of char ``key`` (code points); consulted only
        for tokens of several characters (pre-segmented text)."""
        self.conf.insert((<uint64_t>key << 32) | <uint64_t>member)

    def set_merge_punct(self, str chars) -> None:
        """The merger's punctuation string (D-M-I / I-M-D patterns test ``span in string``)."""
        self.merge_punct.clear()
        for ch in chars:
            self.merge_punct.push_back(ord(ch))

    # --- costs -------------------------------------------------------------------------------------------------

    cdef inline bint _confused(self, int32_t key, int32_t member) noexcept nogil:
        return self.conf.count((<uint64_t>key << 32) | <uint64_t>member) > 0

    cdef inline bint _listed(self, int tok, int32_t member) noexcept nogil:
        """member in the confusion set of the one-character token tok (its open-addressing table)."""
        cdef int mask = self.cf_mask[tok], base = self.cf_off[tok], slot
        cdef int32_t v
        if mask < 0:
            return False
        slot = _slot(member, mask)
        while True:
            v = self.cf[base + slot]
            if v == member:
                return True
            if v == 0:
                return False
            slot = (slot + 1) & mask

    cdef bint _pinyin_overlap(self, int a, int b) noexcept nogil:
        cdef int x, y
        for x in range(self.py_off[a], self.py_off[a + 1]):
            for y in range(self.py_off[b], self.py_off[b + 1]):
                if self.py[x] == self.py[y]:
                    return True
        return False

    cdef double _char_cost(self, int a, int b) noexcept nogil:
        """ChERRANT's _get_char_cost / _get_spell_cost for tokens a != b."""
        cdef int la, lb, x, y, count, tmp
        cdef bint shared
        cdef int32_t ca, cb
        if not (self.cjk[a] and self.cjk[b]):
            return 0.5
        la = self.cp_off[a + 1] - self.cp_off[a]
        lb = self.cp_off[b + 1] - self.cp_off[b]
        if la > lb:
            tmp = a; a = b; b = tmp
            tmp = la; la = lb; lb = tmp
        shared = self._pinyin_overlap(a, b)
        if la == 1 and lb == 1:         # two characters (a != b): the common case
            if shared:
                return 0.0
            ca = self.cp[self.cp_off[a]]
            cb = self.cp[self.cp_off[b]]
            if ca == cb or self._listed(b, ca) or self._listed(a, cb):
                return 0.0
            return 0.5
        count = 0
        for x in range(la):
            ca = self.cp[self.cp_off[a] + x]
            for y in range(lb):
                cb = self.cp[self.cp_off[b] + y]
                if ca == cb or shared or self._confused(cb, ca) or self._confused(ca, cb):
                    count += 1
                    break
        return <double>(la - count) / <double>(la * 2)

    cdef double _sub_cost(self, double diag, int a, int b, double bound) noexcept nogil:
        """diag + ChERRANT's substitution cost of tokens a != b, or INF when it must exceed ``bound``: the cheap
        semantic and punctuation parts with a zero char cost already do (IEEE addition is monotone, so the exact
        sum could only be larger)."""
        cdef int sem, diff
        cdef double semantic, pos, ch
        if self.sem_h[a] < 0 or self.sem_h[b] < 0:
            sem = 4
        else:
            diff = ((self.sem_h[a] == self.sem_h[b]) + (self.sem_m[a] == self.sem_m[b])
                    + (self.sem_l[a] == self.sem_l[b]))
            sem = 2 * (3 - diff)
        semantic = <double>sem / 6.0
        if self.punct[a] and self.punct[b]:
            pos = 0.0
        elif not self.punct[a] and not self.punct[b]:
            pos = 0.25
        else:
            pos = 0.499
        if diag + ((semantic + 0.0) + pos) > bound:
            return INF
        ch = self._char_cost(a, b)
        return diag + (semantic + ch + pos)

    # --- DP ----------------------------------------------------------------------------------------------------

    cdef bint _same_multiset(self, int i, int j, int k) noexcept nogil:
        """sorted(s[i-k..i]) == sorted(t[j-k..j]), exactly (counts kept all-zero between calls)."""
        cdef int x, nonzero = 0, before
        cdef int32_t tok
        for x in range(k + 1):
            tok = self.s[i - x]
            before = self.counts[tok]
            self.counts[tok] = before + 1
            nonzero += 1 if before == 0 else (-1 if before == -1 else 0)
            tok = self.t[j - x]
            before = self.counts[tok]
            self.counts[tok] = before - 1
            nonzero += 1 if before == 0 else (-1 if before == 1 else 0)
        for x in range(k + 1):
            self.counts[self.s[i - x]] = 0
            self.counts[self.t[j - x]] = 0
        return nonzero == 0

    cdef void _fill(self) noexcept nogil:
        """ChERRANT's cost and op matrices. The transposition search (widen k from 1 while the diagonal cost keeps
        changing; the first k whose two windows are equal multisets) is computed without the O(k) rescans: the
        diagonal-change run length bounds k from above, the nearest earlier occurrences of s[i] in t and of t[j]
        in s bound it from below, and additive multiset hashes (verified exactly) test each k in O(1)."""
        cdef int n = self.n, m = self.m, W = m + 1, i, j, k, kmin, kmax, ops, last_t
        cdef double ins, dele, sub, trans, best
        cdef const int32_t* s = self.s
        cdef const int32_t* t = self.t
        cdef vector[int] last_s            # per column j: the last row i' <= i with s[i'] == t[j], or -1
        cdef vector[uint64_t] hs, ht       # prefix sums of the tokens' random values
        self.cost.assign((n + 1) * W, 0.0)
        self.opm.assign((n + 1) * W, 0)
        self.tlen.assign((n + 1) * W, 0)
        self.run.assign((n + 1) * W, 0)
        last_s.assign(m, -1)
        hs.assign(n + 1, 0)
        ht.assign(m + 1, 0)
        for i in range(n):
            hs[i + 1] = hs[i] + self.rnd[s[i]]
        for j in range(m):
            ht[j + 1] = ht[j] + self.rnd[t[j]]
        for i in range(1, n + 1):
            self.cost[i * W] = self.cost[(i - 1) * W] + 1
            self.opm[i * W] = B_D
        for j in range(1, m + 1):
            self.cost[j] = self.cost[j - 1] + 1
            self.opm[j] = B_I
        for i in range(n):
            last_t = -1
            for j in range(m):
                if s[i] == t[j]:
                    last_t = j
                    last_s[j] = i
                    self.cost[(i + 1) * W + j + 1] = self.cost[i * W + j]
                    self.opm[(i + 1) * W + j + 1] = B_M
                    self.run[(i + 1) * W + j + 1] = (self.run[i * W + j] + 1
                                                     if self.cost[i * W + j] != self.cost[(i + 1) * W + j + 1] else 0)
                    continue
                dele = self.cost[i * W + j + 1] + 1
                ins = self.cost[(i + 1) * W + j] + 1
                trans = INF
                k = 0
                if last_t >= 0 and last_s[j] >= 0:
                    kmin = j - last_t
                    if i - last_s[j] > kmin:
                        kmin = i - last_s[j]
                    kmax = self.run[i * W + j]
                    k = kmin
                    while k <= kmax:
                        if hs[i + 1] - hs[i - k] == ht[j + 1] - ht[j - k] and self._same_multiset(i, j, k):
                            trans = self.cost[(i - k) * W + j - k] + k
                            break
                        k += 1
                best = trans if trans < ins else ins
                if dele < best:
                    best = dele
                sub = self._sub_cost(self.cost[i * W + j], s[i], t[j], best)
                best = trans
                if sub < best:
                    best = sub
                if ins < best:
                    best = ins
                if dele < best:
                    best = dele
                ops = 0
                if trans == best:
                    ops |= B_T
                    self.tlen[(i + 1) * W + j + 1] = k + 1
                if sub == best:
                    ops |= B_S
                if ins == best:
                    ops |= B_I
                if dele == best:
                    ops |= B_D
                self.cost[(i + 1) * W + j + 1] = best
                self.opm[(i + 1) * W + j + 1] = ops
                self.run[(i + 1) * W + j + 1] = (self.run[i * W + j] + 1
                                                 if self.cost[i * W + j] != best else 0)

    # --- merger ------------------------------------------------------------------------------------------------

    cdef void _join(self, const int32_t* toks, int lo, int hi, vector[int32_t]& out) noexcept nogil:
        cdef int x, y
        out.clear()
        for x in range(lo, hi):
            for y in range(self.cp_off[toks[x]], self.cp_off[toks[x] + 1]):
                out.push_back(self.cp[y])

    cdef inline int _tok_len(self, int32_t tok) noexcept nogil:
        return self.cp_off[tok + 1] - self.cp_off[tok]

    cdef bint _tok_at(self, int32_t tok, vector[int32_t]& text, long pos) noexcept nogil:
        """text[pos:pos+len(tok)] == tok (False when out of range)."""
        cdef int L = self._tok_len(tok), x
        if pos < 0 or pos + L > <long>text.size():
            return False
        for x in range(L):
            if text[pos + x] != self.cp[self.cp_off[tok] + x]:
                return False
        return True

    cdef void _group(self, vector[Op]& seq, vector[Op]& out) noexcept nogil:
        """Runs of M, of T and of the rest; T split, the rest through ChERRANT's _process_seq (char granularity)."""
        cdef size_t a = 0, b, x, L = seq.size()
        cdef int key, kx, has_d, has_i, has_s, has_m
        while a < L:
            key = 0 if seq[a].op == OP_M else (1 if seq[a].op == OP_T else 2)
            b = a + 1
            while b < L:
                kx = 0 if seq[b].op == OP_M else (1 if seq[b].op == OP_T else 2)
                if kx != key:
                    break
                b += 1
            if key == 1 or b - a == 1:
                for x in range(a, b):
                    out.push_back(seq[x])
            elif key == 0:
                out.push_back(_span(OP_M, seq[a], seq[b - 1]))
            else:
                has_d = has_i = has_s = 0
                for x in range(a, b):
                    if seq[x].op == OP_D:
                        has_d = 1
                    elif seq[x].op == OP_I:
                        has_i = 1
                    else:
                        has_s = 1
                if has_d and not has_i and not has_s:
                    out.push_back(_span(OP_D, seq[a], seq[b - 1]))
                elif has_i and not has_d and not has_s:
                    out.push_back(_span(OP_I, seq[a], seq[b - 1]))
                elif has_d and has_i and not has_s:
                    for x in range(a, b):
                        out.push_back(seq[x])
                else:
                    out.push_back(_span(OP_S, seq[a], seq[b - 1]))
            a = b

    cdef void _patterns(self, vector[Op]& edits, vector[Op]& out) noexcept nogil:
        """The S-M-S and D-M-I / I-M-D transposition patterns; matches dropped."""
        cdef size_t i = 0, L = edits.size()
        cdef int e1, e2, e3
        cdef vector[int32_t] w1, w2, w3, w4, aa
        cdef size_t mn
        cdef bint merge
        while i < L:
            e1 = edits[i].op
            if i + 2 < L:
                e2 = edits[i + 1].op
                e3 = edits[i + 2].op
                if e1 == OP_S and e2 == OP_M and e3 == OP_S:
                    self._join(self.s, edits[i].o1, edits[i].o2, w1)
                    self._join(self.t, edits[i].c1, edits[i].c2, w2)
                    self._join(self.s, edits[i + 2].o1, edits[i + 2].o2, w3)
                    self._join(self.t, edits[i + 2].c1, edits[i + 2].c2, w4)
                    mn = min(min(w1.size(), w2.size()), min(w3.size(), w4.size()))
                    if mn == 1:
                        merge = w1 == w4 and w2 == w3
                    else:
                        merge = _levenshtein(w1, w4) <= 1 and _levenshtein(w2, w3) <= 1
                    if merge:
                        out.push_back(_span(OP_T, edits[i], edits[i + 2]))
                        i += 3
                    else:
                        out.push_back(edits[i])
                        i += 1
                    continue
                if ((e1 == OP_D and e3 == OP_I) or (e1 == OP_I and e3 == OP_D)) and (e2 == OP_M or e2 == OP_T):
                    if e1 == OP_D:
                        self._join(self.s, edits[i].o1, edits[i].o2, w1)
                        self._join(self.t, edits[i + 2].c1, edits[i + 2].c2, w2)
                    else:
                        self._join(self.s, edits[i + 2].o1, edits[i + 2].o2, w1)
                        self._join(self.t, edits[i].c1, edits[i].c2, w2)
                    if w1.size() < w2.size():
                        w1.swap(w2)
                    merge = False
                    if (not _contains(self.merge_punct, w1) and not _contains(self.merge_punct, w2)
                            and <long>w1.size() - <long>w2.size() <= 1):
                        if w2.size() == 1:
                            merge = w1 == w2
                        else:
                            merge = _levenshtein(w1, w2) <= 1
                            if not merge and w1.size() == w2.size():
                                aa = w1
                                aa.insert(aa.end(), w1.begin(), w1.end())
                                merge = _contains(aa, w2)
                    if merge:
                        out.push_back(_span(OP_T, edits[i], edits[i + 2]))
                        i += 3
                    else:
                        out.push_back(edits[i])
                        i += 1
                    continue
            if e1 != OP_M:
                out.push_back(edits[i])
            i += 1

    cdef void _trim(self, vector[Op]& edits, vector[Op]& out) noexcept nogil:
        """Drop edits whose two sides read the same; trim the shared head and tail of S edits."""
        cdef vector[int32_t] span1, span2
        cdef Op e
        cdef bint keep
        cdef int x, ns1, ns2, ne1, ne2, tmp1, op
        cdef long common, acc, L2
        for e in edits:
            self._join(self.s, e.o1, e.o2, span1)
            self._join(self.t, e.c1, e.c2, span2)
            if span1 == span2:
                continue
            if e.op != OP_S:
                out.push_back(e)
                continue
            keep = True
            L2 = <long>span2.size()
            # shared head
            common = 0
            tmp1 = e.o1
            for x in range(e.o1, e.o2):
                if not self._tok_at(self.s[x], span2, common):
                    break
                common += self._tok_len(self.s[x])
                tmp1 = x + 1
            ns1 = e.o1
            ns2 = e.c1
            if common > 0:
                acc = 0
                for x in range(e.c1, e.c2):
                    acc += self._tok_len(self.t[x])
                    if acc == common:
                        ns1 = tmp1
                        ns2 = x + 1
                        keep = False
                        break
                    elif acc > common:
                        break
            # shared tail (tested against the whole target span, as ChERRANT does)
            common = 0
            ne1 = e.o2
            ne2 = e.c2
            tmp1 = e.o2
            x = e.o2 - 1
            while x >= ns1:
                if not self._tok_at(self.s[x], span2, L2 - common - self._tok_len(self.s[x])):
                    break
                common += self._tok_len(self.s[x])
                tmp1 = x
                x -= 1
            if common > 0:
                acc = 0
                x = e.c2 - 1
                while x >= ns2:
                    acc += self._tok_len(self.t[x])
                    if acc == common:
                        ne1 = tmp1
                        ne2 = x
                        keep = False
                        break
                    elif acc > common:
                        break
                    x -= 1
            if keep:
                out.push_back(e)
            else:
                if ns1 == ne1:
                    op = OP_I
                elif ns2 == ne2:
                    op = OP_D
                else:
                    op = OP_S
                out.push_back(_op(op, ns1, ne1, ns2, ne2))

    cdef void _merge(self, vector[Op]& path, vector[Op]& out) noexcept nogil:
        cdef vector[Op] grouped, patterned
        self._group(path, grouped)
        self._patterns(grouped, patterned)
        out.clear()
        self._trim(patterned, out)

    # --- backtrace ---------------------------------------------------------------------------------------------

    cdef long _paths(self, bint all_paths, long max_paths, vector[vector[Op]]& found) except -1 nogil:
        """Depth-first over the op matrix from (n, m), ops in cell order; each complete path merged, distinct merged
        edit lists kept in order. Returns the number of paths walked (-1 with an exception past max_paths)."""
        cdef vector[Frame] frames
        cdef vector[Op] path, fwd, merged
        cdef Frame f
        cdef int W = self.m + 1, bit, ops, i, j, k
        cdef long walked = 0
        cdef size_t x
        cdef bint seen
        f.i = self.n; f.j = self.m; f.next_bit = 0
        frames.push_back(f)
        while not frames.empty():
            i = frames.back().i
            j = frames.back().j
            if i + j == 0:
                walked += 1
                if max_paths > 0 and walked > max_paths:
                    with gil:
                        raise OverflowError(f"more than {max_paths} minimum-cost alignments")
                fwd.assign(path.rbegin(), path.rend())
                self._merge(fwd, merged)
                seen = False
                for x in range(found.size()):
                    if _same(found[x], merged):
                        seen = True
                        break
                if not seen:
                    found.push_back(merged)
                frames.pop_back()
                if not path.empty():
                    path.pop_back()
                continue
            ops = self.opm[i * W + j]
            bit = frames.back().next_bit
            if not all_paths and bit > 0:
                bit = 5
            while bit < 5 and not (ops & (1 << bit)):
                bit += 1
            if bit >= 5:
                frames.pop_back()
                if not path.empty():
                    path.pop_back()
                continue
            frames.back().next_bit = bit + 1
            if bit == 0:        # T
                k = self.tlen[i * W + j]
                path.push_back(_op(OP_T, i - k, i, j - k, j))
                f.i = i - k; f.j = j - k
            elif bit == 1 or bit == 4:      # S, M
                path.push_back(_op(OP_S if bit == 1 else OP_M, i - 1, i, j - 1, j))
                f.i = i - 1; f.j = j - 1
            elif bit == 2:      # I
                path.push_back(_op(OP_I, i, i, j - 1, j))
                f.i = i; f.j = j - 1
            else:               # D
                path.push_back(_op(OP_D, i - 1, i, j, j))
                f.i = i - 1; f.j = j
            f.next_bit = 0
            frames.push_back(f)
        return walked

    def annotate(self, const int32_t[::1] src, const int32_t[::1] tgt, bint all_paths=True, long max_paths=0):
        """Distinct merged edit lists for one pair of token-id arrays (sentences that differ).

        ``all_paths``: every minimum-cost alignment (ChERRANT ``-s all``), else the first only; both take only the
        first when the lengths differ by more than 10. Returns (alignments, paths walked); each alignment is a list of
        ``(type, o_start, o_end, c_start, c_end)`` with type W / R / M / S."""
        cdef vector[vector[Op]] found
        cdef long walked
        cdef int32_t zero = 0
        self.n = <int>src.shape[0]
        self.m = <int>tgt.shape[0]
        self.s = &zero
        self.t = &zero
        if self.n:
            self.s = &src[0]
        if self.m:
            self.t = &tgt[0]
        with nogil:
            self._fill()
            if self.n - self.m > 10 or self.m - self.n > 10:
                all_paths = False
            walked = self._paths(all_paths, max_paths, found)
        result = []
        names = ("M", "W", "S", "M", "R")     # by op: M (never left), T, S, I, D
        for x in range(found.size()):
            result.append([(names[e.op], e.o1, e.o2, e.c1, e.c2) for e in found[x]])
        return result, walked

