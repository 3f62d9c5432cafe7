"""M2 recall per gold error type (nusnlp/m2scorer issue #12; the ``m2`` metric's breakdown).

The official m2scorer's system edits carry no type (they are read off the lattice), so only recall can be broken
down: per sentence the annotator the official scorer chose over the whole corpus (m2.M2Result.annotators), its gold
edits counted under their types (CoNLL-14: NUCLE's ArtOrDet, Prep, Nn, ...), and the ones the system's edit
sequence matches (the official matchSeq: a system edit matches a gold edit of the same span, original and one of
its corrections) counted as TP. Over all types, TP and the gold count are the official's "CORRECT EDITS" and
"GOLD EDITS": R of the whole row set is the official recall."""
from __future__ import annotations

from typing import Sequence


def matched_gold(seq: Sequence[tuple], gold: Sequence[tuple]) -> list[int]:
    """The indices of the gold edits the official matchSeq matches: system edits (start, end, original, correction)
    from the end backwards, each matching the gold edits (start, end, original, [corrections]) after the last match
    with the same span and original and one of its corrections (a system edit equal to several gold edits matches
    each of them)."""
    out = []
    last = 0
    for e in reversed(seq):
        for i in range(last, len(gold)):
            g = gold[i]
            if e[0] == g[0] and e[1] == g[1] and e[2] == g[2] and e[3] in g[3]:
                out.append(i)
                last = i + 1
    return out


def typed_gold(blocks: Sequence, gold) -> list[dict[int, list[str]]]:
    """Per sentence {annotator: the types of its gold edits}, aligned with gold.edits (an m2.Gold read from these
    blocks of peet_fast.formats.m2: noop lines and edits beyond the sentence left out as the official
    reader leaves them out)."""
    if len(blocks) != len(gold.edits):
        raise ValueError(f"{len(blocks)} M2 blocks for {len(gold.edits)} gold sentences")
    out = []
    for block, golds_set in zip(blocks, gold.edits):
        n = len(block.source)
        types: dict[int, list[str]] = {}
        for e in block.edits:
            if e.type != "noop" and 0 <= e.start <= n and 0 <= e.end <= n:
                types.setdefault(e.annotator, []).append(e.type)
        row = {}
        for annotator, edits in golds_set:
            row[annotator] = types.get(annotator, [])
            if len(row[annotator]) != len(edits):
                raise ValueError(f"M2 block at line {block.line}: {len(row[annotator])} typed edits of annotator "
                                 f"{annotator}, the official reader keeps {len(edits)}")
        out.append(row)
    return out


def recall_by_type(gold, types: Sequence[dict], annotators: Sequence[int], sequences: Sequence[list]) -> dict:
    """{type: {"gold", "TP", "FN", "R"}} (sorted by type) of one system: gold, the m2.Gold; types, typed_gold's;
    per sentence the annotator the official chose (m2.M2Result.annotators) and the system's edit sequence against
    that annotator's gold edits."""
    counts: dict[str, list[int]] = {}
    for golds_set, typ, chosen, seq in zip(gold.edits, types, annotators, sequences):
        g = dict(golds_set).get(chosen, [])
        hit = set(matched_gold(seq, g))
        for i, t in enumerate(typ.get(chosen, ())):
            row = counts.setdefault(t, [0, 0])
            row[0] += 1
            row[1] += i in hit
    return {t: {"gold": g, "TP": tp, "FN": g - tp, "R": tp / g} for t, (g, tp) in sorted(counts.items())}
