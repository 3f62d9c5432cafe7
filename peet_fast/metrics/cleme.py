"""CLEME: chunk-level, multi-reference GEC scoring (Ye et al., EMNLP 2023), on plain edit tuples.

Reproduces THUKElab/CLEME (``core/evaluation/metrics/cleme``; the same code is vendored in THUKElab/EXCGEC):

1. **Chunk partition.** The edits of the hypothesis and of every reference of a sentence are pooled and sorted by
   source start; an edit starting at most ``merge_distance`` tokens after the end of the current group joins it
   (so touching or overlapping edits always merge; CLEME's default distance is 0, EXCGEC uses 1). Each group is a
   *corrected* chunk (a *dummy* chunk when it is an empty interval, i.e. only insertions); the source between groups
   forms *unchanged* chunks. Every target (hyp and refs) gets the same chunk boundaries; a target's text of a chunk
   comes from its own source-to-target token mapping. A chunk is *changed* for a target when that target has an edit
   in it.
2. **Counting**, per chunk of the hypothesis (chunks compare by their target tokens):
   - dependent (each reference on its own; the best reference per sentence is kept): a changed hyp chunk is a TP if
     it equals the reference's chunk, else an FP; an unchanged hyp chunk is an FN if it differs from the reference's
     chunk, else a TN;
   - independent (references pooled): a changed hyp chunk is a TP if it equals any reference's chunk, else an FP;
     an unchanged one is an FN if every reference changes that chunk, else a TN.
3. **Length weighting** (corpus level): a chunk of length L = max(source tokens, hyp target tokens) weighs
   ``alpha / (1 + (alpha - 1) * exp(b - L))`` for TP and FN, ``alpha / (1 + (alpha - 1) * exp(L - b))`` for FP,
   clipped to [0.75, 1.25] (alpha = 2), TN always 1; b = the mean length of the references' changed chunks.
4. **Corpus score**: per sentence the reference (dependent) whose counts give the best running corpus F (rounded to 4
   decimals as CLEME rounds it; then more TP, fewer FP, fewer FN, more TN) is added to the totals, separately for the
   weighted and unweighted counts; P = TP / (TP + FP) (1 if FP = 0), R likewise, F_beta.

Input per sentence: the source tokens and, for the hypothesis and each reference, the target tokens and its edits
``(src_start, src_end, tgt_start, tgt_end)`` (half-open token intervals). :func:`cleme_sentences` reads a hypothesis
and a reference M2 file (with the strict reader, peet_fast.formats.m2) into that form as CLEME's M2 reader builds it
(:func:`cleme_targets`).
"""
from __future__ import annotations

import math
import os
from bisect import bisect_right
from dataclasses import dataclass
from typing import Sequence

from peet_fast.formats.m2 import M2Block, M2Edit, read_m2
from peet_fast.io import InputError, plural
from peet_fast.metrics import MetricResult
from peet_fast.metrics.span import prf

Edit = tuple  # (src_start, src_end, tgt_start, tgt_end)


@dataclass(frozen=True)
class Target:
    """One corrected version of a source: its tokens and the edits (src_start, src_end, tgt_start, tgt_end)."""
    tokens: tuple[str, ...]
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class CSentence:
    """A source with its hypothesis and references (at least one)."""
    source: tuple[str, ...]
    hyp: Target
    refs: tuple[Target, ...]


@dataclass(frozen=True)
class Chunk:
    """A chunk as one target sees it: source length, the target's tokens of it, and whether the target edits it."""
    src_len: int
    tokens: tuple[str, ...]
    changed: bool

    @property
    def length(self) -> int:
        return max(self.src_len, len(self.tokens))


@dataclass
class Counts:
    tp: float = 0
    fp: float = 0
    fn: float = 0
    tn: float = 0


@dataclass
class ClemeResult(MetricResult):
    """Corpus totals and scores (unrounded) for one variant; f is F_beta."""
    tp: float
    fp: float
    fn: float
    tn: float
    p: float
    r: float
    f: float
    beta: float = 0.5

    def summary(self) -> dict:
        """{"P", "R", "F<beta>", "TP", "FP", "FN", "TN"} ("F0.5" for beta 0.5)."""
        return {"P": self.p, "R": self.r, f"F{self.beta:g}": self.f, "TP": self.tp, "FP": self.fp, "FN": self.fn,
                "TN": self.tn}


