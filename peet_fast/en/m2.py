"""English M2 output: errant_parallel's format, byte for byte.

For each orig line: an ``S`` line of its tokens, then for each corrected file either a noop line (the texts are
identical) or one ``A`` line per edit, then a blank line. One deliberate difference: an empty orig line still gets
its block (errant_parallel skips it, which shifts every later sentence against the other files)."""
from __future__ import annotations

from typing import Iterable, Sequence, TextIO

from peet_fast.en.annotator import Annotator
from peet_fast.formats.m2 import NOOP, edit_line

DEFAULT_CHUNK = 4096


def m2_blocks(annotator: Annotator, origs: Sequence[str], cors: Sequence[Sequence[str]]) -> Iterable[str]:
    """M2 blocks (each ending with a blank line) for orig lines and, per corrected file, its lines."""
    parser = annotator.parser
    origs = [o.strip() for o in origs]
    cors = [[c.strip() for c in cor] for cor in cors]
    # errant's noop test: the orig Doc's text, stripped, equals the stripped corrected line
    o_text = origs if parser.tokenise else [" ".join(o.split()) for o in origs]
    # one annotation batch for every corrected file: each orig sentence is parsed once, however many files there are
    todo = [(j, k) for j, cor in enumerate(cors) for k in range(len(origs)) if o_text[k] != cor[k]]
    sents, edits = annotator.annotate_raw([origs[k] for _, k in todo], [cors[j][k] for j, k in todo])
    results: list[dict] = [{} for _ in cors]
    for (j, k), e in zip(todo, edits):
        results[j][k] = e
    for k, orig in enumerate(origs):
        sent = sents.get(parser.key(orig))
        toks = sent.text if sent is not None else parser.tokens(orig)
        lines = [" ".join(["S", *toks])]
        for cor_id, res in enumerate(results):
            edits = res.get(k)
            if edits is None:
                lines.append(NOOP.format(cor_id))
                continue
            if edits:
                c_toks = sents[parser.key(cors[cor_id][k])].text
                for o1, o2, c1, c2, _o_str, _c_str, etype in edits:
                    lines.append(edit_line(o1, o2, etype, c_toks[c1:c2], cor_id))
        lines.append("")
        yield "\n".join(lines) + "\n"


def write_m2(out: TextIO, annotator: Annotator, origs: Sequence[str], cors: Sequence[Sequence[str]],
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
