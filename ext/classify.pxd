from peet_fast._ext.tokens cimport Sent

cdef str classify_edit(Sent orig, Py_ssize_t o1, Py_ssize_t o2, Sent cor, Py_ssize_t c1, Py_ssize_t c2,
                       bint same_str)
