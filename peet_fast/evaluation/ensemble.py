"""Edit-wise majority voting over N GEC system outputs (MuCGEC's rule-based ensemble, as the issue specifies it).

For each sentence: extract each system's edits against the source (English: ERRANT edits of the pre-tokenised text,
as ``peet-fast m2``; Chinese: ChERRANT char-level edits, the first minimum-cost alignment); count, for each distinct
edit ``(start, end, correction)``, the systems that produced it; keep it when

- more than N/2 systems produced it (``min_votes`` = floor(N/2) + 1), or
- it is a word-order or spelling edit and at least N/2 - 1 systems produced it, never fewer than 1
  (``min_votes_relaxed`` = max(1, ceil(N/2 - 1))): the edits the language's annotator calls relaxed (English
  ``R:WO`` and ``R:SPELL``; Chinese ``W``, and an ``S`` edit that is a spelling correction by the rule of
  peet_fast.zh.is_spelling);

then apply the kept edits that do not overlap: edits are taken by more votes first, then by position (start, end),
then in the order the systems are given (the first system proposing an edit first); an edit overlapping one already
taken is dropped. Two edits overlap when their spans share a token, when they are insertions at the same position,
or when an insertion falls strictly inside the other's span. The result is the source with those edits applied:
joined by the annotator's joiner (English tokens by single spaces, Chinese characters without spaces).

An edit's type (for the relaxed threshold) is the type most of its voters gave it (ties: the earliest system's)."""
from __future__ import annotations

from collections import Counter
from typing import Callable, NamedTuple, Sequence

Edit = tuple  # (start, end, type, cor): cor = correction tokens joined by spaces; "" or "-NONE-" for a deletion
DELETION = ("", "-NONE-")


class Thresholds(NamedTuple):
    min_votes: int
    min_votes_relaxed: int


def default_thresholds(n: int) -> Thresholds:
    """More than N/2 votes; N/2 - 1 (at least 1) for word-order and spelling edits."""
    if n < 1:
        raise ValueError("need at least one system")
    return Thresholds(n // 2 + 1, max(1, -(-(n - 2) // 2)))


class Voted(NamedTuple):
    start: int
    end: int
    type: str
    cor: str
    votes: int
    first: int          # index of the first system that proposed it


def count_votes(system_edits: Sequence[Sequence[Edit]]) -> list[Voted]:
    """Distinct edits (start, end, cor) of one sentence with their vote counts (a system votes once per edit; noop
    and NA lines are not edits) and majority type, in order of first appearance."""
    votes: dict = {}
    for k, edits in enumerate(system_edits):
        seen = set()
        for start, end, etype, cor in edits:
            if start < 0:
                continue
            key = (start, end, "" if cor in DELETION else cor)
            if key in seen:
                continue
            seen.add(key)
            entry = votes.get(key)
            if entry is None:
                votes[key] = entry = [k, Counter(), []]
            entry[1][etype] += 1
            entry[2].append(etype)
    out = []
    for (start, end, cor), (first, types, order) in votes.items():
        best = max(types.values())
        etype = next(t for t in order if types[t] == best)
        out.append(Voted(start, end, etype, cor, len(order), first))
    return out


def _overlap(a: Voted, b: Voted) -> bool:
    if a.start == a.end and b.start == b.end:
        return a.start == b.start
    if a.start == a.end:
        return b.start < a.start < b.end
    if b.start == b.end:
        return a.start < b.start < a.end
    return a.start < b.end and b.start < a.end


def select(voted: Sequence[Voted], thresholds: Thresholds, relaxed: Callable[[Voted], bool]) -> list[Voted]:
    """The kept edits (enough votes), without overlaps (see the module docstring), sorted by position."""
    kept = [v for v in voted if v.votes >= thresholds.min_votes
            or (v.votes >= thresholds.min_votes_relaxed and relaxed(v))]
    kept.sort(key=lambda v: (-v.votes, v.start, v.end, v.first))
    taken: list[Voted] = []
    for v in kept:
        if not any(_overlap(v, t) for t in taken):
            taken.append(v)
    taken.sort(key=lambda v: (v.start, v.end))
    return taken


def apply_edits(tokens: Sequence[str], edits: Sequence[Voted]) -> list[str]:
    """The source tokens with non-overlapping edits applied (an insertion at p goes before token p and before an
    edit starting at p)."""
    out: list[str] = []
    pos = 0
    for e in sorted(edits, key=lambda v: (v.start, v.end)):
        if e.start < pos:
            raise ValueError(f"overlapping edits at token {e.start}")
        out.extend(tokens[pos:e.start])
        if e.cor:
            out.extend(e.cor.split(" "))
        pos = e.end
    out.extend(tokens[pos:])
    return out


class EnsembleResult(NamedTuple):
    sentences: list          # corrected sentences
    kept: int                # edits applied
    candidates: int          # distinct edits proposed
    dropped_overlaps: int    # edits with enough votes dropped for overlapping a better one


def vote_all(sources: Sequence[Sequence[str]], system_edits: Sequence[Sequence[Sequence[Edit]]], n: int,
             thresholds: Thresholds | None, relaxed, joiner: str) -> EnsembleResult:
    """sources: per sentence its tokens; system_edits: per sentence, per system, its edits."""
    th = thresholds or default_thresholds(n)
    out, kept_n, cand_n, dropped = [], 0, 0, 0
    for tokens, per_system in zip(sources, system_edits):
        voted = count_votes(per_system)
        rule = (lambda v, t=tokens: relaxed(v, t))
        enough = [v for v in voted if v.votes >= th.min_votes or (v.votes >= th.min_votes_relaxed and rule(v))]
        kept = select(voted, th, rule)
        cand_n += len(voted)
        kept_n += len(kept)
        dropped += len(enough) - len(kept)
        out.append(joiner.join(apply_edits(tokens, kept)))
    return EnsembleResult(out, kept_n, cand_n, dropped)


def ensemble(annotator, src: Sequence[str], hyps: Sequence[Sequence[str]],
             thresholds: Thresholds | None = None) -> EnsembleResult:
    """Vote over the systems' edits against the source from a language's annotator (peet_fast.load): its first
    alignment of each pair (English: ERRANT, pre-tokenised text; Chinese: ChERRANT char level, which should not
    convert the outputs to simplified: t2s=False). One annotation batch: each source is parsed once. The relaxed
    threshold applies to the edits annotator.relaxed accepts; tokens are joined with annotator.joiner."""
    n, m = len(hyps), len(src)
    pairs = annotator.annotate_pairs([s for _ in hyps for s in src], [h for hyp in hyps for h in hyp],
                                     alternatives=False)
    per_sentence = [[pairs[k * m + i].alignments[0] for k in range(n)] for i in range(m)]
    sources = [pairs[i].source for i in range(m)] if n else [annotator.tokenize(s) for s in src]
    return vote_all(sources, per_sentence, n, thresholds, annotator.relaxed, annotator.joiner)
