# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Character-level distances over code-point arrays: the length of the longest common subsequence (rapidfuzz LCSseq,
behind Indel) and the unit-weight Levenshtein distance, the two string measures errant takes from rapidfuzz.

Both first strip the common prefix and suffix (exact: the LCS of a+x+b and a+y+b is len(a) + len(b) + LCS(x, y), and
the Levenshtein distance is that of x and y), so a long token with one change costs time linear in its length. What is
left runs bit-parallel over 64-bit words with the shorter string as the pattern, as rapidfuzz does: Hyyro's LCS (2004)
and Hyyro's Levenshtein (2003, over Myers' blocks), O(ceil(m / 64) * n) time and O(m) memory."""
from cpython.mem cimport PyMem_Free
from libc.stdint cimport uint32_t
from libc.stdlib cimport malloc, calloc, free, abort
from libc.string cimport memset

cdef extern from "Python.h":
    Py_UCS4* PyUnicode_AsUCS4Copy(object u) except NULL

cdef enum:
    SLOTS = 128    # hash slots per 64-character block for code points >= 128: at most 64 keys, load <= 1/2


cdef struct PatternMap:
    # The pattern's match masks: bit x % 64 of word x / 64 is set where pattern[x] == ch.
    Py_ssize_t words
    uint64_t* ascii       # 128 rows of `words` masks, ascii[ch * words + w]
    int32_t* keys         # words x SLOTS open-addressed code points >= 128 (-1: empty); NULL when the pattern has none
    uint64_t* masks       # words x SLOTS, beside keys
    uint64_t* row         # scratch row of `words` masks for a code point >= 128 (all zero when keys is NULL)


cdef inline void* _alloc(Py_ssize_t count, size_t size) noexcept nogil:
    """Zeroed memory, or abort (the kernels run without the GIL and have no error path, like the rest of ext/)."""
    cdef void* p = calloc(count if count > 0 else 1, size)
    if p == NULL:
        abort()
    return p


cdef inline Py_ssize_t _slot(int32_t ch) noexcept nogil:
    return <Py_ssize_t>((<uint32_t>ch * <uint32_t>2654435761u) >> 25)


cdef void _pm_build(PatternMap* pm, const int32_t* a, Py_ssize_t m) noexcept nogil:
    cdef Py_ssize_t words = (m + 63) // 64, x, s, base
    cdef int32_t ch
    cdef uint64_t bit
    pm.words = words
    pm.ascii = <uint64_t*>_alloc(128 * words, sizeof(uint64_t))
    pm.keys = NULL
    pm.masks = NULL
    pm.row = <uint64_t*>_alloc(words, sizeof(uint64_t))
    for x in range(m):
        if not (0 <= a[x] < 128):
            pm.keys = <int32_t*>malloc(words * SLOTS * sizeof(int32_t))
            if pm.keys == NULL:
                abort()
            memset(pm.keys, 0xFF, words * SLOTS * sizeof(int32_t))
            pm.masks = <uint64_t*>_alloc(words * SLOTS, sizeof(uint64_t))
            break
    for x in range(m):
        ch = a[x]
        bit = (<uint64_t>1) << (x & 63)
        if 0 <= ch < 128:
            pm.ascii[ch * words + (x >> 6)] |= bit
            continue
        base = (x >> 6) * SLOTS
        s = _slot(ch)
        while pm.keys[base + s] != -1 and pm.keys[base + s] != ch:
            s = (s + 1) & (SLOTS - 1)
        pm.keys[base + s] = ch
        pm.masks[base + s] |= bit


cdef void _pm_free(PatternMap* pm) noexcept nogil:
    free(pm.ascii)
    free(pm.keys)
    free(pm.masks)
    free(pm.row)


cdef const uint64_t* _pm_row(PatternMap* pm, int32_t ch) noexcept nogil:
    """The `words` match masks of code point ch (a row of the ASCII table, else looked up block by block)."""
    cdef Py_ssize_t w, s, base
    if 0 <= ch < 128:
        return pm.ascii + ch * pm.words
    if pm.keys == NULL:
        return pm.row
    for w in range(pm.words):
        base = w * SLOTS
        s = _slot(ch)
        pm.row[w] = 0
        while pm.keys[base + s] != -1:
            if pm.keys[base + s] == ch:
                pm.row[w] = pm.masks[base + s]
                break
            s = (s + 1) & (SLOTS - 1)
    return pm.row


cdef Py_ssize_t _lcs_word(const int32_t* a, Py_ssize_t la, const int32_t* b, Py_ssize_t lb) noexcept nogil:
    """LCS of a (1 <= la <= 64) and b: one word, the match mask of each b character built by scanning a."""
    cdef uint64_t V = ~(<uint64_t>0), U, M
    cdef Py_ssize_t x, y
    cdef int32_t c
    for y in range(lb):
        c = b[y]
        M = 0
        for x in range(la):
            M |= (<uint64_t>(a[x] == c)) << x
        U = V & M
        V = (V + U) | (V - U)
    return la - popcount64(V & low_bits(<int>la))


cdef Py_ssize_t _lcs_blocks(const int32_t* a, Py_ssize_t la, const int32_t* b, Py_ssize_t lb) noexcept nogil:
    """LCS of a (la > 64) and b: Hyyro's recurrence S' = (S + (S & M)) | (S - (S & M)) carried across the words."""
    cdef PatternMap pm
    cdef uint64_t* S
    cdef const uint64_t* row
    cdef uint64_t Sv, u, x, carry
    cdef Py_ssize_t y, w, words, zeros = 0
    _pm_build(&pm, a, la)
    words = pm.words
    S = <uint64_t*>_alloc(words, sizeof(uint64_t))
    for w in range(words):
        S[w] = ~(<uint64_t>0)
    for y in range(lb):
        row = _pm_row(&pm, b[y])
        carry = 0
        for w in range(words):
            Sv = S[w]
            u = Sv & row[w]
            x = Sv + carry
            carry = x < carry
            x = x + u
            carry |= x < u
            S[w] = x | (Sv - u)
    for w in range(words - 1):
        zeros += popcount64(~S[w])
    zeros += popcount64(~S[words - 1] & low_bits(<int>(la - 64 * (words - 1))))
    free(S)
    _pm_free(&pm)
    return zeros


cdef Py_ssize_t lcs_length(const int32_t* a, Py_ssize_t la, const int32_t* b, Py_ssize_t lb) noexcept nogil:
    """Length of the longest common subsequence of two code-point strings (rapidfuzz LCSseq.similarity)."""
    cdef Py_ssize_t common = 0
    while la > 0 and lb > 0 and a[0] == b[0]:
        a += 1
        b += 1
        la -= 1
        lb -= 1
        common += 1
    while la > 0 and lb > 0 and a[la - 1] == b[lb - 1]:
        la -= 1
        lb -= 1
        common += 1
    if la > lb:
        a, la, b, lb = b, lb, a, la
    if la == 0:
        return common
    if la <= 64:
        return common + _lcs_word(a, la, b, lb)
    return common + _lcs_blocks(a, la, b, lb)


cdef Py_ssize_t _levenshtein_blocks(const int32_t* a, Py_ssize_t la, const int32_t* b, Py_ssize_t lb) noexcept nogil:
    """Levenshtein distance of a (la >= 1, the pattern) and b: Hyyro's bit vectors VP / VN per 64-row block, the
    horizontal deltas carried from block to block; the distance followed along the last row."""
    cdef PatternMap pm
    cdef uint64_t* VP
    cdef uint64_t* VN
    cdef const uint64_t* row
    cdef uint64_t X, D0, HP = 0, HN = 0, vp, vn, hp_in, hn_in, hp_carry, hn_carry
    cdef uint64_t last = (<uint64_t>1) << ((la - 1) & 63)
    cdef Py_ssize_t y, w, words, dist = la
    _pm_build(&pm, a, la)
    words = pm.words
    VP = <uint64_t*>_alloc(words, sizeof(uint64_t))
    VN = <uint64_t*>_alloc(words, sizeof(uint64_t))
    for w in range(words):
        VP[w] = ~(<uint64_t>0)
    for y in range(lb):
        row = _pm_row(&pm, b[y])
        hp_carry = 1
        hn_carry = 0
        for w in range(words):
            vp = VP[w]
            vn = VN[w]
            X = row[w] | hn_carry
            D0 = (((X & vp) + vp) ^ vp) | X | vn
            HP = vn | ~(D0 | vp)
            HN = D0 & vp
            hp_in = hp_carry
            hn_in = hn_carry
            hp_carry = HP >> 63
            hn_carry = HN >> 63
            VP[w] = ((HN << 1) | hn_in) | ~(D0 | ((HP << 1) | hp_in))
            VN[w] = ((HP << 1) | hp_in) & D0
        # the last row's horizontal delta: bit (la - 1) % 64 of the last block's HP / HN
        dist += (HP & last) != 0
        dist -= (HN & last) != 0
    free(VP)
    free(VN)
    _pm_free(&pm)
    return dist


cdef Py_ssize_t levenshtein_distance(const int32_t* a, Py_ssize_t la, const int32_t* b, Py_ssize_t lb) noexcept nogil:
    """Unit-weight Levenshtein distance of two code-point strings (rapidfuzz Levenshtein.distance)."""
    while la > 0 and lb > 0 and a[0] == b[0]:
        a += 1
        b += 1
        la -= 1
        lb -= 1
    while la > 0 and lb > 0 and a[la - 1] == b[lb - 1]:
        la -= 1
        lb -= 1
    if la > lb:
        a, la, b, lb = b, lb, a, la
    if la == 0:
        return lb
    return _levenshtein_blocks(a, la, b, lb)


cdef Py_ssize_t _of_strings(str a, str b, bint lev) except -1:
    """levenshtein_distance (lev) or lcs_length of two Python strings, their code points copied once."""
    cdef Py_ssize_t la = len(a), lb = len(b), n
    cdef Py_UCS4* ca = PyUnicode_AsUCS4Copy(a)
    cdef Py_UCS4* cb
    try:
        cb = PyUnicode_AsUCS4Copy(b)
    except BaseException:
        PyMem_Free(ca)
        raise
    with nogil:
        if lev:
            n = levenshtein_distance(<const int32_t*>ca, la, <const int32_t*>cb, lb)
        else:
            n = lcs_length(<const int32_t*>ca, la, <const int32_t*>cb, lb)
    PyMem_Free(ca)
    PyMem_Free(cb)
    return n


cdef Py_ssize_t levenshtein_str(str a, str b) except -1:
    """levenshtein_distance of two Python strings."""
    return _of_strings(a, b, True)


def levenshtein(str a not None, str b not None):
    """Levenshtein distance of two strings (Python access for tests)."""
    return _of_strings(a, b, True)


def lcs(str a not None, str b not None):
    """Length of the longest common subsequence of two strings (Python access for tests)."""
    return _of_strings(a, b, False)
