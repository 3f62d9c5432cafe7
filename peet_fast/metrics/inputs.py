"""The input side of ``peet-fast compare``: hypothesis and reference edits from M2 files or from parallel text, as
the sentences peet_fast.metrics.span scores.

Inputs (read by peet_fast.evaluation.inputs: load_m2_pair, load_para_pair; nothing here reads a file): M2 blocks
read strictly by peet_fast.formats.m2.read_m2 (check_m2_pair refuses blocks whose S lines differ;
metrics.span.m2_sentences turns the blocks into sentences), parallel text or ChERRANT ``id, source, targets...``
lines annotated by a language's annotator (parallel_sentences: what ``peet-fast m2`` writes, as compare
reads it back, and without the source lines the language's pipeline skips: the one-step paths equal the two-step
pipeline).

Deliberate departures from the tools, all on input the tools mishandle or by explicit request: malformed M2 (a span
past the sentence or reversed, a non-integer annotator id, a block without an S line, a stray line) is refused where
the tools crash or score it; hyp and ref blocks with different S lines are refused (neither tool checks; ChERRANT's
own demo files differ in one colon and need ``--allow-source-mismatch``); ChERRANT ``T`` lines are accepted in
English mode too (errant would crash on them); ``alignments="separate"`` (not the default) scores each alternative
alignment of a target as a candidate of its own instead of pooling them."""
from __future__ import annotations

from typing import NamedTuple, Sequence


def check_m2_pair(hyp, ref, hyp_path: str, ref_path: str, check_sources: bool = True):
    """Cross-check the blocks of a hypothesis and a reference M2: the same number of sentence blocks, the same
    source tokens in every block (unless check_sources is false). Returns (hyp, ref)."""
    from peet_fast.io import InputError

    if len(hyp) != len(ref):
        raise InputError(hyp_path, f"hyp and ref M2 differ in sentence count ({hyp_path}: {len(hyp)} blocks, "
                                   f"{ref_path}: {len(ref)} blocks)")
    if check_sources:
        check_same_sources(hyp, ref, hyp_path, ref_path)
    return hyp, ref


def check_same_sources(hyp, ref, hyp_path: str, ref_path: str) -> None:
    """Refuse blocks whose S lines differ (the spans would not refer to the same tokens)."""
    from peet_fast.io import InputError

    for k, (h, r) in enumerate(zip(hyp, ref)):
        if h.source != r.source:
            raise InputError(hyp_path, f"source of sentence {k + 1} differs from {ref_path}:{r.line} "
                                       f"({' '.join(h.source)[:60]!r} vs {' '.join(r.source)[:60]!r})", h.line)


class ParallelSentences(NamedTuple):
    """What the two-step pipeline (the language's M2 writer, then its compare) scores for parallel text: hyp and
    ref, per scored sentence {candidate: [edit, ...]}; lines, the 0-based index in SRC of each scored sentence;
    sources, each scored sentence's ``S`` line text (its tokens joined by spaces: what compare -v shows)."""
    hyp: list
    ref: list
    lines: list
    sources: list


def scored_lines(annotator, src: Sequence[str]) -> list[int]:
    """The indices of the SRC lines the language's pipeline scores: every line, except (annotator.skips_blank_sources:
    English) the lines that are empty once stripped, which errant_parallel skips without writing a block."""
    if not getattr(annotator, "skips_blank_sources", False):
        return list(range(len(src)))
    return [k for k, line in enumerate(src) if line.strip()]


def blank_note(command: str, path: str, src: Sequence[str], kept: Sequence[int]) -> str | None:
    """The one stderr line saying that blank SRC lines were left out (None when none was): 'N blank source line(s)
    not scored, as errant_parallel skips them (first: SRC:K)'."""
    if len(kept) == len(src):
        return None
    kept_set = set(kept)
    first = next(k for k in range(len(src)) if k not in kept_set) + 1
    n = len(src) - len(kept)
    return (f"peet-fast {command}: note: {n} blank source line{'s' if n > 1 else ''} not scored, as errant_parallel "
            f"skips {'them' if n > 1 else 'it'} (first: {path}:{first})")