@dataclass(frozen=True)
class LengthWeigher:
    """CLEME's corpus-level length weigher (the defaults of CLEME's main.py and EXCGEC's evaluator)."""
    alpha: float = 2.0
    min_value: float = 0.75
    max_value: float = 1.25

    def weight(self, length: int, bias: float, reverse: bool) -> float:
        x = (length - bias) if reverse else (bias - length)
        if x > 700:                         # exp overflows: the weight tends to 0, clipped to the minimum
            return self.min_value
        w = self.alpha * (1 / (1 + (self.alpha - 1) * math.exp(x)))
        return min(max(w, self.min_value), self.max_value)


# --- chunk partition -----------------------------------------------------------------------------------------------

def _token_mapping(n_src: int, edits: Sequence[Edit]) -> dict[int, int]:
    """Source index -> target index, built as CLEME's map_parallel builds it (edits sorted by source start)."""
    mapping: dict[int, int] = {}
    si = ti = 0
    for s, e, ts, te in edits:
        mapping[s] = ts
        mapping[e] = te
        while si < s:
            mapping[si] = ti
            si += 1
            ti += 1
        si, ti = e, te
    while si <= n_src:
        mapping[si] = ti
        si += 1
        ti += 1
    return mapping


def _shared_intervals(edit_lists: Sequence[Sequence[Edit]], merge_distance: int) -> list[list[int]]:
    pooled = sorted((e for edits in edit_lists for e in edits), key=lambda e: e[0])
    shared: list[list[int]] = []
    for s, e, _, _ in pooled:
        if shared and s <= shared[-1][1] + merge_distance:
            shared[-1][1] = max(e, shared[-1][1])
        else:
            shared.append([s, e])
    return shared


