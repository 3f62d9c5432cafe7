from libcpp.vector cimport vector
from peet_fast._ext.tokens cimport Sent, TokView

# Alignment operation codes
cdef enum:
    OP_M = 1
    OP_S = 2
    OP_I = 3
    OP_D = 4
    OP_T = 5

cdef struct AlignOp:
    int op      # OP_*
    int size    # transposition size (tokens per side); 1 otherwise
    int o1
    int o2
    int c1
    int c2

cdef struct EditSpan:
    int o1
    int o2
    int c1
    int c2

cdef vector[AlignOp] align_seq(Sent orig, Sent cor, bint lev) except *
cdef double sub_cost(const TokView* o, Py_ssize_t i, const TokView* c, Py_ssize_t j) noexcept nogil
cdef vector[EditSpan] all_split(vector[AlignOp]& seq)
cdef vector[EditSpan] all_merge(vector[AlignOp]& seq)
cdef vector[EditSpan] all_equal(vector[AlignOp]& seq)
