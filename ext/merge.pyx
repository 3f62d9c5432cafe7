# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""ERRANT's rule-based merger for English (errant/en/merger.py) over token arrays.

The alignment is cut into runs of matches, transpositions and the rest; transpositions are always split, matches dropped,
and each run of D/I/S operations goes through process_seq: candidate sub-spans, longest first, are tested against the
possessive, case, punctuation, whitespace/hyphen, same-POS and split rules in errant's order.

errant visits every sub-span of a run (and each visit reads the whole span), then recurses into the parts a rule
leaves: a run of L operations costs up to O(L^4) (a 300-token sentence against an unrelated one took 33 s, a
10,000-token one would take days). The same decisions are taken here in O(L^2) span tests in all:

- each test is O(1): prefix sums over the whole pair (substitutions in the run, tokens outside AUX/PART/VERB, open-class
  tokens, characters of the hyphen-free lower-case forms), same-POS run lengths and a polynomial hash of the hyphen-free
  characters (equal hashes are confirmed on the strings, so a collision costs time, never a different result);
- a span errant has already tested without a rule firing is not tested again in a part: every rule but three depends
  on the span alone, so a span longer than the one that fired in an enclosing run fired nothing there and fires nothing
  here; only the three rules that depend on the span's place in the run (the possessive first token, the first-token
  case merge and the final determiner, all at the run's start or end) are tested on it again;
- the content-word flag errant collects over the spans it tests is, when no rule fires, that of the whole run (every
  span lies inside it);
