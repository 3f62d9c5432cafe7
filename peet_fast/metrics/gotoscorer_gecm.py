"""GoToScorer as gec-metrics 0.1.2 computes it (gec_metrics.metrics.GoToScorer with its default Config, which is what
its MetaEvalSEEDA / MetaEvalGJG meta-evaluate): the ``convention="gec-metrics"`` of peet_fast.metrics.gotoscorer.

What differs from GTS's gotoscorer.py (the metric's default convention):

- **no weights**: gec-metrics' Config defaults to ``no_weight=True``, so every chunk weighs 1 (its weights come only
  from a JSON weight file, never from the systems scored);
- the reference chunks come from the **errant edits of the reference text** (``ref_id``'s corrected sentences, as
  gecommon writes them from the M2), not from the gold M2's own edits; only noop and UNK edits are dropped;
- chunks: each edit a chunk, each other source token a chunk (tokens: the source split on spaces), an empty
  insertion slot before each chunk that does not follow an insertion, and one after the last chunk unless it is an
  insertion;
- a reference chunk is judged against the system's chunks in order: the first system chunk with the same span
  decides (correct: the same text; modified: that chunk is an edit); without one, a reference insertion slot is
  correct and unmodified, any other chunk wrong, and modified where an edit of the system overlaps it (starts
  inside it, or covers its start);
- counts: modified and correct -> TP; modified and wrong -> FP, and FN too where the reference edits the chunk;
  unmodified and correct -> TN; unmodified and wrong -> FN;
- P = 1 without FP, R = 1 without FN, F_beta 0 where P + R = 0, at the corpus level as at the sentence level
  (gec-metrics' Score).

Per-sentence statistics as the GTS convention: weighted TP, FP, FN, TN and the total weight (here the chunk count)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

SKIPPED = frozenset(("noop", "UNK"))


def chunks(edits: Sequence[tuple], tokens: Sequence[str]) -> list[tuple]:
    """The chunks (start, end, text, is_edit) of one sentence from its edits (start, end, type, cor), in order."""
    edits = [e for e in edits if e[2] not in SKIPPED]
    content: list[tuple] = []
    k, w, n = 0, 0, len(tokens)
    while w < n:
        if k < len(edits) and edits[k][0] == w:
            s, e, _, cor = edits[k]
            content.append((s, e, cor, True))
            k += 1
            w = e                                   # an insertion (e == w) leaves w where it is
        else:
            content.append((w, w + 1, tokens[w], False))
            w += 1
    if edits and edits[-1][0] == n:                 # an insertion after the last token
        s, e, _, cor = edits[-1]
        content.append((s, e, cor, True))
    out: list[tuple] = []
    after_insertion = False
    for c in content:
        if c[0] == c[1]:
            out.append(c)
            after_insertion = True
            continue
        if not after_insertion:
            out.append((c[0], c[0], "", False))
        out.append(c)
        after_insertion = False
    if not after_insertion and content:
        end = content[-1][1]
        out.append((end, end, "", False))
    return out


def judge(ref: Sequence[tuple], hyp: Sequence[tuple]) -> list[tuple[bool, bool]]:
    """(correct, modified) of each reference chunk against one system's chunks (see the module docstring)."""
    first: dict = {}
    for c in hyp:
        first.setdefault((c[0], c[1]), c)
    hyp_edits = [c for c in hyp if c[3]]
    out = []
    for s, e, text, _ in ref:
        h = first.get((s, e))
        if h is not None:
            out.append((h[2] == text, h[3]))
        elif s == e:
            out.append((bool(hyp), False))
        else:
            out.append((False, any(s <= hs < e or hs <= s < he for hs, he, _, _ in hyp_edits)))
    return out


def sentence_stats(ref: Sequence[tuple], hyp: Sequence[tuple]) -> tuple[float, float, float, float, float]:
    """(TP, FP, FN, TN, chunks) of one sentence, every chunk of weight 1."""
    tp = fp = fn = tn = 0.0
    for (correct, modified), r in zip(judge(ref, hyp), ref):
        if modified:
            if correct:
                tp += 1.0
            else:
                fp += 1.0
                if r[3]:
                    fn += 1.0
        elif correct:
            tn += 1.0
        else:
            fn += 1.0
    return tp, fp, fn, tn, float(len(ref))


def system_stats(ref_edits: Sequence[Sequence[tuple]], hyp_edits: Sequence[Sequence[Sequence[tuple]]],
                 sources: Sequence[str]) -> list[np.ndarray]:
    """Per system an (n, 5) array of sentence statistics. ref_edits: per sentence the reference's edits; hyp_edits:
    per system, per sentence its edits; each edit (start, end, type, cor) in sentence order."""
    tokens = [s.split(" ") for s in sources]
    refs = [chunks(r, t) for r, t in zip(ref_edits, tokens)]
    out = []
    for system in hyp_edits:
        rows = [sentence_stats(r, chunks(h, t)) for r, h, t in zip(refs, system, tokens)]
        out.append(np.array(rows, dtype=np.float64).reshape(len(sources), 5))
    return out


def f_beta(tp, fp, fn, beta: float):
    """gec-metrics' Score.f (P = 1 without FP, R = 1 without FN), elementwise over arrays or on floats."""
    tp, fp, fn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn))
    b2 = beta * beta
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(fp == 0, 1.0, tp / (tp + fp))
        r = np.where(fn == 0, 1.0, tp / (tp + fn))
        return np.where(p + r > 0, (1 + b2) * p * r / (b2 * p + r), 0.0)
