# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Sent: the token arrays of one parsed sentence, and the character-level string distance the kernels share."""
import string

import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint64_t, int32_t, int64_t, uint8_t
cimport cython
from peet_fast._ext.chardist cimport lcs_length

cnp.import_array()

cdef str PUNCTUATION = string.punctuation


cdef class Sent:
    """Token arrays of one parsed sentence.

    arrays: uint64 array of shape (n, 7) from Doc.to_array([ORTH, LOWER, LEMMA, POS, TAG, DEP, HEAD]);
    text, lower_, tag_, dep_: the token strings; ws: whether each token is followed by whitespace.
    """

    def __init__(self, arrays, text, ws, lower_, tag_, dep_):
        cdef Py_ssize_t n = len(text), i, k, total
        cdef Py_UCS4 ch
        cdef str t
        cdef uint8_t f
        arr = np.ascontiguousarray(arrays, dtype=np.uint64).reshape(n, 7)
        if not (len(ws) == len(lower_) == len(tag_) == len(dep_) == n):
            raise ValueError("Sent: token lists differ in length")
        self.n = n
        self.arrays = arr
        self.a = arr
        self.text = tuple(text)
        self.ws = tuple([True if x else False for x in ws])
        self.lower_ = tuple(lower_)
        self.tag_ = tuple(tag_)
        self.dep_ = tuple(dep_)
        self.nohyph = tuple([s.replace("'", "").replace("-", "") for s in self.lower_])
        total = 0
        for t in self.text:
            total += len(t)
        # pos, head, char_off and chars share one int32 buffer (one allocation, one buffer acquisition: a warm
        # run builds every Sent from the cache, and these allocations were most of its cost)
        cdef int32_t[::1] buf = np.empty(3 * n + 1 + max(total, 1), dtype=np.int32)
        self.pos = buf[:n]
        self.head = buf[n:2 * n]
        self.char_off = buf[2 * n:3 * n + 1]
        self.chars = buf[3 * n + 1:]
        self.flags = np.zeros(n, dtype=np.uint8)
        total = 0
        for i in range(n):
            self.char_off[i] = total
            total += len(<str>self.text[i])
        self.char_off[n] = total
        for i in range(n):
            t = self.text[i]
            k = self.char_off[i]
            for ch in t:
                self.chars[k] = <int32_t>ch
                k += 1
            self.pos[i] = <int32_t>self.a[i, 3]
            self.head[i] = <int32_t>(<int64_t>i + <int64_t>self.a[i, 6])
            f = 0
            if self.pos[i] == POS_PUNCT or t in PUNCTUATION:
                f |= F_PUNCT
            if len(t) > 0 and t[0].isupper():
                f |= F_FIRST_UPPER
            if self.tag_[i] == "POS":
                f |= F_TAG_POS
            if t.isalpha():
                f |= F_ALPHA
            self.flags[i] = f
        self.v.n = n
        if n > 0:
            self.v.a = &self.a[0, 0]
            self.v.pos = &self.pos[0]
            self.v.flags = &self.flags[0]
            self.v.off = &self.char_off[0]
        else:
            self.v.a = NULL
            self.v.pos = NULL
            self.v.flags = NULL
            self.v.off = &self.char_off[0]
        self.v.chars = &self.chars[0]

    def __len__(self):
        return self.n

    def __repr__(self):
        return f"Sent({' '.join(self.text)!r})"

    cdef str span_text(self, Py_ssize_t start, Py_ssize_t end):
        """spaCy's Span.text: token texts with their whitespace, less the last token's."""
        if end <= start:
            return ""
        if end - start == 1:
            return self.text[start]
        parts = []
        cdef Py_ssize_t i
        for i in range(start, end - 1):
            parts.append(self.text[i])
            if self.ws[i]:
                parts.append(" ")
        parts.append(self.text[end - 1])
        return "".join(parts)

    cdef str span_join(self, Py_ssize_t start, Py_ssize_t end):
        """Token texts joined by single spaces (as errant writes M2 corrections)."""
        return " ".join(self.text[start:end])

    def text_of(self, Py_ssize_t start, Py_ssize_t end):
        return self.span_text(start, end)


cdef double indel_normalized_distance(const TokView* s1, Py_ssize_t i, const TokView* s2, Py_ssize_t j) noexcept nogil:
    """rapidfuzz Indel.normalized_distance of two token texts: (l1 + l2 - 2 * LCS) / (l1 + l2)."""
    cdef int32_t a0 = s1.off[i], l1 = s1.off[i + 1] - a0
    cdef int32_t b0 = s2.off[j], l2 = s2.off[j + 1] - b0
    if l1 + l2 == 0:
        return 0.0
    return <double>(l1 + l2 - 2 * lcs_length(s1.chars + a0, l1, s2.chars + b0, l2)) / <double>(l1 + l2)


def indel_distance(Sent s1, Py_ssize_t i, Sent s2, Py_ssize_t j):
    """Python access to the kernel's normalized Indel distance (for tests)."""
    if not (0 <= i < s1.n and 0 <= j < s2.n):
        raise IndexError("token index out of range")
    return indel_normalized_distance(&s1.v, i, &s2.v, j)
