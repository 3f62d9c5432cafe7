# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The per-pair driver: align -> merge -> classify, entirely in compiled code, for one pair or a batch."""
import gc

from cpython.exc cimport PyErr_CheckSignals
from libcpp.vector cimport vector
from peet_fast._ext.tokens cimport Sent
from peet_fast._ext.align cimport AlignOp, EditSpan, align_seq, all_split, all_merge, all_equal
from peet_fast._ext.merge cimport rule_edits
from peet_fast._ext.classify cimport classify_edit

MERGE_STRATEGIES = ("rules", "all-split", "all-merge", "all-equal")


cdef vector[EditSpan] edit_spans(Sent orig, Sent cor, bint lev, int merge) except *:
    """Align, then merge with strategy `merge` (an index into MERGE_STRATEGIES)."""
    cdef vector[AlignOp] seq = align_seq(orig, cor, lev)
    if merge == 0:
        return rule_edits(orig, cor, seq)
    if merge == 1:
        return all_split(seq)
    if merge == 2:
        return all_merge(seq)
    return all_equal(seq)


cdef list annotate_pair(Sent orig, Sent cor, bint lev, int merge):
    cdef vector[EditSpan] spans = edit_spans(orig, cor, lev, merge)
    cdef EditSpan e
    cdef list out = []
    cdef str o_str, c_str
    for e in spans:
        o_str = orig.span_text(e.o1, e.o2)
        c_str = cor.span_text(e.c1, e.c2)
        out.append((e.o1, e.o2, e.c1, e.c2, o_str, c_str,
                    classify_edit(orig, e.o1, e.o2, cor, e.c1, e.c2, e.o2 > e.o1 and e.c2 > e.c1 and o_str == c_str)))
    return out


cdef int _merge_code(str merge) except -1:
    try:
        return MERGE_STRATEGIES.index(merge)
    except ValueError:
        raise ValueError(f"unknown merging strategy {merge!r}; choose from: {', '.join(MERGE_STRATEGIES)}")


def annotate(Sent orig, Sent cor, bint lev=False, str merge="rules"):
    """Edits orig -> cor as a list of (o_start, o_end, c_start, c_end, o_str, c_str, type) tuples."""
    return annotate_pair(orig, cor, lev, _merge_code(merge))


def annotate_many(list origs, list cors, bint lev=False, str merge="rules"):
    """annotate() over parallel lists of Sents; None in either list gives no edits (an identical pair)."""
    cdef int code = _merge_code(merge)
    cdef Py_ssize_t k, n = len(origs)
    if len(cors) != n:
        raise ValueError("origs and cors differ in length")
    cdef list out = [None] * n
    # The results are acyclic tuples; a cyclic-GC pass over a heap holding a spaCy pipeline costs more than the
    # annotation itself, so collection is paused for the batch.
    cdef bint was_enabled = gc.isenabled()
    gc.disable()
    try:
        for k in range(n):
            PyErr_CheckSignals()       # Ctrl-C / SIGTERM between pairs, not only after the batch
            o = origs[k]
            c = cors[k]
            if o is None or c is None:
                out[k] = []
            else:
                out[k] = annotate_pair(<Sent?>o, <Sent?>c, lev, code)
    finally:
        if was_enabled:
            gc.enable()
    return out


def annotate_codes(list origs, list cors, bint lev, str merge, dict label_ids):
    """Edits of a batch as flat int32 arrays for featurization, with no per-edit Python objects kept:
    (pair index, o_start, o_end, label id). label_ids maps every ERRANT label the classifier can emit to its id;
    None in either list means an identical pair (no edits)."""
    import numpy as np
    cdef int code = _merge_code(merge)
    cdef Py_ssize_t k, n = len(origs)
    cdef vector[EditSpan] spans
    cdef EditSpan e
    cdef vector[int] pair, o1, o2, lab
    cdef Sent o, c
    cdef str label
    cdef bint same
    if len(cors) != n:
        raise ValueError("origs and cors differ in length")
    cdef bint was_enabled = gc.isenabled()
    gc.disable()
    try:
        for k in range(n):
            PyErr_CheckSignals()
            if origs[k] is None or cors[k] is None:
                continue
            o = <Sent?>origs[k]
            c = <Sent?>cors[k]
            spans = edit_spans(o, c, lev, code)
            for e in spans:
                same = e.o2 > e.o1 and e.c2 > e.c1 and o.span_text(e.o1, e.o2) == c.span_text(e.c1, e.c2)
                label = classify_edit(o, e.o1, e.o2, c, e.c1, e.c2, same)
                try:
                    lab.push_back(label_ids[label])
                except KeyError:
                    raise ValueError(f"ERRANT label {label!r} is not in the label table") from None
                pair.push_back(k)
                o1.push_back(e.o1)
                o2.push_back(e.o2)
    finally:
        if was_enabled:
            gc.enable()
    cdef Py_ssize_t m = pair.size(), t
    arrs = [np.empty(m, dtype=np.int32) for _ in range(4)]
    cdef int[::1] a0 = arrs[0], a1 = arrs[1], a2 = arrs[2], a3 = arrs[3]
    for t in range(m):
        a0[t] = pair[t]; a1[t] = o1[t]; a2[t] = o2[t]; a3[t] = lab[t]
    return tuple(arrs)
