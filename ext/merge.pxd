from libcpp.vector cimport vector
from peet_fast._ext.tokens cimport Sent
from peet_fast._ext.align cimport AlignOp, EditSpan

cdef vector[EditSpan] rule_edits(Sent orig, Sent cor, vector[AlignOp]& seq) except *