def _chunk_intervals(n_src: int, shared: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    si = k = 0
    while si <= n_src:
        if k == len(shared):
            if si != n_src:
                out.append((si, n_src))
            break
        s, e = shared[k]
        if si == s == e:                    # dummy chunk
            out.append((s, e))
            k += 1
        elif s <= si < e:                   # corrected chunk
            out.append((s, e))
            si = e
            k += 1
        else:                               # unchanged chunk
            out.append((si, s))
            si = s
    return out


def chunk_partition(sent: CSentence, merge_distance: int = 0) -> list[list[Chunk]]:
    """The chunks of the hypothesis (first list) and of each reference, all with the same boundaries."""
    src = sent.source
    n = len(src)
    targets = (sent.hyp, *sent.refs)
    edit_lists = [sorted(t.edits, key=lambda e: e[0]) for t in targets]
    mappings = [_token_mapping(n, edits) for edits in edit_lists]
    shared = _shared_intervals(edit_lists, merge_distance)
    starts = [s for s, _ in shared]
    intervals = _chunk_intervals(n, shared)
    out = []
    for target, edits, mapping in zip(targets, edit_lists, mappings):
        corrected: dict[tuple[int, int], tuple[str, ...]] = {}
        for s, e, _, _ in edits:
            k = bisect_right(starts, s) - 1
            i0, i1 = shared[k]
            assert i0 <= s and e <= i1
            if (i0, i1) in corrected:
                continue
            tb = 0 if i0 == 0 else mapping[i0 - 1] + 1
            corrected[(i0, i1)] = target.tokens[tb:mapping[i1]]
        chunks = []
        for c0, c1 in intervals:
            toks = corrected.get((c0, c1))
            if toks is not None:
                chunks.append(Chunk(c1 - c0, toks, True))
            else:
                tb = mapping[c0]
                te = 0 if c1 == 0 else mapping[c1 - 1] + 1
                chunks.append(Chunk(c1 - c0, target.tokens[tb:te], False))
        out.append(chunks)
    return out


# --- counting and scoring ------------------------------------------------------------------------------------------

def _classify_dependent(hyp: Sequence[Chunk], ref: Sequence[Chunk]) -> list[tuple[str, Chunk]]:
    out = []
    for h, r in zip(hyp, ref):
        if h.changed:
            out.append(("tp" if h.tokens == r.tokens else "fp", h))
        else:
            out.append(("fn" if h.tokens != r.tokens else "tn", h))
    return out


def _classify_independent(hyp: Sequence[Chunk], refs: Sequence[Sequence[Chunk]]) -> list[tuple[str, Chunk]]:
    out = []
    for k, h in enumerate(hyp):
        if h.changed:
            out.append(("tp" if any(r[k].tokens == h.tokens for r in refs) else "fp", h))
        else:
            out.append(("fn" if all(r[k].changed for r in refs) else "tn", h))
    return out


def _counts(labels: Sequence[tuple[str, Chunk]], weigher: LengthWeigher | None, bias: float) -> Counts:
    c = Counts()
    for label, chunk in labels:
        if weigher is None or label == "tn":
            w = 1
        else:
            w = weigher.weight(chunk.length, bias, reverse=(label == "fp"))
        setattr(c, label, getattr(c, label) + w)
    return c


def _corpus(per_sentence: Sequence[Sequence[Counts]], beta: float) -> ClemeResult:
    total = Counts()
    for candidates in per_sentence:
        best_key, best = (-1.0, 0, 0, 0, 0), Counts()
        for c in candidates:
            f = round(prf(total.tp + c.tp, total.fp + c.fp, total.fn + c.fn, beta)[2], 4)
            key = (f, c.tp, -c.fp, -c.fn, c.tn)
            if key > best_key:
                best_key, best = key, c
        total.tp += best.tp
        total.fp += best.fp
        total.fn += best.fn
        total.tn += best.tn
    p, r, f = prf(total.tp, total.fp, total.fn, beta)
    return ClemeResult(total.tp, total.fp, total.fn, total.tn, p, r, f, beta)


def cleme(sentences: Sequence[CSentence], *, merge_distance: int = 0, beta: float = 0.5,
          weigher: LengthWeigher | None = LengthWeigher()) -> dict[str, ClemeResult]:
    """Corpus-level CLEME: ``{"dependent_weighted", "dependent_unweighted", "independent_weighted",
    "independent_unweighted"}`` -> ClemeResult. References with an empty text are dropped as CLEME drops them (all
    but the first when every reference is empty)."""
    partitions = []
    for sent in sentences:
        refs = [r for r in sent.refs if r.tokens] or list(sent.refs[:1])
        if not refs:
            raise ValueError("a sentence needs at least one reference")
        partitions.append(chunk_partition(CSentence(sent.source, sent.hyp, tuple(refs)), merge_distance))
    lengths = [c.length for chunks in partitions for ref in chunks[1:] for c in ref if c.changed]
    bias = sum(lengths) / len(lengths) if lengths else 0.0
    results = {}
    for variant in ("dependent", "independent"):
        weighted, unweighted = [], []
        for chunks in partitions:
            hyp, refs = chunks[0], chunks[1:]
            if variant == "dependent":
                labels = [_classify_dependent(hyp, r) for r in refs]
            else:
                labels = [_classify_independent(hyp, refs)] * len(refs)
            unweighted.append([_counts(lab, None, bias) for lab in labels])
            weighted.append([_counts(lab, weigher, bias) for lab in labels] if weigher else unweighted[-1])
        results[f"{variant}_weighted"] = _corpus(weighted, beta)
        results[f"{variant}_unweighted"] = _corpus(unweighted, beta)
    return results


# --- M2 input: the strict reader's blocks, as CLEME's M2DataReaderWriter builds its targets --------------------------

def cleme_targets(block: M2Block, path: str = "<m2>") -> tuple[tuple[str, ...], list[Target]]:
    """(source tokens, [target, ...]) of an M2 block (peet_fast.formats.m2.read_m2), as CLEME's M2 reader builds
    them: for each annotator the edits of its first alignment (``T<i>-A0``; edits under ``T<i>-A<j>``, j >= 1, are
    skipped), applied in file order; ``-NONE-`` is an empty correction; noop lines give an unchanged target. A new
    target starts at an edit whose annotator id is one more than the current target's (an edit with any other id
    joins the current target, as in CLEME). A target is known by its edits: a ``T`` line without ``A`` lines (which
    ChERRANT never writes: an unchanged target has a noop line) gives no target. Raises InputError (path, the
    block's S line) for an empty source, for a noop or NA edit with a span, and for a span past the source's
    whitespace-separated tokens (CLEME splits the S line on whitespace; the M2 reader also lets through the spans of
    spaCy's whitespace tokens, ``m2 -tok``, which CLEME would misplace)."""
    src = tuple(block.source)
    if not src:
        raise InputError(path, "empty source sentence", line=block.line)
    for e in block.edits:
        if e.end > len(src):
            raise InputError(path, f"span {e.start} {e.end} past the {len(src)} whitespace-separated tokens of the S "
                                   f"line (CLEME splits it on whitespace; whitespace tokens, as m2 -tok writes them, "
                                   f"cannot be scored with CLEME)", line=block.line)
    groups: list[list[M2Edit]] = []
    group: list[M2Edit] = []
    target_index = -1
    for e in block.edits:
        if e.annotator == target_index + 1:
            if group:
                groups.append(group)
            group = []
            target_index = e.annotator
        if e.alignment == 0:
            group.append(e)
    groups.append(group)
    return src, [_apply_edits(src, g, path, block.line) for g in groups]


def _apply_edits(src: Sequence[str], edits: Sequence[M2Edit], path: str, line: int) -> Target:
    tokens = list(src)
    offset = 0
    out = []
    for e in edits:
        s, end = e.start, e.end
        if s == end == -1:
            continue
        if e.type in ("noop", "NA"):
            raise InputError(path, f"{e.type} edit with a span ({s} {end}) in this sentence block", line=line)
        cor = e.cor.split()
        if cor and cor[0] == "-NONE-":
            cor = []
        tb = s + offset
        tokens[tb:end + offset] = cor
        offset += len(cor) - (end - s)
        out.append((s, end, tb, tb + len(cor)))
    return Target(tuple(tokens), tuple(out))


def annotation_target(annotation) -> tuple[tuple[str, ...], Target]:
    """(source tokens, Target) of an annotated pair (a language annotator's Annotation: peet_fast.load(...)
    .annotate_pairs): its first alignment, with target intervals; noop and NA edits (span -1 -1) are skipped and a
    ``-NONE-`` correction is empty."""
    edits, offset = [], 0
    for o1, o2, _, cor in (annotation.alignments[0] if annotation.alignments else []):
        if o1 < 0:                                  # noop / NA
            continue
        k = 0 if cor == "-NONE-" else len(cor.split())
        edits.append((o1, o2, o1 + offset, o1 + offset + k))
        offset += k - (o2 - o1)
    return tuple(annotation.source), Target(tuple(annotation.target), tuple(edits))


def cleme_sentences(hyp_path: str | os.PathLike, ref_path: str | os.PathLike) -> list[CSentence]:
    """Pair a hypothesis M2 file (its first target) with a reference M2 file (all its targets), block by block."""
    hyp_path, ref_path = os.fspath(hyp_path), os.fspath(ref_path)
    hyp = [cleme_targets(b, hyp_path) for b in read_m2(hyp_path)]
    ref = [cleme_targets(b, ref_path) for b in read_m2(ref_path)]
    if len(hyp) != len(ref):
        raise InputError(hyp_path, f"{plural(len(hyp), 'sentence')}, but {ref_path} has {len(ref)}")
    out = []
    for i, ((hs, ht), (rs, rt)) in enumerate(zip(hyp, ref)):
        if hs != rs:
            raise InputError(hyp_path, f"sentence {i}: source differs from {ref_path}'s")
        out.append(CSentence(hs, ht[0], tuple(rt)))
    return out


def format_cleme(result: ClemeResult, variant: str) -> str:
    """The printed report of one CLEME variant ("dependent_weighted", ...) in errant_compare's layout: counts
    (weighted ones to 4 decimals), then P, R and F_beta rounded to 4 decimals."""
    def count(x: float) -> str:
        return str(int(x)) if float(x).is_integer() else f"{x:.4f}"

    mode, _, weighting = variant.partition("_")
    title = f" CLEME ({mode}, {'length-weighted' if weighting == 'weighted' else 'unweighted'}) "
    values = [count(x) for x in (result.tp, result.fp, result.fn, result.tn)]
    values += [str(round(x, 4)) for x in (result.p, result.r, result.f)]
    lines = ["", "{:=^46}".format(title), "\t".join(["TP", "FP", "FN", "TN", "Prec", "Rec", "F" + str(result.beta)]),
             "\t".join(values), "{:=^46}".format(""), ""]
    return "\n".join(lines) + "\n"
