"""English M2 output: errant_parallel's format, byte for byte.

For each orig line: an ``S`` line of its tokens, then for each corrected file either a noop line (the texts are
identical) or one ``A`` line per edit, then a blank line. One deliberate difference: a blank orig line (empty once
stripped) still gets a block, an ``S`` line with no tokens and a noop line per corrected file, where errant_parallel
skips the line (which shifts every later sentence against the other files). The noop block scores nothing, so
errant_compare (and ``peet-fast compare``) give the same figures as on errant_parallel's file, which has no block
there."""
from __future__ import annotations

from typing import Iterable, Sequence, TextIO

from peet_fast.formats.m2 import NOOP, edit_line

DEFAULT_CHUNK = 4096


def m2_blocks(annotator, origs: Sequence[str], cors: Sequence[Sequence[str]]) -> Iterable[str]:
    """M2 blocks (each ending with a blank line) for orig lines and, per corrected file, its lines (annotator: a
    peet_fast.en.Annotator). One annotation batch for every corrected file: each orig sentence is parsed once,
    however many files there are. A blank orig line gets ``S`` and a noop line per corrected file (see above)."""
    kept = [k for k, o in enumerate(origs) if o.strip()]
    m = len(kept)
    pairs = annotator.annotate_pairs([origs[k] for _ in cors for k in kept], [cor[k] for cor in cors for k in kept])
    at = dict(zip(kept, range(m)))
    for k, orig in enumerate(origs):
        i = at.get(k)
        if i is None:
            yield "\n".join(["S", *(NOOP.format(cor_id) for cor_id in range(len(cors))), ""]) + "\n"
            continue
        own = [pairs[j * m + i] for j in range(len(cors))]
        toks = own[0].source if own else annotator.tokenize(orig.strip())
        lines = [" ".join(["S", *toks])]
        for cor_id, ann in enumerate(own):
            if ann.kind == "noop":
                lines.append(NOOP.format(cor_id))
                continue
            lines.extend(edit_line(e.start, e.end, e.type, e.cor, cor_id)
                         for e in ann.alignments[0])
        lines.append("")
        yield "\n".join(lines) + "\n"


def write_m2(out: TextIO, annotator, origs: Sequence[str], cors: Sequence[Sequence[str]],
             chunk: int = DEFAULT_CHUNK, progress=None) -> int:
    """Write the M2 of parallel texts in chunks (each chunk's distinct sentences parsed in one batched pass).
    Returns the number of blocks written."""
    n = 0
    for lo in range(0, len(origs), chunk):
        hi = min(lo + chunk, len(origs))
        for block in m2_blocks(annotator, origs[lo:hi], [c[lo:hi] for c in cors]):
            out.write(block)
            n += 1
        if progress is not None:
            progress(hi)
    return n
