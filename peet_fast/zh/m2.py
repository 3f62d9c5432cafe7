"""Chinese M2 output: ChERRANT's char-level layout (``T<k>-A<j>`` target lines before their ``A`` lines)."""
from __future__ import annotations

from typing import Sequence, TextIO

from peet_fast.formats.m2 import edit_line
from peet_fast.io import InputError


def zh_block(annotator, source: str, targets: Sequence[str], strategy: str = "all") -> str:
    """One ChERRANT M2 block: ``S`` line of source tokens; per target k either ``T{k} 没有错误`` / ``T{k} 无法标注``
    with a noop / NA line, or for each distinct alignment j a ``T{k}-A{j}`` line of target tokens and its ``A``
    lines; then a blank line. ``annotator`` is a peet_fast.zh.ZhAnnotator."""
    lines = []
    for k, target in enumerate(targets):
        res = annotator.annotate_full(source, target, strategy)
        if k == 0:
            lines.append("S " + " ".join(res.source))
        if res.kind != "edits":
            lines.append(f"T{k} {'没有错误' if res.kind == 'noop' else '无法标注'}")
            lines.append(edit_line(-1, -1, res.kind, "-NONE-", k))
            continue
        tgt_line = " ".join(res.target)
        for j, edits in enumerate(res.alignments):
            lines.append(f"T{k}-A{j} {tgt_line}")
            lines.extend(edit_line(o1, o2, etype, cor, k) for o1, o2, etype, cor in edits)
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
