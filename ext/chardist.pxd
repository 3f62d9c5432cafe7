# Character-level distances over code-point arrays (ext/chardist.pyx): shared by the aligner, merger and classifier.
from libc.stdint cimport uint64_t, int32_t

cdef extern from *:
    """
    static inline int popcount64(unsigned long long x) {
        /* SWAR popcount: portable, and no libgcc call where the popcnt instruction is not enabled */
        x = x - ((x >> 1) & 0x5555555555555555ULL);
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
        return (int)((x * 0x0101010101010101ULL) >> 56);
    }
    static inline unsigned long long low_bits(int n) { return n >= 64 ? ~0ULL : ((1ULL << n) - 1ULL); }
    """
    int popcount64(uint64_t x) noexcept nogil
    uint64_t low_bits(int n) noexcept nogil

cdef Py_ssize_t lcs_length(const int32_t* a, Py_ssize_t la, const int32_t* b, Py_ssize_t lb) noexcept nogil
cdef Py_ssize_t levenshtein_distance(const int32_t* a, Py_ssize_t la, const int32_t* b, Py_ssize_t lb) noexcept nogil
cdef Py_ssize_t levenshtein_str(str a, str b) except -1
