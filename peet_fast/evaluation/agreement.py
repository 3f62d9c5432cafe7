"""Inter-annotator agreement of correction sets (`peet-fast agreement`): Bryant and Ng (2015)'s framework as the PEET
paper's Table 4 and MuCGEC use it.

Each correction set X (a file of corrected sentences, line-aligned with the source) is scored as a system against
the other sets as references, exactly as ``peet-fast compare`` scores a hypothesis against several references
(peet_fast.metrics.span.compare_edits with the language's SPAN_RULES: per sentence the reference giving the best
running corpus F is chosen, ties to the first in input order) -- the same TP/FP/FN as errant_parallel +
errant_compare (English) or ChERRANT's parallel_to_m2 + compare_m2_for_evaluation (Chinese) on the same files. The
agreement is the mean of the sets' F.

Every set's edits are extracted once, in one annotation batch (peet_fast.metrics.inputs.sentences_from_parallel: each
source sentence is parsed once for all sets and roles); the scoring reuses them in memory for every role.

Sampling (``sample=K``, ``seed=S``): a pool of many sets (CoNLL-14's ten annotators) scores each set against K of
the others. The draw, reproducible with NumPy alone::

    rng = numpy.random.default_rng(S)
    for x in range(n):                                 # the sets in input order
        others = [j for j in range(n) if j != x]       # the other sets in input order
        picked = rng.choice(len(others), size=K, replace=False)
        references[x] = sorted(others[i] for i in picked)   # used in input order

One generator for the whole run, one ``choice`` call per set in input order (made even when K = n - 1)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Hashable, Sequence

from peet_fast.io import InputError
from peet_fast.metrics.span import CompareResult


@dataclass
class SetScore:
    """One set scored against its references (indices into the run's sets, in input order)."""
    name: str
    file: str
    references: list[int]
    result: CompareResult


@dataclass
class Agreement:
    """The result of `agreement`: every set's score, and with pairwise the matrix of set X (row) scored against set
    Y (column) alone (None on the diagonal)."""
    sets: list[SetScore]
    beta: float
    mode: str
    sample: int | None
    seed: int | None
    pairwise: list[list[CompareResult | None]] | None = None

    @property
    def average_f(self) -> float:
        """The agreement: the mean of the sets' F as reported (each rounded to 4 decimals, as the tools print it)."""
        return sum(s.result.f for s in self.sets) / len(self.sets)

    def summary(self) -> dict:
        """The --summary JSON: {"sets": [{"name", "references", "TP", "FP", "FN", "P", "R", "F"}], "average_f",
        "beta", "mode", "sample", "seed"}."""
        names = [s.name for s in self.sets]
        return {"sets": [{"name": s.name, "references": [names[j] for j in s.references], "TP": s.result.tp,
                          "FP": s.result.fp, "FN": s.result.fn, "P": s.result.p, "R": s.result.r, "F": s.result.f}
                         for s in self.sets],
                "average_f": self.average_f, "beta": self.beta, "mode": self.mode, "sample": self.sample,
                "seed": self.seed}


def set_names(files: Sequence[str]) -> list[str]:
    """Each set's name: its file name without extension; two sets with one name are refused (InputError)."""
    names = [os.path.splitext(os.path.basename(f))[0] for f in files]
    for k, name in enumerate(names):
        if names.index(name) != k:
            raise InputError(files[k], f"two sets share the name {name!r} (file name without extension) with "
                                       f"{files[names.index(name)]}")
    return names


def draw_references(n_sets: int, sample: int | None = None, seed: int | None = None) -> list[list[int]]:
    """Per set (input order) the indices of its reference sets, in input order: all the others, or `sample` of
    them drawn as the module docstring says. ValueError for fewer than 2 sets or a sample outside 1..n_sets-1."""
    import numpy as np

    if n_sets < 2:
        raise ValueError(f"agreement needs at least 2 sets, got {n_sets}")
    others = [[j for j in range(n_sets) if j != x] for x in range(n_sets)]
    if sample is None:
        return others
    if not 1 <= sample <= n_sets - 1:
        raise ValueError(f"sample must be between 1 and {n_sets - 1} (the other sets), not {sample}")
    rng = np.random.default_rng(seed)
    return [sorted(o[int(i)] for i in rng.choice(len(o), size=sample, replace=False)) for o in others]


def set_edits(annotator, src: Sequence[str], sets: Sequence[Sequence], alignments: str = "pool") -> list[list[dict]]:
    """The edits of every set: per set, per scored sentence {candidate: [edit, ...]} as peet_fast.metrics.span scores
    them. sets[x][k] is set x's target for sentence k, or a list of targets (the set's annotators). The sentences are
    those the language's two-step pipeline scores (compare_inputs.parallel_sentences: English leaves out blank SRC
    lines, as errant_parallel does). One annotation batch: each source sentence is parsed once for all sets."""
    from peet_fast.metrics.inputs import parallel_sentences

    owner: list[list[int]] = []              # per sentence: the set of each flat target
    flat: list[list[str]] = []
    for k in range(len(src)):
        targets, owners = [], []
        for x, texts in enumerate(sets):
            t = texts[k]
            for one in ([t] if isinstance(t, str) else t):
                targets.append(one)
                owners.append(x)
        flat.append(targets)
        owner.append(owners)
    found = parallel_sentences(annotator, src, flat, [[] for _ in src], alignments)
    out: list[list[dict]] = [[{} for _ in found.lines] for _ in sets]
    for i, (k, sent) in enumerate(zip(found.lines, found.hyp)):
        for key, edits in sent.items():
            out[owner[k][_target(key)]][i][key] = edits
    return out


def _target(key: Hashable) -> int:
    """The target index of a candidate key: j (pooled alignments) or (j, alignment)."""
    return key[0] if isinstance(key, tuple) else key


def join_sets(edits: Sequence[Sequence[dict]], chosen: Sequence[int]) -> list[dict]:
    """Per sentence the candidates of the chosen sets, in that order (what one M2 file of those sets holds)."""
    n = len(edits[0]) if edits else 0
    out = []
    for k in range(n):
        sent: dict = {}
        for x in chosen:
            sent.update(edits[x][k])
        out.append(sent)
    return out


def agreement(annotator, src: Sequence[str], sets: Sequence[Sequence], files: Sequence[str], scorer=None, *,
              sample: int | None = None, seed: int | None = None, pairwise: bool = False) -> Agreement:
    """Score every set against the others (or a seeded sample of them; see the module docstring). scorer: the
    span scoring's options as the errant metric holds them (metrics.errant.Errant: beta, mode, single, multi, filt,
    alignments; its defaults when None), with the span rules of the annotator's language."""
    from peet_fast.languages import span_rules
    from peet_fast.metrics.errant import Errant
    from peet_fast.metrics.span import SpanOptions, compare_edits

    scorer = scorer if scorer is not None else Errant()
    beta, mode = scorer.beta, scorer.mode
    names = set_names(files)
    refs = draw_references(len(sets), sample, seed)
    edits = set_edits(annotator, src, sets, scorer.alignments)
    options = SpanOptions(beta, mode, **span_rules(getattr(annotator, "lang", "en")), single=scorer.single,
                          multi=scorer.multi, filt=scorer.filt)
    scores = [SetScore(names[x], files[x], refs[x], compare_edits(edits[x], join_sets(edits, refs[x]), options))
              for x in range(len(sets))]
    matrix = None
    if pairwise:
        matrix = [[None if x == y else compare_edits(edits[x], edits[y], options) for y in range(len(sets))]
                  for x in range(len(sets))]
    return Agreement(scores, beta, mode, sample, seed, matrix)


def format_table(result: Agreement) -> str:
    """The printed report: one row per set (references, TP, FP, FN, P, R, F), the average F, and with pairwise the
    matrix of F (row: the scored set, column: its single reference)."""
    from peet_fast.io import shown

    names = [shown(s.name) for s in result.sets]       # file names: escaped, never a forged line
    fk = "F" + str(result.beta)
    refs = [", ".join(names[j] for j in s.references) for s in result.sets]
    w, rw = max(3, *map(len, names)), max(10, *map(len, refs))
    lines = [f"{'set':<{w}}  {'references':<{rw}}  {'TP':>6}  {'FP':>6}  {'FN':>6}  {'P':>6}  {'R':>6}  {fk:>6}"]
    for s, r in zip(result.sets, refs):
        c = s.result
        lines.append(f"{shown(s.name):<{w}}  {r:<{rw}}  {c.tp:>6}  {c.fp:>6}  {c.fn:>6}  {c.p:>6.4f}  {c.r:>6.4f}  "
                     f"{c.f:>6.4f}")
    lines.append(f"average {fk}: {result.average_f:.4f} (mode {result.mode}, {len(names)} sets)")
    if result.pairwise is not None:
        cw = max(6, *map(len, names))
        lines.append("")
        lines.append(f"pairwise {fk} (row: scored set, column: its one reference)")
        lines.append(" " * w + "".join(f"  {n:>{cw}}" for n in names))
        for n, row in zip(names, result.pairwise):
            lines.append(f"{n:<{w}}" + "".join(f"  {'-' if c is None else format(c.f, '.4f'):>{cw}}" for c in row))
    return "\n".join(lines) + "\n"


def read_text_sets(src: str, files: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """SRC and the sets' texts, line-aligned (InputError naming the file: an empty SRC, different line counts)."""
    from peet_fast.io import no_lines, read_lines, read_parallel

    if not read_lines(src):
        raise no_lines([src])
    texts = read_parallel([src, *files])
    return texts[0], texts[1:]


def read_para_sets(files: Sequence[str]) -> tuple[list[str], list[list[list[str]]]]:
    """ChERRANT parallel files (``id<TAB>source<TAB>target...``), one per set: the sources (the first file's) and
    per set, per line its targets. Refuses different line counts and a source that differs from the first file's
    (whitespace ignored, as ChERRANT ignores it), naming the file and line."""
    from peet_fast.metrics.inputs import check_para_sources
    from peet_fast.formats.para import read_para

    src, first = read_para(files[0])
    sets = [first]
    for path in files[1:]:
        other_src, targets = read_para(path)
        check_para_sources(path, other_src, files[0], src, "sets")
        sets.append(targets)
    return src, sets
