"""The M2 format: a strict reader (errant's and ChERRANT's layouts) and the ``A`` line writers.

Reading is strict: anything errant_compare or ChERRANT would crash on or silently misread is refused with an
InputError naming the file and line."""
from __future__ import annotations

from typing import NamedTuple, Sequence

from peet_fast.io import InputError, integer, read_lines
from peet_fast.io import split_lines as _split_lines

NOOP = "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{}"


def edit_line(o_start: int, o_end: int, etype: str, cor: str, annotator_id: int) -> str:
    """An ``A`` line: source tokens [o_start, o_end) -> cor (the correction tokens joined by single spaces)."""
    return f"A {o_start} {o_end}|||{etype}|||{cor}|||REQUIRED|||-NONE-|||{annotator_id}"


def read_back(etype: str, cor: str) -> str:
    """The correction that errant_compare (and ChERRANT's compare, and parse_m2) read from the ``A`` line edit_line
    writes for cor: the line's third ``|||``-separated field. It is cor itself unless cor holds ``|`` next to a
    separator: a correction ending in ``|`` (tokens ``a |`` -> ``...|||a ||||REQUIRED...``) reads back as ``a ``,
    one holding the token ``|||`` is cut there. The two-step pipeline (M2 written, then read) scores what is read
    back, so the one-step paths score it too."""
    if "|" not in cor:
        return cor
    return edit_line(0, 0, etype, cor, 0)[2:].split("|||")[2]


def s_line_tokens(line: str) -> int:
    """How many tokens an ``S`` line may hold, as the writers join them: the text after ``S `` split on single
    spaces (errant_parallel -tok keeps runs of spaces, tabs and other Unicode spaces as tokens, so ``S This   is``
    holds 3 tokens, ``This``, `` `` and ``is``, and ChERRANT's segmented mode makes empty tokens of double spaces).
    An upper bound on the true count, never below the whitespace-separated count; 0 for an ``S`` line with no
    text. errant_compare itself never checks a span against its sentence."""
    text = line[2:]
    return max(len(text.split(" ")) if text else 0, len(line[1:].split()))


class M2Edit(NamedTuple):
    """One ``A`` line: source tokens [start, end) -> cor (the correction field as written: tokens joined by spaces,
    ``-NONE-`` or empty for a deletion), its type, its annotator id and the alternative alignment it belongs to
    (j of a ChERRANT ``T<i>-A<j>`` header before it in the block; 0 when there is none)."""
    start: int
    end: int
    type: str
    cor: str
    annotator: int
    alignment: int


class M2Block(NamedTuple):
    """One sentence block: the 1-based line of its ``S`` line, the source tokens, the edits in file order."""
    line: int
    source: list
    edits: list


def read_m2(path: str) -> list[M2Block]:
    """Read an M2 file strictly (UTF-8, a byte order mark at its start dropped; see parse_m2). Raises InputError
    naming the file and line, or the file when it holds no sentence block."""
    blocks = parse_m2(read_lines(path), str(path))
    if not blocks:
        raise InputError(str(path), "no sentence blocks (the file is empty)")
    return blocks


def split_lines(text: str) -> list[str]:
    """The lines of an M2 text as errant_compare reads a file (io.split_lines: at ``\\n``, ``\\r\\n`` and ``\\r``
    only, never at the form feeds, ``\\x85`` or ``\\u2028`` that spaCy keeps as tokens of an ``S`` line)."""
    return _split_lines(text)


def parse_m2(lines: Sequence[str], path: str = "<m2>") -> list[M2Block]:
    """Blocks of M2 lines: an ``S`` line, then ``A`` lines (``A start end|||type|||cor|||REQUIRED|||-NONE-|||id``)
    and optionally ChERRANT's ``T...`` target lines, blocks separated by blank lines. Read as errant_compare reads
    them: an ``A`` line's fields are split at ``|||``, the correction is the third field and the annotator id the
    last (a line with more than six fields is what the writers make of a correction holding ``|||`` or ending in
    ``|``; see read_back); an ``S`` line's tokens are counted as s_line_tokens counts them. Refused with InputError
    (file:line): a block not starting with an ``S`` line, any other kind of line, an ``A`` line with fewer than six
    fields, a span that is not two integers with 0 <= start <= end <= the S line's tokens (or -1 -1), an annotator
    id that is not a non-negative integer."""
    blocks: list[M2Block] = []
    block: M2Block | None = None
    alignment = 0
    n_tokens = 0
    new = tuple.__new__
    for no, raw in enumerate(lines, 1):
        line = raw.rstrip()
        if not line:
            block = None
            continue
        tag = line[0]
        if block is None:
            if tag != "S" or (len(line) > 1 and not line[1].isspace()):
                raise InputError(path, f"missing S line: a sentence block must start with 'S ', got {_clip(line)!r}",
                                 no)
            block = M2Block(no, line[1:].split(), [])
            n_tokens = s_line_tokens(raw)
            blocks.append(block)
            alignment = 0
        elif tag == "A" and line[1:2] == " ":
            # fast path for a well-formed line; anything else goes to _parse_a_line, which says what is wrong
            fields = line[2:].split("|||")
            if len(fields) >= 6 and fields[1]:
                span = fields[0].split()
                coder = fields[-1].strip()
                if len(span) == 2 and coder.isdigit() and coder.isascii():
                    s0, s1 = span
                    if s0.isdigit() and s1.isdigit() and s0.isascii() and s1.isascii():
                        start, end = int(s0), int(s1)
                        if start <= end <= n_tokens:
                            block.edits.append(new(M2Edit, (start, end, fields[1], fields[2], int(coder),
                                                            alignment)))
                            continue
            block.edits.append(_parse_a_line(line, n_tokens, alignment, path, no))
        elif tag == "T":
            alignment = _alignment_of(line, path, no)
        elif tag == "S":
            raise InputError(path, "an S line inside a block (a blank line must separate sentence blocks)", no)
        else:
            raise InputError(path, f"unexpected line in an M2 block (expected 'A ...' or 'T...'): {_clip(line)!r}", no)
    return blocks


