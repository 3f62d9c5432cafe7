# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""ERRANT's rule-based merger for English (errant/en/merger.py) over token arrays.

The alignment is cut into runs of matches, transpositions and the rest; transpositions are always split, matches dropped,
and each run of D/I/S operations goes through process_seq: candidate sub-spans, longest first, are tested against the
possessive, case, punctuation, whitespace/hyphen, same-POS and split rules in errant's order."""
from libcpp.vector cimport vector
from peet_fast._ext.tokens cimport (Sent, v_lower, indel_normalized_distance, F_PUNCT, F_FIRST_UPPER, F_TAG_POS,
                                     POS_ADJ, POS_AUX, POS_ADV, POS_NOUN, POS_VERB, POS_PART, POS_DET)
from peet_fast._ext.align cimport AlignOp, EditSpan, OP_M, OP_T, OP_S, OP_D, OP_I


cdef inline void _emit(vector[EditSpan]& out, AlignOp& a, AlignOp& b) noexcept nogil:
    cdef EditSpan e
    e.o1 = a.o1; e.o2 = b.o2; e.c1 = a.c1; e.c2 = b.c2
    out.push_back(e)


cdef inline void _emit_each(vector[EditSpan]& out, vector[AlignOp]& seq, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    cdef Py_ssize_t t
    for t in range(lo, hi):
        _emit(out, seq[t], seq[t])


cdef inline void _merge(vector[EditSpan]& out, vector[AlignOp]& seq, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    if hi > lo:
        _emit(out, seq[lo], seq[hi - 1])


cdef inline bint _is_open(int p) noexcept nogil:
    return p == POS_ADJ or p == POS_AUX or p == POS_ADV or p == POS_NOUN or p == POS_VERB


cdef bint _same_nohyph(Sent orig, Py_ssize_t o1, Py_ssize_t o2, Sent cor, Py_ssize_t c1, Py_ssize_t c2):
    """errant: sub("['-]", "", "".join(lower_ of o)) == the same for c"""
    cdef Py_ssize_t lo = 0, lc = 0, t
    for t in range(o1, o2):
        lo += len(<str>orig.nohyph[t])
    for t in range(c1, c2):
        lc += len(<str>cor.nohyph[t])
    if lo != lc:
        return False
    return "".join(orig.nohyph[o1:o2]) == "".join(cor.nohyph[c1:c2])


cdef void process_seq(Sent orig, Sent cor, vector[AlignOp]& seq, Py_ssize_t lo, Py_ssize_t hi,
                      vector[EditSpan]& out) except *:
    cdef Py_ssize_t L = hi - lo, d, start, end, t, o1, o2, c1, c2, no, nc
    cdef bint has_d = False, has_i = False, has_s = False, content = False, single_pos, aux_verb, content_here
    cdef int p, first_p
    if L <= 1:
        _emit_each(out, seq, lo, hi)
        return
    for t in range(lo, hi):
        if seq[t].op == OP_D: has_d = True
        elif seq[t].op == OP_I: has_i = True
        else: has_s = True
    # Merge all D xor I ops
    if (has_d and not has_i and not has_s) or (has_i and not has_d and not has_s):
        _merge(out, seq, lo, hi)
        return
    # Sub-spans [start, end], longest first; equal lengths in order of start (a stable sort of combinations)
    for d in range(L - 1, 0, -1):
        for start in range(0, L - d):
            end = start + d
            has_s = False
            for t in range(lo + start, lo + end + 1):
                if seq[t].op == OP_S:
                    has_s = True
                    break
            if not has_s:
                continue
            o1 = seq[lo + start].o1; o2 = seq[lo + end].o2
            c1 = seq[lo + start].c1; c2 = seq[lo + end].c2
            no = o2 - o1
            nc = c2 - c1
            # First token possessive suffixes
            if start == 0 and (orig.flags[o1] & F_TAG_POS or cor.flags[c1] & F_TAG_POS):
                _emit(out, seq[lo], seq[lo])
                process_seq(orig, cor, seq, lo + 1, hi, out)
                return
            # Merge possessive suffixes: [friends -> friend 's]
            if orig.flags[o2 - 1] & F_TAG_POS or cor.flags[c2 - 1] & F_TAG_POS:
                process_seq(orig, cor, seq, lo, lo + end - 1, out)
                _merge(out, seq, lo + end - 1, lo + end + 1)
                process_seq(orig, cor, seq, lo + end + 1, hi, out)
                return
            # Case changes
            if v_lower(&orig.v, o2 - 1) == v_lower(&cor.v, c2 - 1):
                # Merge first token I or D: [Cat -> The big cat]
                if start == 0 and ((no == 1 and cor.flags[c1] & F_FIRST_UPPER) or
                                   (nc == 1 and orig.flags[o1] & F_FIRST_UPPER)):
                    _merge(out, seq, lo + start, lo + end + 1)
                    process_seq(orig, cor, seq, lo + end + 1, hi, out)
                    return
                # Merge with previous punctuation: [, we -> . We], [we -> . We]
                if (no > 1 and orig.flags[o2 - 2] & F_PUNCT) or (nc > 1 and cor.flags[c2 - 2] & F_PUNCT):
                    process_seq(orig, cor, seq, lo, lo + end - 1, out)
                    _merge(out, seq, lo + end - 1, lo + end + 1)
                    process_seq(orig, cor, seq, lo + end + 1, hi, out)
                    return
            # Merge whitespace/hyphens: [acat -> a cat], [sub - way -> subway]
            if _same_nohyph(orig, o1, o2, cor, c1, c2):
                process_seq(orig, cor, seq, lo, lo + start, out)
                _merge(out, seq, lo + start, lo + end + 1)
                process_seq(orig, cor, seq, lo + end + 1, hi, out)
                return
            # Merge same POS or auxiliary/infinitive/phrasal verbs: [to eat -> eating], [watch -> look at]
            first_p = orig.pos[o1]
            single_pos = True
            aux_verb = True
            content_here = False
            for t in range(o1, o2):
                p = orig.pos[t]
                if p != first_p: single_pos = False
                if not (p == POS_AUX or p == POS_PART or p == POS_VERB): aux_verb = False
                if _is_open(p): content_here = True
            for t in range(c1, c2):
                p = cor.pos[t]
                if p != first_p: single_pos = False
                if not (p == POS_AUX or p == POS_PART or p == POS_VERB): aux_verb = False
                if _is_open(p): content_here = True
            if no != nc and (single_pos or aux_verb):
                process_seq(orig, cor, seq, lo, lo + start, out)
                _merge(out, seq, lo + start, lo + end + 1)
                process_seq(orig, cor, seq, lo + end + 1, hi, out)
                return
            # Split rules take effect when we get to smallest chunks
            if end - start < 2:
                # Split adjacent substitutions
                if no == 2 and nc == 2:
                    process_seq(orig, cor, seq, lo, lo + start + 1, out)
                    process_seq(orig, cor, seq, lo + start + 1, hi, out)
                    return
                # Split similar substitutions at sequence boundaries
                if (seq[lo + start].op == OP_S and 1.0 - indel_normalized_distance(&orig.v, o1, &cor.v, c1) > 0.75) or \
                        (seq[lo + end].op == OP_S and 1.0 - indel_normalized_distance(&orig.v, o2 - 1, &cor.v, c2 - 1) > 0.75):
                    process_seq(orig, cor, seq, lo, lo + start + 1, out)
                    process_seq(orig, cor, seq, lo + start + 1, hi, out)
                    return
                # Split final determiners
                if end == L - 1 and (((seq[hi - 1].op == OP_D or seq[hi - 1].op == OP_S) and orig.pos[o2 - 1] == POS_DET) or
                                     ((seq[hi - 1].op == OP_I or seq[hi - 1].op == OP_S) and cor.pos[c2 - 1] == POS_DET)):
                    process_seq(orig, cor, seq, lo, hi - 1, out)
                    _emit(out, seq[hi - 1], seq[hi - 1])
                    return
            if content_here:
                content = True
    # Merge sequences that contain content words
    if content:
        _merge(out, seq, lo, hi)
    else:
        _emit_each(out, seq, lo, hi)


cdef vector[EditSpan] rule_edits(Sent orig, Sent cor, vector[AlignOp]& seq) except *:
    cdef vector[EditSpan] out
    cdef Py_ssize_t t = 0, s, L = seq.size()
    cdef int kind
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
        process_seq(orig, cor, seq, s, t + 1, out)
        t += 1
    return out
