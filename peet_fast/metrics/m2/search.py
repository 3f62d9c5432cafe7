"""The system's edits of one sentence: the lattice of minimum-cost alignments (in C, ext/m2lattice.pyx) and the
path through it that matches the most gold edits (_Sentence), and the official's edit matching (matchSeq, with the
-v report's adjacency marks) and shrinking (shrinkEdit)."""
from __future__ import annotations

import numpy as np

from peet_fast.io import LineTooLong
from peet_fast.metrics.m2.py2 import _joined, _split, _strip, py2_repr


def edit_seqs(candidate: str, source: str, max_unchanged_words: int, golds_set) -> list[list]:
    """[_Sentence(candidate, source, max_unchanged_words).edit_seq(g) for each annotator's gold edits g of golds_set]
    (what m2 and sentm2 both compute), recalled from the run's memo where one is active (languages.remembering: a
    meta-evaluation's metrics share it) instead of building the lattice again. A lattice too large is refused
    (LatticeTooLarge) as _Sentence refuses it."""
    from peet_fast.languages import pair_memo

    memo = pair_memo()
    if memo is None or not golds_set:
        sentence = _Sentence(candidate, source, max_unchanged_words)
        return [sentence.edit_seq(g) for _, g in golds_set]
    table = memo.table(edit_seqs)
    key = (candidate, source, max_unchanged_words,
           tuple((a, tuple((s, e, o, tuple(c)) for s, e, o, c in g)) for a, g in golds_set))
    hit = table.get(key)
    if hit is not None:
        memo.hits += 1
        return [list(seq) for seq in hit]
    sentence = _Sentence(candidate, source, max_unchanged_words)
    seqs = [sentence.edit_seq(g) for _, g in golds_set]
    memo.put(table, key, tuple(tuple(seq) for seq in seqs))
    return seqs


def _shrink(edit: tuple) -> tuple:
    """The official shrinkEdit: the edit without its common leading and trailing tokens."""
    orig, corr = _split(edit[2]), _split(edit[3])
    i = 0
    while i < min(len(orig), len(corr)) and orig[i] == corr[i]:
        i += 1
    j = 1
    while j <= min(len(orig), len(corr)) - i and orig[len(orig) - j] == corr[len(corr) - j]:
        j += 1
    return (edit[0] + i, edit[1] - (j - 1), _joined(orig[i:len(orig) - (j - 1)]),
            _joined(corr[i:len(corr) - (j - 1)]))


def _match_edit(e: tuple, g: tuple) -> bool:
    return e[0] == g[0] and e[1] == g[1] and e[2] == g[2] and e[3] in g[3]


def _match_seq(edit_seq: list, gold: list, out: list | None) -> list:
    """The official matchSeq (edit_seq from the end backwards); out: the -v lines it prints, or None."""
    m = []
    last = 0
    for e in reversed(edit_seq):
        for i in range(last, len(gold)):
            if _match_edit(e, gold[i]):
                m.append(e)
                last = i + 1
                if out is not None:
                    nxt = [_shrink(ed) for ed in edit_seq if e[1] == ed[0]]
                    prv = [_shrink(ed) for ed in edit_seq if e[0] == ed[1]]
                    if e[0] != e[1]:
                        nxt = [ed for ed in nxt if ed[0] == ed[1]]
                        prv = [ed for ed in prv if ed[0] == ed[1]]
                    else:
                        nxt = [ed for ed in nxt if ed[0] < ed[1] and ed[3] == ""]
                        prv = [ed for ed in prv if ed[0] < ed[1] and ed[3] == ""]
                    adj = any(any(_match_edit(ed, g) for g in gold) for ed in nxt) or \
                        any(any(_match_edit(ed, g) for g in gold) for ed in prv)
                    if e[0] < e[1] and len(_strip(e[3])) == 0 and (nxt or prv):
                        out.append(("! " if adj else "& ") + py2_repr(e))
                    elif e[0] == e[1] and (nxt or prv):
                        out.append(("! " if adj else "* ") + py2_repr(e))
    return m