def _clip(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[:n] + "..."


def _parse_a_line(line: str, n_tokens: int, alignment: int, path: str, no: int) -> M2Edit:
    fields = line[2:].split("|||")
    if len(fields) < 6:
        raise InputError(path, f"an A line needs 6 '|||'-separated fields "
                               f"(span|||type|||correction|||REQUIRED|||-NONE-|||annotator), got {len(fields)}", no)
    span = fields[0].split()
    start, end = (integer(span[0]), integer(span[1])) if len(span) == 2 else (None, None)   # ASCII digits only
    if start is None or end is None:
        raise InputError(path, f"bad span {fields[0]!r}: expected two integers 'start end'", no)
    if not ((start == end == -1) or 0 <= start <= end <= n_tokens):
        raise InputError(path, f"bad span {start} {end}: the source has {n_tokens} tokens "
                               f"(need 0 <= start <= end <= {n_tokens}, or -1 -1)", no)
    coder = fields[-1].strip()
    if not (coder.isascii() and coder.isdigit()):
        raise InputError(path, f"bad annotator id {fields[-1]!r}: expected a non-negative integer", no)
    etype = fields[1]
    if not etype:
        raise InputError(path, "empty error type", no)
    return M2Edit(start, end, etype, fields[2], int(coder), alignment)


def _alignment_of(line: str, path: str, no: int) -> int:
    """j of a ChERRANT target header ``T<i>-A<j> ...`` (0 for ``T<i> ...``)."""
    head = line.split(None, 1)[0]
    i, _, j = head[1:].partition("-A")
    if not (i.isascii() and i.isdigit()) or (j and not (j.isascii() and j.isdigit())):
        raise InputError(path, f"bad target line {_clip(line)!r}: expected 'T<i> ...' or 'T<i>-A<j> ...'", no)
    return int(j) if j else 0


def annotator_ids(blocks: Sequence[M2Block]) -> list[int]:
    """The annotator ids of the blocks' A lines (noop lines included), ascending; [0] when there are none."""
    return sorted({e.annotator for b in blocks for e in b.edits}) or [0]


def corrected_tokens(block: M2Block, annotator: int, path: str = "<m2>") -> list[str]:
    """The block's source tokens with one annotator's edits applied in file order (noop lines skipped; a
    correction ``-NONE-`` or empty deletes; several insertions at one position keep their file order). A sentence
    the annotator did not edit is its source. Edits of one annotator that overlap are refused (InputError naming
    the block's S line)."""
    tokens = list(block.source)
    offset = 0
    end = 0
    for e in block.edits:
        if e.annotator != annotator or e.start < 0:
            continue
        if e.start < end:
            raise InputError(path, f"annotator {annotator}'s edits overlap (tokens {e.start}-{e.end} and an edit "
                                   f"ending at {end}); cannot apply them", block.line)
        cor = [] if e.cor.strip() in ("", "-NONE-") else e.cor.split()
        tokens[e.start + offset:e.end + offset] = cor
        offset += len(cor) - (e.end - e.start)
        end = e.end
    return tokens


def annotator_corrections(blocks: Sequence[M2Block], path: str = "<m2>") -> dict[int, list[str]]:
    """Each annotator's corrected sentences (tokens joined by single spaces), one per block, by annotator id (the
    references a gold M2 gives to GLEU, WER or PEET; e.g. CoNLL-14's two annotators)."""
    return {a: [" ".join(corrected_tokens(b, a, path)) for b in blocks] for a in annotator_ids(blocks)}


def annotator_references(blocks: Sequence[M2Block], path: str = "<m2>") -> list[list[str]]:
    """The reference sets a gold M2 gives (`rank --ref GOLD.m2`, peet_fast.evaluate(gold=...)): annotator_corrections
    as a list, one set of corrected sentences per annotator in ascending id order, line-aligned with the blocks."""
    return list(annotator_corrections(blocks, path).values())


def looks_like_m2(path: str, by_name: bool = True) -> bool:
    """Whether a --ref file is a gold M2: (by_name) its name ends in .m2, or (read from its first 64 KiB) its first
    non-blank line starts with 'S ', every non-blank line starts with 'S ', 'A ' or 'T', and it has an 'A ' line or
    a blank line between blocks."""
    import os

    if by_name and os.fspath(path).lower().endswith(".m2"):
        return True
    try:
        with open(path, "rb") as fh:
            head = fh.read(1 << 16)
    except OSError:
        return False
    lines = head.decode("utf-8", errors="replace").lstrip("\ufeff").split("\n")
    if len(head) == 1 << 16:
        lines = lines[:-1]                      # possibly cut
    body = [line for line in lines if line.strip()]
    if not body or not body[0].startswith("S "):
        return False
    if not all(line.startswith(("S ", "A ", "T")) for line in body):
        return False
    k = lines.index(body[0])
    return any(line.startswith("A ") for line in body) or any(not line.strip() for line in lines[k:len(lines) - 1])
