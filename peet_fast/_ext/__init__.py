"""Compiled kernels (built from ext/*.pyx): tokens, align, merge, classify, annotate, features.

Nothing here knows about spaCy objects: the kernels read peet_fast._ext.tokens.Sent token arrays only.

May import nothing of peet_fast: the ground floor, beside io/ (the kernels are compiled from ext/)."""
