# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""GoToScorer's chunks and their evaluation (gotutiyan/GTS: scripts/chunker.py and scripts/alignmenter.py), for all
the sentences of a test set at once; peet_fast.metrics.gotoscorer turns them into weights and scores.

Texts are integer ids (the caller interns the strings: a chunk's text is what GTS compares, its correction as the
M2 wrote it, a source token, or the empty string of an insertion slot). Chunks are flat arrays with per-sentence
offsets: start, end (source token span), text id and modified flag (1: the chunk is an edit)."""
from libc.stdint cimport int32_t, int64_t, uint8_t
from libcpp.vector cimport vector

import numpy as np


cdef inline void _push(vector[int32_t]& s, vector[int32_t]& e, vector[int32_t]& t, vector[uint8_t]& m,
                       int32_t a, int32_t b, int32_t text, uint8_t mod) noexcept nogil:
    s.push_back(a)
    e.push_back(b)
    t.push_back(text)
    m.push_back(mod)


def make_chunks(const int32_t[:] n_tok, const int64_t[:] tok_off, const int32_t[:] tok_ids,
                const int64_t[:] e_off, const int32_t[:] e_start, const int32_t[:] e_end, const int32_t[:] e_text,
                int32_t empty_id):
    """GTS's generate_chunk_from_m2 for every sentence: sentence k has n_tok[k] source tokens (ids
    tok_ids[tok_off[k]:tok_off[k] + n_tok[k]]) and the edits e_off[k]..e_off[k + 1] (file order; the caller has left
    out GTS's skipped types). Per sentence: every edit is a chunk; each token outside the edits becomes a chunk of its
    own (the tokens from the end of the previous edit up to the start of the next: none when an edit starts before
    the previous one ends); an empty insertion slot precedes every chunk that is not an insertion and does not follow
    one; a last slot at the end unless the last chunk is an insertion. Returns (offsets int64 (sentences + 1),
    start, end, text int32, modified uint8) numpy arrays."""
    cdef Py_ssize_t S = n_tok.shape[0], k, j, i, idx, nb
    cdef vector[int32_t] cs, ce, ct, bs, be, bt
    cdef vector[uint8_t] cm, bm
    cdef vector[int64_t] off
    cdef int32_t n, es, ee, text
    off.push_back(0)
    with nogil:
        for k in range(S):
            n = n_tok[k]
            bs.clear(); be.clear(); bt.clear(); bm.clear()
            idx = 0
            for j in range(e_off[k], e_off[k + 1]):
                es = e_start[j]
                ee = e_end[j]
                for i in range(idx, es):
                    text = tok_ids[tok_off[k] + i] if 0 <= i < n else empty_id
                    _push(bs, be, bt, bm, <int32_t>i, <int32_t>(i + 1), text, 0)
                _push(bs, be, bt, bm, es, ee, e_text[j], 1)
                idx = ee
            for i in range(idx, n):
                _push(bs, be, bt, bm, <int32_t>i, <int32_t>(i + 1), tok_ids[tok_off[k] + i], 0)
            nb = <Py_ssize_t>bs.size()
            for i in range(nb):
                if bs[i] == be[i] or (i >= 1 and bs[i - 1] == be[i - 1]):
                    _push(cs, ce, ct, cm, bs[i], be[i], bt[i], bm[i])
                    continue
                _push(cs, ce, ct, cm, bs[i], bs[i], empty_id, 0)
                _push(cs, ce, ct, cm, bs[i], be[i], bt[i], bm[i])
            if nb == 0 or bs[nb - 1] != be[nb - 1]:
                _push(cs, ce, ct, cm, n, n, empty_id, 0)
            off.push_back(<int64_t>cs.size())
    return (np.asarray(<int64_t[:off.size()]> off.data()).copy(),
            _copy32(cs), _copy32(ce), _copy32(ct),
            np.asarray(<uint8_t[:cm.size()]> cm.data()).copy() if cm.size() else np.zeros(0, dtype=np.uint8))


cdef object _copy32(vector[int32_t]& v):
    if v.size() == 0:
        return np.zeros(0, dtype=np.int32)
    return np.asarray(<int32_t[:v.size()]> v.data()).copy()


def evaluate(const int64_t[:] g_off, const int32_t[:] g_start, const int32_t[:] g_end, const int32_t[:] g_text,
             const uint8_t[:] g_mod, const int64_t[:] s_off, const int32_t[:] s_start, const int32_t[:] s_end,
             const int32_t[:] s_text, const uint8_t[:] s_mod):
    """GTS's update_evaluation of one system: for every gold chunk, (is_correct, is_modified) against the system's
    chunks of the same sentence, visited in order. A system chunk with the gold chunk's span and text is "equal": the
    result is (1, its modified flag) and the visit stops. "not-equal" -- the same span with another text, or, for a
    gold chunk that is not an insertion, a system chunk starting inside it or covering its start -- makes the result
    (0, the OR of the modified flags of every not-equal chunk met). A gold chunk that meets neither is (not its
    modified flag, 0): a gold insertion the system has no slot for (inside a multi-token system edit) is a miss where
    the gold inserts. Returns (correct, modified) uint8 arrays, one entry per gold chunk."""
    cdef Py_ssize_t S = g_off.shape[0] - 1, k, gi, si
    cdef Py_ssize_t G = g_start.shape[0]
    correct_arr = np.zeros(G, dtype=np.uint8)
    modified_arr = np.zeros(G, dtype=np.uint8)
    cdef uint8_t[:] correct = correct_arr
    cdef uint8_t[:] modified = modified_arr
    cdef int32_t gs, ge, os, oe
    cdef uint8_t have, mod, cor
    with nogil:
        for k in range(S):
            for gi in range(g_off[k], g_off[k + 1]):
                gs = g_start[gi]
                ge = g_end[gi]
                have = 0
                mod = 0
                cor = 0
                for si in range(s_off[k], s_off[k + 1]):
                    os = s_start[si]
                    oe = s_end[si]
                    if os == gs and oe == ge:
                        if s_text[si] == g_text[gi]:
                            have = 1
                            mod = s_mod[si]
                            cor = 1
                            break
                    elif gs == ge:
                        continue
                    elif not ((gs <= os < ge) or (os <= gs < oe)):
                        continue
                    # not-equal
                    if have:
                        mod = mod | s_mod[si]
                    else:
                        have = 1
                        mod = s_mod[si]
                        cor = 0
                if not have:
                    mod = 0
                    cor = 0 if g_mod[gi] else 1
                correct[gi] = cor
                modified[gi] = mod
    return correct_arr, modified_arr
