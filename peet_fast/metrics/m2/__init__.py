"""MaxMatch (M2): the NUS m2scorer 3.2 (Dahlmeier & Ng 2012; github nusnlp/m2scorer, scripts/m2scorer.py), the
CoNLL-2013/2014 shared tasks' official metric, with the same results and the same ``-v`` report.

The official scorer extracts the system's edits as the path through the lattice of minimum-cost token alignments that
matches the most gold edits, choosing per sentence the annotator that maximises the running corpus F (ties: more
correct edits, then fewer proposed + beta^2 gold). The lattice, its transitive arcs and the path search run in C
(ext/m2lattice.pyx, which documents how the official edge order, weights and Bellman-Ford tie-breaking are kept);
this module reads the files as the official does, chooses the annotators and formats the report.

Reading follows the official's semantics, not the strict M2 reader of peet_fast.formats.m2 (which refuses what the
official accepts): blocks are separated by lines that are exactly empty (a line of spaces belongs to a block); a
block may hold several ``S`` lines (its edits go to each sentence whose running token count covers them); ``I`` lines
are skipped; the first line of a block is never read as an edit; ``noop`` edits and edits beyond the sentence are
dropped; ``-NONE-`` is the empty correction and ``||`` separates alternative corrections; the annotators are visited
in the order of Python 2's dict. Where the official would crash (an ``A`` line with a missing field or a non-integer
offset, any other kind of line, a block without an ``S`` line, a hypothesis count that differs from the sentence
count) an InputError names the file and line.

The package, along its seams: py2 (Python 2's strings, repr/str and dict order, as the official ran on them), gold
(reading the gold M2 and the system output), search (the lattice and the edit sequence of one sentence, edit
matching), score (the annotator choice, corpus figures and -v report, m2score and the registry's metric). Every
name is re-exported here (``from peet_fast.metrics.m2 import score_corpus``); the limits of the lattice search
(MAX_VERTICES, MAX_WORK, MAX_CELLS, MAX_LATTICE_BYTES) are read where they live, peet_fast.metrics.m2.search."""
from __future__ import annotations

from peet_fast.metrics.m2.py2 import (
    _PY2_WS,
    EMPTY,
    Bytes,
    _joined,
    _split,
    _strip,
    _unicode_repr,
    py2_dict_order,
    py2_repr,
    py2_str,
)
from peet_fast.metrics.m2.gold import (
    Gold,
    _block,
    _decode,
    _int,
    gold_from_blocks,
    gold_from_text_or_path,
    parse_gold,
    read_file_bytes,
    read_gold,
    read_system,
)
from peet_fast.metrics.m2.search import (
    MAX_CELLS,
    MAX_LATTICE_BYTES,
    MAX_VERTICES,
    MAX_WORK,
    LatticeTooLarge,
    _match_edit,
    _match_seq,
    _Sentence,
    _shrink,
    _ws_case_only,
)
from peet_fast.metrics.m2.score import (
    M2Metric,
    M2Result,
    check_options,
    comp_f,
    comp_p,
    final_prf,
    m2score,
    score_corpus,
    summary_lines,
)
