# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The parse cache's record decoders, compiled (the warm path reads every sentence through them).

They check exactly what peet_fast.en.cache's Python decoders check (sizes, whitespace flags, heads inside the
sentence, part-of-speech ids, string lengths adding up to the UTF-8 text) and build the same values; where a record
fails any check they return None, and the caller runs the Python decoder, which raises with its own message. So a
damaged or crafted record is refused exactly as before, and a valid one decodes to the same Sent."""
import numpy as np
cimport numpy as cnp
from cpython.unicode cimport PyUnicode_DecodeUTF8, PyUnicode_Substring
from libc.stdint cimport uint8_t, uint32_t, int32_t, int64_t, uint64_t
from libc.string cimport memcpy
from peet_fast._ext.tokens cimport Sent

cnp.import_array()

cdef uint64_t MAX_POS_ID = 1 << 16      # as peet_fast.en.cache.MAX_POS_ID


cdef inline uint32_t _u32(const uint8_t* p) noexcept nogil:
    cdef uint32_t v
    memcpy(&v, p, 4)                    # little-endian records on a little-endian machine (checked at import)
    return v


cdef inline uint64_t _u64(const uint8_t* p) noexcept nogil:
    cdef uint64_t v
    memcpy(&v, p, 8)
    return v


cdef object _split(bytes record, const uint8_t* p, Py_ssize_t size, Py_ssize_t count, Py_ssize_t at):
    """`count` strings (int32 code-point lengths at `at`, then the UTF-8 text to the end), or None where the
    lengths do not fit, are negative, do not add up to the text, or the text is not UTF-8 (surrogatepass)."""
    cdef Py_ssize_t k, start = 0, total = 0
    cdef int32_t length
    if size < at + 4 * count:
        return None
    for k in range(count):
        memcpy(&length, p + at + 4 * k, 4)
        if length < 0:
            return None
        total += length
    cdef Py_ssize_t t0 = at + 4 * count
    try:
        text = PyUnicode_DecodeUTF8(<const char*>(p + t0), size - t0, "surrogatepass")
    except UnicodeDecodeError:
        return None
    if total != len(text):
        return None
    out = [None] * count
    for k in range(count):
        memcpy(&length, p + at + 4 * k, 4)
        out[k] = PyUnicode_Substring(text, start, start + length)
        start += length
    return out


def decode_tokens(bytes record):
    """The token list of a token record (peet_fast.en.cache.encode_tokens), or None where any check fails."""
    cdef const uint8_t* p = <const uint8_t*>(<const char*>record)
    cdef Py_ssize_t size = len(record)
    if size < 4:
        return None
    return _split(record, p, size, _u32(p), 4)


def decode_sent(bytes record):
    """The Sent of a parse record (peet_fast.en.cache.encode), or None where any check fails."""
    cdef const uint8_t* p = <const uint8_t*>(<const char*>record)
    cdef Py_ssize_t size = len(record), i
    cdef uint64_t n, at, head
    cdef const uint8_t* row
    if size < 4:
        return None
    n = _u32(p)
    at = 4 + 56 * n
    if <uint64_t>size < at + 5 * n:
        return None
    for i in range(<Py_ssize_t>n):
        if p[at + i] > 1:
            return None
        row = p + 4 + 56 * i
        head = <uint64_t>i + _u64(row + 48)             # int64 wrap-around as numpy's
        if <int64_t>head < 0 or <int64_t>head >= <int64_t>n:
            return None
        if _u64(row + 24) >= MAX_POS_ID:
            return None
    strings = _split(record, p, size, 4 * n, at + n)
    if strings is None:
        return None
    cdef Py_ssize_t m = n
    arrays = np.frombuffer(record, "<u8", 7 * m, 4).reshape(m, 7)
    return Sent(arrays, strings[:m], record[at:at + n], strings[m:2 * m], strings[2 * m:3 * m], strings[3 * m:])


def little_endian():
    cdef uint32_t one = 1
    return (<uint8_t*>&one)[0] == 1
