# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Featurization: edit arrays -> per-pair count vectors.

An edit's weight is its span length in orig tokens (o_end - o_start), 1 for an insertion. Each label maps to a column
of the chosen feature set (or to none); ignored labels (noop, UNK, Um) count nowhere."""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int32_t

cnp.import_array()


def count_edits(Py_ssize_t n_pairs, const int32_t[::1] pair, const int32_t[::1] o_start, const int32_t[::1] o_end,
                const int32_t[::1] label, const int32_t[::1] counted, const int32_t[::1] column, Py_ssize_t n_cols,
                Py_ssize_t none_col):
    """Returns (X, edited, unlisted):
    X (n_pairs, n_cols) int32: summed weights per column; X[:, none_col] = 1 where a pair has no counted edit
    (none_col < 0: no such column); edited (n_pairs,) int32: summed weights of all counted edits;
    unlisted (n_pairs,) int32: counted edits whose label has no column in this feature set.
    counted[label] is 1 for labels that count; column[label] is the label's column or -1."""
    cdef Py_ssize_t m = pair.shape[0], t, p
    cdef int32_t w, lab, col
    if not (o_start.shape[0] == m and o_end.shape[0] == m and label.shape[0] == m):
        raise ValueError("edit arrays differ in length")
    if counted.shape[0] != column.shape[0]:
        raise ValueError("label maps differ in length")
    if none_col >= n_cols:
        raise ValueError("none_col out of range")
    X_arr = np.zeros((n_pairs, n_cols), dtype=np.int32)
    edited_arr = np.zeros(n_pairs, dtype=np.int32)
    unlisted_arr = np.zeros(n_pairs, dtype=np.int32)
    cdef int32_t[:, ::1] X = X_arr
    cdef int32_t[::1] edited = edited_arr, unlisted = unlisted_arr
    cdef Py_ssize_t n_labels = counted.shape[0]
    for t in range(m):
        p = pair[t]
        lab = label[t]
        if p < 0 or p >= n_pairs or lab < 0 or lab >= n_labels:
            raise IndexError(f"edit {t}: pair or label index out of range")
        if not counted[lab]:
            continue
        w = o_end[t] - o_start[t]
        if w <= 0:
            w = 1
        edited[p] += w
        col = column[lab]
        if col >= 0:
            X[p, col] += w
        else:
            unlisted[p] += 1
    if none_col >= 0:
        for p in range(n_pairs):
            if edited[p] == 0:
                X[p, none_col] = 1
    return X_arr, edited_arr, unlisted_arr