def _ws_case_only(a: str, b: str) -> bool:
    return a.replace(" ", "").lower() == b.replace(" ", "").lower()


# Lattices on which the official scorer would run for hours (more vertices, or transitive arcs x vertices, than
# this: its Floyd-Warshall and Bellman-Ford loops cost about that many dict operations) use the bounded search
MAX_VERTICES = 2000
MAX_WORK = 300_000_000
# The lattice of a source of n tokens and a hypothesis of m holds (n + 1)(m + 1) cells (12 bytes each, before its
# vertices and arcs): a sentence over this (16.8 million cells, 200 MB; a 4,000-token sentence against itself) is
# refused before anything is allocated
MAX_CELLS = 1 << 24
# Its vertices, edges and search states (a lattice too large to close: about 160 bytes a vertex with the default
# max_unchanged_words, more with a larger one) are counted from the cells: a sentence whose lattice would need more
# than this (a few tokens against a million, or a long sentence against an unrelated one) is refused before they are
# allocated (a 2.3-million-token hypothesis ended in std::bad_alloc under 2 GiB)
MAX_LATTICE_BYTES = 512 << 20


class LatticeTooLarge(LineTooLong):
    """A sentence whose lattice would be over MAX_CELLS cells or MAX_LATTICE_BYTES bytes (the message says how
    large); `text` is the hypothesis, so that a caller that read it from a file can name its line
    (peet_fast.io.lines_located)."""


class _Sentence:
    """One sentence's lattice (built on first use) and the edit sequences it gives per annotator."""

    def __init__(self, candidate: str, source: str, max_unchanged_words: int):
        from peet_fast._ext.m2lattice import Lattice

        self.src = _split(source)
        self.hyp = _split(candidate)
        cells = (len(self.src) + 1) * (len(self.hyp) + 1)
        sizes = f"{len(self.src):,} source tokens and {len(self.hyp):,} hypothesis tokens"
        if cells > MAX_CELLS:
            raise LatticeTooLarge(candidate, f"{sizes}: a lattice of {cells:,} cells, over the {MAX_CELLS:,} this "
                                             "scorer holds (the official would need hours and gigabytes)")
        vocab: dict[str, int] = {}
        src_ids = np.array([vocab.setdefault(t, len(vocab)) for t in self.src], dtype=np.int32)
        hyp_ids = np.array([vocab.setdefault(t, len(vocab)) for t in self.hyp], dtype=np.int32)
        self.vocab = vocab
        # no edit holds more unchanged tokens than the source has: a larger bound is that one (and fits a C int)
        self.lattice = Lattice(src_ids, hyp_ids, min(max_unchanged_words, len(self.src)), MAX_VERTICES, MAX_WORK,
                               MAX_LATTICE_BYTES)
        if self.lattice.needs:
            raise LatticeTooLarge(candidate, f"{sizes}: a lattice that would need {self.lattice.needs / 2**20:,.0f} "
                                             f"MiB, over the {MAX_LATTICE_BYTES >> 20:,} MiB this scorer holds (the "
                                             "official would need hours and gigabytes)")

    def edit_seq(self, gold: list) -> list:
        """The official editSeq (from the end of the sentence backwards) against one annotator's gold edits."""
        spans, cors = [], []
        n = len(self.src)
        for s, e, original, corrections in gold:
            ok = 0 <= s <= e <= n and original == " ".join(self.src[s:e])
            spans.append((s, e, ok))
            cs = []
            for c in corrections:
                if c == "":
                    cs.append(np.zeros(0, dtype=np.int32))
                    continue
                pieces = c.split(" ")
                ids = [self.vocab.get(p, -1) if p and p == p.strip() else -1 for p in pieces]
                cs.append(None if -1 in ids else ids)
            cors.append(cs)
        seq = []
        for s, e, j0, j1 in self.lattice.best(spans, cors):
            seq.append((s, e, _joined(self.src[s:e]), _joined(self.hyp[j0:j1])))
        return seq
