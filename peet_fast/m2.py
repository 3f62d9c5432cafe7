"""M2 output: errant_parallel's format, byte for byte.

For each orig line: an ``S`` line of its tokens, then for each corrected file either a noop line (the texts are
identical) or one ``A`` line per edit, then a blank line. One deliberate difference: an empty orig line still gets
its block (errant_parallel skips it, which shifts every later sentence against the other files)."""
from __future__ import annotations

from typing import Iterable, NamedTuple, Sequence, TextIO

from peet_fast.annotate import Annotator
from peet_fast.io import InputError

NOOP = "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{}"
DEFAULT_CHUNK = 4096


def edit_line(o_start: int, o_end: int, etype: str, cor_tokens: Sequence[str], annotator_id: int) -> str:
    return f"A {o_start} {o_end}|||{etype}|||{' '.join(cor_tokens)}|||REQUIRED|||-NONE-|||{annotator_id}"


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


# --- M2 input: a strict reader ---------------------------------------------------------------------------------------

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
    """Read an M2 file strictly (UTF-8; see parse_m2). Raises InputError naming the file and line."""
    from peet_fast.io import read_lines

    return parse_m2(read_lines(path), str(path))


def parse_m2(lines: Sequence[str], path: str = "<m2>") -> list[M2Block]:
    """Blocks of M2 lines: an ``S`` line, then ``A`` lines (``A start end|||type|||cor|||REQUIRED|||-NONE-|||id``)
    and optionally ChERRANT's ``T...`` target lines, blocks separated by blank lines. Refused with InputError
    (file:line): a block not starting with an ``S`` line, any other kind of line, an ``A`` line without its six
    fields, a span that is not two integers with 0 <= start <= end <= len(source) (or -1 -1), an annotator id that
    is not a non-negative integer."""
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
            n_tokens = len(block.source)
            blocks.append(block)
            alignment = 0
        elif tag == "A" and line[1:2] == " ":
            # fast path for a well-formed line; anything else goes to _parse_a_line, which says what is wrong
            fields = line[2:].split("|||")
            if len(fields) == 6 and fields[1]:
                span = fields[0].split()
                coder = fields[5].strip()
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
    if len(fields) != 6:
        raise InputError(path, f"an A line needs 6 '|||'-separated fields "
                               f"(span|||type|||correction|||REQUIRED|||-NONE-|||annotator), got {len(fields)}", no)
    span = fields[0].split()
    try:
        if len(span) != 2:
            raise ValueError
        start, end = int(span[0]), int(span[1])
    except ValueError:
        raise InputError(path, f"bad span {fields[0]!r}: expected two integers 'start end'", no) from None
    if not ((start == end == -1) or 0 <= start <= end <= n_tokens):
        raise InputError(path, f"bad span {start} {end}: the source has {n_tokens} tokens "
                               f"(need 0 <= start <= end <= {n_tokens}, or -1 -1)", no)
    coder = fields[5].strip()
    if not (coder.isascii() and coder.isdigit()):
        raise InputError(path, f"bad annotator id {fields[5]!r}: expected a non-negative integer", no)
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


# --- Chinese (ChERRANT char-mode layout) -----------------------------------------------------------------------------

def zh_block(annotator, source: str, targets: Sequence[str], strategy: str = "all") -> str:
    """One ChERRANT M2 block: ``S`` line of source tokens; per target k either ``T{k} 没有错误`` / ``T{k} 无法标注``
    with a noop / NA line, or for each distinct alignment j a ``T{k}-A{j}`` line of target tokens and its ``A``
    lines; then a blank line. ``annotator`` is a peet_fast.zh.ZhAnnotator."""
    lines = []
    for k, target in enumerate(targets):
        res = annotator.annotate_full(source, target, strategy)
        if k == 0:
            lines.append("S " + " ".join(res.src_tokens))
        if res.kind != "edits":
            lines.append(f"T{k} {'没有错误' if res.kind == 'noop' else '无法标注'}")
            lines.append(f"A -1 -1|||{res.kind}|||-NONE-|||REQUIRED|||-NONE-|||{k}")
            continue
        tgt_line = " ".join(res.tgt_tokens)
        for j, edits in enumerate(res.alignments):
            lines.append(f"T{k}-A{j} {tgt_line}")
            lines.extend(f"A {o1} {o2}|||{etype}|||{cor}|||REQUIRED|||-NONE-|||{k}" for o1, o2, etype, cor in edits)
    if not targets:
        lines.append("S " + " ".join(annotator.tokenize(source)))
    lines.append("")
    return "\n".join(lines) + "\n"


def write_zh_m2(out: TextIO, annotator, sources: Sequence[str], targets: Sequence[Sequence[str]],
                strategy: str = "all", progress=None, name: str = "<input>") -> int:
    """Write ChERRANT-layout M2 for each source line and its targets (any number per line). Returns the block count.
    A line with more minimum-cost alignments than the annotator's max_paths raises InputError(name, ..., line)."""
    for n, (source, tgts) in enumerate(zip(sources, targets), 1):
        try:
            block = zh_block(annotator, source, tgts, strategy)
        except OverflowError as exc:
            raise InputError(name, f"{exc} (use -s first for such sentences)", n) from None
        out.write(block)
        if progress is not None and n % 256 == 0:
            progress(n)
    if progress is not None:
        progress(len(sources))
    return len(sources)


def read_para(path: str) -> tuple[list[str], list[list[str]]]:
    """ChERRANT's parallel input: ``id \\t source \\t target1 \\t target2 ...`` per line (one target at least).
    Blank lines at the end of the file are ignored, as ChERRANT does; any other line without a source and a target
    is refused (InputError naming the file and line)."""
    from peet_fast.io import read_lines

    lines = read_lines(path)
    while lines and not lines[-1].strip():
        lines.pop()
    sources, targets = [], []
    for no, line in enumerate(lines, 1):
        fields = line.split("\t")
        if len(fields) < 3:
            raise InputError(path, f"expected 'id<TAB>source<TAB>target[<TAB>target...]', got {len(fields)} "
                                   f"tab-separated field{'s' if len(fields) != 1 else ''}", no)
        sources.append(fields[1])
        targets.append(fields[2:])
    return sources, targets