- the parts are processed from an explicit stack, not by recursion (a run of 10,000 possessives would otherwise nest
  10,000 C frames), and signals are checked every SIGNAL_SPANS span tests."""
from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport int32_t, int64_t, uint64_t
from libcpp.vector cimport vector
from peet_fast._ext.tokens cimport (Sent, v_lower, indel_normalized_distance, F_PUNCT, F_FIRST_UPPER, F_TAG_POS,
                                     POS_ADJ, POS_AUX, POS_ADV, POS_NOUN, POS_VERB, POS_PART, POS_DET)
from peet_fast._ext.align cimport AlignOp, EditSpan, OP_M, OP_T, OP_S, OP_D, OP_I

cdef extern from *:
    """
    #include <cstdint>
    static const uint64_t PEET_M61 = (((uint64_t)1) << 61) - 1;
    static inline uint64_t peet_mulmod61(uint64_t a, uint64_t b) {
        unsigned __int128 p = (unsigned __int128)a * b;
        uint64_t r = (uint64_t)(p & PEET_M61) + (uint64_t)(p >> 61);
        return r >= PEET_M61 ? r - PEET_M61 : r;
    }
    """
    const uint64_t PEET_M61
    uint64_t peet_mulmod61(uint64_t a, uint64_t b) noexcept nogil

cdef enum:
    SIGNAL_SPANS = 1 << 18          # span tests between two signal checks (a few ms)
    W_RUN = 0                       # work items: process_seq of a run
    W_EACH = 1                      # each operation its own edit
    W_MERGE = 2                     # the operations as one edit

cdef uint64_t HASH_BASE = 1000000007 * 1299709 + 12345


cdef struct Work:
    int kind
    Py_ssize_t lo
    Py_ssize_t hi
    Py_ssize_t clean                # spans longer than this have been tested (no rule fired) in an enclosing run


cdef inline void _emit(vector[EditSpan]& out, AlignOp& a, AlignOp& b) noexcept nogil:
    cdef EditSpan e
    e.o1 = a.o1; e.o2 = b.o2; e.c1 = a.c1; e.c2 = b.c2
    out.push_back(e)


cdef inline bint _is_open(int p) noexcept nogil:
    return p == POS_ADJ or p == POS_AUX or p == POS_ADV or p == POS_NOUN or p == POS_VERB


cdef inline bint _aux_verb(int p) noexcept nogil:
    return p == POS_AUX or p == POS_PART or p == POS_VERB


cdef class _Side:
    """Prefix tables of one sentence for O(1) span tests."""
    cdef vector[int32_t] run        # run[t]: end of the run of tokens with token t's POS
    cdef vector[int32_t] other      # tokens outside AUX/PART/VERB before t
    cdef vector[int32_t] open_      # open-class tokens before t
    cdef vector[int64_t] clen       # characters of the hyphen-free lower-case forms before token t
    cdef vector[uint64_t] hash_     # polynomial hash of those characters, per character prefix

    cdef void build(self, Sent s, vector[uint64_t]& pw) except *:
        cdef Py_ssize_t n = s.n, t
        cdef int p
        cdef Py_UCS4 ch
        cdef str w
        cdef int64_t k = 0
        self.run.resize(n + 1)
        self.other.resize(n + 1)
        self.open_.resize(n + 1)
        self.clen.resize(n + 1)
        self.other[0] = 0
        self.open_[0] = 0
        self.clen[0] = 0
        self.hash_.clear()
        self.hash_.push_back(0)
        self.run[n] = n
        for t in range(n - 1, -1, -1):
            self.run[t] = self.run[t + 1] if t + 1 < n and s.pos[t + 1] == s.pos[t] else t + 1
        for t in range(n):
            p = s.pos[t]
            self.other[t + 1] = self.other[t] + (0 if _aux_verb(p) else 1)
            self.open_[t + 1] = self.open_[t] + (1 if _is_open(p) else 0)
            w = <str>s.nohyph[t]
            for ch in w:
                self.hash_.push_back((peet_mulmod61(self.hash_[k], HASH_BASE) + <uint64_t>ch + 1) % PEET_M61)
                k += 1
            self.clen[t + 1] = k
        while <int64_t>pw.size() <= k:
            pw.push_back(peet_mulmod61(pw[pw.size() - 1], HASH_BASE))

    cdef inline uint64_t span_hash(self, Py_ssize_t a, Py_ssize_t b, vector[uint64_t]& pw) noexcept nogil:
        cdef int64_t x = self.clen[a], y = self.clen[b]
        return (self.hash_[y] + PEET_M61 - peet_mulmod61(self.hash_[x], pw[y - x])) % PEET_M61


cdef class _Merger:
    """One pair's merge: the run tables and the work stack."""
    cdef Sent orig, cor
    cdef _Side os, cs
    cdef bint ready
    cdef vector[uint64_t] pw
    cdef vector[int32_t] subs       # substitutions among the alignment's operations before t
    cdef vector[Work] stack
    cdef Py_ssize_t tests

    def __cinit__(self, Sent orig, Sent cor):
        self.orig = orig
        self.cor = cor
        self.ready = False
        self.tests = 0

    cdef void prepare(self, vector[AlignOp]& seq) except *:
        cdef Py_ssize_t t, L = seq.size()
        self.os = _Side()
        self.cs = _Side()
        self.pw.clear()
        self.pw.push_back(1)
        self.os.build(self.orig, self.pw)
        self.cs.build(self.cor, self.pw)
        self.subs.resize(L + 1)
        self.subs[0] = 0
        for t in range(L):
            self.subs[t + 1] = self.subs[t] + (1 if seq[t].op == OP_S else 0)
        self.ready = True

    cdef inline int push(self, int kind, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t clean) except -1:
        cdef Work w
        w.kind = kind; w.lo = lo; w.hi = hi; w.clean = clean
        self.stack.push_back(w)
        return 0

    cdef bint same_nohyph(self, Py_ssize_t o1, Py_ssize_t o2, Py_ssize_t c1, Py_ssize_t c2) except -1:
        """errant: sub("['-]", "", "".join(lower_ of o)) == the same for c"""
        if self.os.clen[o2] - self.os.clen[o1] != self.cs.clen[c2] - self.cs.clen[c1]:
            return False
        if self.os.span_hash(o1, o2, self.pw) != self.cs.span_hash(c1, c2, self.pw):
            return False
        return "".join(self.orig.nohyph[o1:o2]) == "".join(self.cor.nohyph[c1:c2])

    cdef int run(self, vector[AlignOp]& seq, Py_ssize_t lo, Py_ssize_t hi, vector[EditSpan]& out) except -1:
        """process_seq of the run seq[lo:hi], its edits appended to out in errant's order."""
        cdef Work w
        cdef Py_ssize_t t
        self.stack.clear()
        self.push(W_RUN, lo, hi, hi - lo)
        while self.stack.size():
            w = self.stack.back()
            self.stack.pop_back()
            if w.kind == W_EACH:
                for t in range(w.lo, w.hi):
                    _emit(out, seq[t], seq[t])
            elif w.kind == W_MERGE:
                if w.hi > w.lo:
                    _emit(out, seq[w.lo], seq[w.hi - 1])
            else:
                self.process(seq, w.lo, w.hi, w.clean)
        return 0

    cdef int process(self, vector[AlignOp]& seq, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t clean) except -1:
        """One step of errant's process_seq on seq[lo:hi]: the rule that fires on the first span (longest first,
        then by start) pushes its parts (in reverse, the stack being LIFO)."""
        cdef Sent orig = self.orig, cor = self.cor
        cdef Py_ssize_t L = hi - lo, d, start, end, S, E, o1, o2, c1, c2, no, nc, last, c, t
        cdef bint has_d = False, has_i = False, has_s = False
        cdef int first_p
        if L <= 1:
            self.push(W_EACH, lo, hi, 0)
            return 0
        for t in range(lo, hi):
            if seq[t].op == OP_D: has_d = True
            elif seq[t].op == OP_I: has_i = True
            else: has_s = True
        # Merge all D xor I ops
        if (has_d and not has_i and not has_s) or (has_i and not has_d and not has_s):
            self.push(W_MERGE, lo, hi, 0)
            return 0
        if not has_s:                   # no span holds a substitution: no rule can fire, no content flag is set
            self.push(W_EACH, lo, hi, 0)
            return 0
        if not self.ready:
            self.prepare(seq)
        # First token possessive suffixes: tested on the first span holding a substitution, the whole run
        o1 = seq[lo].o1
        c1 = seq[lo].c1
        if orig.flags[o1] & F_TAG_POS or cor.flags[c1] & F_TAG_POS:
            self.push(W_RUN, lo + 1, hi, clean if clean < L - 1 else L - 1)
            self.push(W_EACH, lo, lo + 1, 0)
            return 0
        last = hi - 1
        for d in range(L - 1, 0, -1):
            for start in range(0, L - d):
                if d > clean and start > 0:
                    break                                 # tested in an enclosing run: only start 0 can fire
                self.tests += 1
                if self.tests >= SIGNAL_SPANS:
                    self.tests = 0
                    PyErr_CheckSignals()
                end = start + d
                S = lo + start
                E = lo + end
                if self.subs[E + 1] == self.subs[S]:      # no substitution in the span
                    continue
                c = clean if clean < d else d             # what the parts inherit
                o1 = seq[S].o1; o2 = seq[E].o2
                c1 = seq[S].c1; c2 = seq[E].c2
                no = o2 - o1
                nc = c2 - c1
                if d > clean:
                    # tested in an enclosing run with no rule firing: only the first-token case merge can fire
                    if start == 0 and v_lower(&orig.v, o2 - 1) == v_lower(&cor.v, c2 - 1) and \
                            ((no == 1 and cor.flags[c1] & F_FIRST_UPPER) or
                             (nc == 1 and orig.flags[o1] & F_FIRST_UPPER)):
                        self.push(W_RUN, E + 1, hi, c)
                        self.push(W_MERGE, S, E + 1, 0)
                        return 0
                    continue
                # Merge possessive suffixes: [friends -> friend 's]
                if orig.flags[o2 - 1] & F_TAG_POS or cor.flags[c2 - 1] & F_TAG_POS:
                    self.push(W_RUN, E + 1, hi, c)
                    self.push(W_MERGE, E - 1, E + 1, 0)
                    self.push(W_RUN, lo, E - 1, c)
                    return 0
                # Case changes
                if v_lower(&orig.v, o2 - 1) == v_lower(&cor.v, c2 - 1):
                    # Merge first token I or D: [Cat -> The big cat]
                    if start == 0 and ((no == 1 and cor.flags[c1] & F_FIRST_UPPER) or
                                       (nc == 1 and orig.flags[o1] & F_FIRST_UPPER)):
                        self.push(W_RUN, E + 1, hi, c)
                        self.push(W_MERGE, S, E + 1, 0)
                        return 0
                    # Merge with previous punctuation: [, we -> . We], [we -> . We]
                    if (no > 1 and orig.flags[o2 - 2] & F_PUNCT) or (nc > 1 and cor.flags[c2 - 2] & F_PUNCT):
                        self.push(W_RUN, E + 1, hi, c)
                        self.push(W_MERGE, E - 1, E + 1, 0)
                        self.push(W_RUN, lo, E - 1, c)
                        return 0
                # Merge whitespace/hyphens: [acat -> a cat], [sub - way -> subway]
                # Merge same POS or auxiliary/infinitive/phrasal verbs: [to eat -> eating], [watch -> look at]
                first_p = orig.pos[o1]
                if self.same_nohyph(o1, o2, c1, c2) or (
                        no != nc and ((self.os.run[o1] >= o2 and cor.pos[c1] == first_p and self.cs.run[c1] >= c2) or
                                      (self.os.other[o2] == self.os.other[o1] and
                                       self.cs.other[c2] == self.cs.other[c1]))):
                    self.push(W_RUN, E + 1, hi, c)
                    self.push(W_MERGE, S, E + 1, 0)
                    self.push(W_RUN, lo, S, c)
                    return 0
                # Split rules take effect when we get to smallest chunks
                if d < 2:
                    # Split adjacent substitutions; split similar substitutions at sequence boundaries
                    if (no == 2 and nc == 2) or \
                            (seq[S].op == OP_S and 1.0 - indel_normalized_distance(&orig.v, o1, &cor.v, c1) > 0.75) or \
                            (seq[E].op == OP_S and
                             1.0 - indel_normalized_distance(&orig.v, o2 - 1, &cor.v, c2 - 1) > 0.75):
                        self.push(W_RUN, S + 1, hi, c)
                        self.push(W_RUN, lo, S + 1, c)
                        return 0
                    # Split final determiners
                    if E == last and (((seq[last].op == OP_D or seq[last].op == OP_S) and orig.pos[o2 - 1] == POS_DET)
                                      or ((seq[last].op == OP_I or seq[last].op == OP_S) and
                                          cor.pos[c2 - 1] == POS_DET)):
                        self.push(W_EACH, last, hi, 0)
                        self.push(W_RUN, lo, last, c)
                        return 0
        # Merge sequences that contain content words (every span lies inside the whole run, which holds a substitution)
        o1 = seq[lo].o1; o2 = seq[last].o2
        c1 = seq[lo].c1; c2 = seq[last].c2
        if self.os.open_[o2] > self.os.open_[o1] or self.cs.open_[c2] > self.cs.open_[c1]:
            self.push(W_MERGE, lo, hi, 0)
        else:
            self.push(W_EACH, lo, hi, 0)
        return 0


cdef vector[EditSpan] rule_edits(Sent orig, Sent cor, vector[AlignOp]& seq) except *:
    cdef vector[EditSpan] out
    cdef Py_ssize_t t = 0, s, L = seq.size()
    cdef int kind
    cdef _Merger merger = None
    while t < L:
        kind = seq[t].op
        if kind == OP_M:
            t += 1
            continue
        if kind == OP_T:
            _emit(out, seq[t], seq[t])
            t += 1
            continue
        s = t
        while t + 1 < L and seq[t + 1].op != OP_M and seq[t + 1].op != OP_T:
            t += 1
        if t == s:
            _emit(out, seq[s], seq[s])
        else:
            if merger is None:
                merger = _Merger(orig, cor)
            merger.run(seq, s, t + 1, out)
        t += 1
    return out
