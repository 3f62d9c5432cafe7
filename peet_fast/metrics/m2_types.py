"""M2 recall per gold error type (nusnlp/m2scorer issue #12; the ``m2`` metric's breakdown).

The official m2scorer's system edits carry no type (they are read off the lattice), so only recall can be broken
down: per sentence the annotator the official scorer chose over the whole corpus (m2.M2Result.annotators), its gold
edits counted under their types (CoNLL-14: NUCLE's ArtOrDet, Prep, Nn, ...), and the ones the system's edit
sequence matches (the official matchSeq: a system edit matches a gold edit of the same span, original and one of
its corrections) counted as TP. Over all types, TP and the gold count are the official's "CORRECT EDITS" and
"GOLD EDITS": R of the whole row set is the official recall."""
from __future__ import annotations

from typing import Sequence

from peet_fast.metrics.m2 import Gold, _Sentence, _strip, _ws_case_only


def typed_gold(blocks: Sequence, gold: Gold) -> list[dict[int, list[str]]]:
    """Per sentence {annotator: the types of its gold edits}, aligned with gold.edits (the blocks of
    peet_fast.formats.m2 the Gold was read from: noop lines and edits beyond the sentence left out as the official
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


def recall_by_type(hyp: Sequence[str], gold: Gold, types: Sequence[dict], annotators: Sequence[int],
                   max_unchanged_words: int = 2, ignore_whitespace_casing: bool = False) -> dict:
    """{type: {"gold", "TP", "FN", "R"}} (sorted by type) of one system: hyp, one line per gold sentence;
    annotators, the annotator chosen per sentence (m2.M2Result.annotators); types, typed_gold's."""
    from peet_fast.metrics.sentm2 import matched_gold

    counts: dict[str, list[int]] = {}
    for h, source, golds_set, typ, chosen in zip(hyp, gold.sources, gold.edits, types, annotators):
        g = dict(golds_set).get(chosen, [])
        if not g:
            continue
        seq = _Sentence(_strip(h), source, max_unchanged_words).edit_seq(g)
        if ignore_whitespace_casing:
            seq = [x for x in seq if not _ws_case_only(x[2], x[3])]
        hit = set(matched_gold(seq, g))
        for i, t in enumerate(typ[chosen]):
            row = counts.setdefault(t, [0, 0])
            row[0] += 1
            row[1] += i in hit
    return {t: {"gold": g, "TP": tp, "FN": g - tp, "R": tp / g} for t, (g, tp) in sorted(counts.items())}
