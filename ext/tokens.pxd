# Token arrays: the contract between parsing and the compiled kernels.
# One Sent per distinct parsed sentence; kernels read these fields only and never touch spaCy objects.
cimport cython
from libc.stdint cimport uint64_t, int32_t, uint8_t

# Universal POS ids as spaCy numbers them (spacy/parts_of_speech.pxd); a test checks them against spacy.symbols.
cdef enum:
    POS_ADJ = 84
    POS_ADP = 85
    POS_ADV = 86
    POS_AUX = 87
    POS_DET = 90
    POS_NOUN = 92
    POS_NUM = 93
    POS_PART = 94
    POS_PRON = 95
    POS_PUNCT = 97
    POS_VERB = 100

# Per-token flag bits (Sent.flags)
cdef enum:
    F_PUNCT = 1        # pos == PUNCT or text is a substring of string.punctuation (errant's is_punct)
    F_FIRST_UPPER = 2  # text[0].isupper()
    F_TAG_POS = 4      # tag_ == "POS" (possessive ending)
    F_ALPHA = 8        # text.isalpha()

# Raw pointers into a Sent's arrays, for the hot loops (valid while the Sent lives; NULL when n == 0).
cdef struct TokView:
    Py_ssize_t n
    const uint64_t* a          # n x 7, row-major
    const int32_t* pos
    const uint8_t* flags
    const int32_t* chars
    const int32_t* off         # n + 1

cdef inline uint64_t v_orth(const TokView* v, Py_ssize_t i) noexcept nogil:
    return v.a[i * 7]
cdef inline uint64_t v_lower(const TokView* v, Py_ssize_t i) noexcept nogil:
    return v.a[i * 7 + 1]
cdef inline uint64_t v_lemma(const TokView* v, Py_ssize_t i) noexcept nogil:
    return v.a[i * 7 + 2]

@cython.final
cdef class Sent:
    cdef readonly Py_ssize_t n
    cdef readonly object arrays      # (n, 7) uint64: ORTH LOWER LEMMA POS TAG DEP HEAD(relative), from Doc.to_array
    cdef const uint64_t[:, ::1] a
    cdef int32_t[::1] head           # absolute head index
    cdef int32_t[::1] pos
    cdef uint8_t[::1] flags
    cdef int32_t[::1] chars          # code points of all token texts, concatenated
    cdef int32_t[::1] char_off       # n + 1 offsets into chars
    cdef readonly tuple text         # token texts
    cdef readonly tuple lower_       # token lower-case strings
    cdef readonly tuple tag_         # fine-grained PTB tags
    cdef readonly tuple dep_         # dependency labels
    cdef readonly tuple ws           # trailing-whitespace flags (bool)
    cdef readonly tuple nohyph       # lower_ with ' and - removed (errant merger's whitespace/hyphen rule)
    cdef TokView v

    cdef str span_text(self, Py_ssize_t start, Py_ssize_t end)
    cdef str span_join(self, Py_ssize_t start, Py_ssize_t end)

cdef double indel_normalized_distance(const TokView* s1, Py_ssize_t i, const TokView* s2, Py_ssize_t j) noexcept nogil