def parallel_sentences(annotator, src: Sequence[str], hyp: Sequence, refs: Sequence[Sequence[str]],
                       alignments: str = "pool") -> ParallelSentences:
    """Parallel text -> what the language's two-step pipeline scores (see ParallelSentences): the annotator's M2 of
    SRC -> each target, as compare reads it back. The SRC lines the pipeline skips (scored_lines) are left out, and
    each correction is the one read back from its ``A`` line (peet_fast.formats.m2.read_back: a correction ending in
    ``|`` is read as errant_compare reads it). hyp: per sentence a hypothesis, or a list of them (hyp annotators 0,
    1, ...); refs: per sentence its references (any number: annotator ids 0, 1, ... in that order). Alternative
    alignments of a target (Chinese) are pooled under its annotator id (alignments="pool": what ChERRANT's compare
    does with its M2) or are candidates of their own ("separate"). One annotation batch: each source sentence is
    parsed once."""
    from peet_fast.formats.m2 import read_back

    if not (len(src) == len(hyp) == len(refs)):
        raise ValueError(f"src, hyp and refs differ in length ({len(src)}, {len(hyp)}, {len(refs)})")
    kept = scored_lines(annotator, src)
    hyps = [[h] if isinstance(h, str) else list(h) for h in (hyp[k] for k in kept)]
    sides = (hyps, [refs[k] for k in kept])
    order = _target_major(sides)
    annotated = annotator.annotate_pairs([src[kept[k]] for _, k, _ in order],
                                         [sides[side][k][j] for side, k, j in order])
    out: tuple[list[dict], list[dict]] = ([{} for _ in kept], [{} for _ in kept])
    sources: list = [None] * len(kept)
    for (side, k, j), ann in zip(order, annotated):
        if sources[k] is None:
            sources[k] = " ".join(ann.source)
        for a, alignment in enumerate(ann.alignments):
            if alignment:
                edits = [e if "|" not in e[3] else (e[0], e[1], e[2], read_back(e[2], e[3])) for e in alignment]
                out[side][k].setdefault(j if alignments == "pool" else (j, a), []).extend(edits)
    sources = [" ".join(src[kept[k]].split()) if s is None else s for k, s in enumerate(sources)]
    return ParallelSentences(out[0], out[1], kept, sources)


def sentences_from_parallel(annotator, src: Sequence[str], hyp: Sequence, refs: Sequence[Sequence[str]],
                             alignments: str = "pool"):
    """(hyp sentences, ref sentences) of parallel_sentences (same arguments): one per scored SRC line."""
    found = parallel_sentences(annotator, src, hyp, refs, alignments)
    return found.hyp, found.ref


def _target_major(sides) -> list[tuple[int, int, int]]:
    """(side, sentence, target) of every target: the hypotheses' first targets in sentence order, then their second
    ones, ..., then the references' the same way (the order errant_parallel-style batching annotates them in)."""
    order = []
    for side, per_sentence in enumerate(sides):
        for j in range(max((len(t) for t in per_sentence), default=0)):
            order.extend((side, k, j) for k, targets in enumerate(per_sentence) if j < len(targets))
    return order


def check_para_sources(path: str, sources, other_path: str, other_sources, what: str) -> None:
    """Refuse (InputError naming `path` and line) two ChERRANT parallel files whose line counts differ or whose
    sources differ on a line (whitespace ignored, as ChERRANT ignores it); `what` names the two in the message."""
    from peet_fast.io import InputError, plural

    if len(sources) != len(other_sources):
        raise InputError(path, f"{what} differ in line count ({path}: {plural(len(sources), 'line')}, "
                               f"{other_path}: {plural(len(other_sources), 'line')})")
    for k, (a, b) in enumerate(zip(sources, other_sources), 1):
        if "".join(a.split()) != "".join(b.split()):
            raise InputError(path, f"source differs from {other_path}:{k} ({a[:40]!r} vs {b[:40]!r})", k)


def cleme_from_m2(hyp_blocks, ref_blocks, hyp_path: str = "<hyp>", ref_path: str = "<ref>") -> list:
    """CLEME sentences (peet_fast.metrics.cleme.CSentence) of a hypothesis and a reference M2 read by load_m2_pair:
    per block the hypothesis's first target and every reference target, as CLEME's M2 reader builds them
    (metrics.cleme.cleme_targets; InputError naming the file and line for what CLEME cannot read)."""
    from peet_fast.metrics.cleme import CSentence, cleme_targets

    out = []
    for h, r in zip(hyp_blocks, ref_blocks):
        src, hyp_targets = cleme_targets(h, hyp_path)
        _, ref_targets = cleme_targets(r, ref_path)
        out.append(CSentence(src, hyp_targets[0], tuple(ref_targets)))
    return out


def cleme_from_parallel(annotator, src: Sequence[str], hyp: Sequence[str], refs: Sequence[Sequence[str]]) -> list:
    """CLEME sentences of parallel text through a language's annotator (peet_fast.load): each target's edits are the
    first alignment of what the annotator's M2 holds for SRC -> target (metrics.cleme.annotation_target), as
    cleme_from_m2 reads that M2. refs: per sentence its references. One annotation batch."""
    from peet_fast.metrics.cleme import CSentence, annotation_target

    if not (len(src) == len(hyp) == len(refs)):
        raise ValueError(f"src, hyp and refs differ in length ({len(src)}, {len(hyp)}, {len(refs)})")
    order = [(k, None) for k in range(len(src))] + [(k, j) for k, r in enumerate(refs) for j in range(len(r))]
    annotated = annotator.annotate_pairs([src[k] for k, _ in order],
                                         [hyp[k] if j is None else refs[k][j] for k, j in order])
    targets: list[list] = [[] for _ in src]
    for (k, _), ann in zip(order, annotated):
        targets[k].append(annotation_target(ann))
    return [CSentence(t[0][0], t[0][1], tuple(r for _, r in t[1:])) for t in targets]
