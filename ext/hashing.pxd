# Hashing helpers shared by the kernels (inline: compiled into each module that cimports them).
from libc.stdint cimport uint64_t


cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    """splitmix64's finaliser: a fast, well-mixed 64-bit permutation (checksums of token-id windows in align,
    random values of token ids for the multiset hashes in zh_align)."""
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL
    return x ^ (x >> 31)
