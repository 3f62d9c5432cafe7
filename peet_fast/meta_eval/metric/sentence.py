"""Sentence-level meta-evaluation: a metric's sentence scores against annotators' rankings of the same outputs.

The pairs: for every ranking item (one annotator, one source), every two systems of the system set that the
annotator ranked differently, the two taken in the tie order (a before b, itertools.combinations): SEEDA's and
GJG15's system order as gec-metrics lists them (meta_eval.metric.data), for own data the systems' names sorted
(or, asked for, the order the outputs were given in: meta_eval.metric.own).
Pairs the annotator tied, and systems the item does not rank, are left out. The human says a is better when a's rank
is smaller. Scores are higher-is-better (meta_eval.evaluator flips a lower-is-better metric's sign first).

Counted exactly as gec-metrics' ``MetaEvalBase.corr_sentence`` and SEEDA's ``utils/corr_sentence.py`` count them:
the metric's judgement is the sign of score(a) - score(b), and a metric **tie counts as a loss of a** (SEEDA's "a
metric tie is a loss"; it agrees with the human exactly when the human preferred b). ``accuracy`` = agreeing pairs /
pairs, ``kendall`` = (agreeing - disagreeing) / pairs (so 2 accuracy - 1). The count depends on the system order
where the metric ties; SEEDA's script run with ``--order lower`` on an unflipped lower-is-better metric instead
counts a tie as a *win* of a.

Our tie-aware variant (``tie_aware``), independent of the system order: a tie is neither agreement nor disagreement:
accuracy = (agreeing + ties / 2) / pairs, kendall = (agreeing - disagreeing) / pairs, the agreeing and disagreeing
counts being over the untied pairs (Kendall's tau-a with metric ties scored 0).

The pairwise analysis splits the pairs by the two ranks the annotator gave (better rank first: (1, 2), (1, 3), ...)
and gives each cell's accuracy (gec-metrics' ``pairwise_analysis``, whose keys are the negated ranks)."""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Sequence

import numpy as np


@dataclass
class Pairs:
    """The human-ordered pairs of a set of ranking items, as parallel int arrays: item (index into the items),
    sentence, a, b (system indices, a before b in the tie order), human (+1: a ranked better, -1: b better), rank_a,
    rank_b."""
    item: np.ndarray
    sentence: np.ndarray
    a: np.ndarray
    b: np.ndarray
    human: np.ndarray
    rank_a: np.ndarray
    rank_b: np.ndarray
    items: int

    def __len__(self) -> int:
        return len(self.item)


def human_pairs(items: Sequence, systems: Sequence[str], order: Sequence[str] | None = None) -> Pairs:
    """The pairs of ranking items (human.judgments.RankingItem: .line, .ranks {system: rank}) over `systems` (a, b:
    indices into it), a before b in `order` (the tie order: the same systems; None: systems' own order)."""
    index = {s: k for k, s in enumerate(systems)}
    place = index if order is None else {s: k for k, s in enumerate(order)}
    rows = []
    for k, item in enumerate(items):
        ranked = [(index[s], r) for _, s, r in sorted((place[s], s, r) for s, r in item.ranks.items() if s in index)]
        for (a, ra), (b, rb) in itertools.combinations(ranked, 2):
            if ra != rb:
                rows.append((k, item.line, a, b, 1 if ra < rb else -1, ra, rb))
    arr = np.array(rows, dtype=np.int64).reshape(-1, 7)
    return Pairs(*(np.ascontiguousarray(arr[:, j]) for j in range(7)), items=len(items))


def judgements(pairs: Pairs, scores: np.ndarray) -> np.ndarray:
    """The metric's sign(score(a) - score(b)) of each pair, from (S, n) sentence scores: int8 in {-1, 0, 1}."""
    scores = np.asarray(scores, dtype=np.float64)
    diff = scores[pairs.a, pairs.sentence] - scores[pairs.b, pairs.sentence]
    return np.sign(diff).astype(np.int8)


def outcomes(pairs: Pairs, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pair: (agrees as gec-metrics counts it: a tie is a loss of a; agrees, untied; tied), boolean arrays."""
    judge = judgements(pairs, scores)
    tie = judge == 0
    gec = np.where(tie, -1, judge) == pairs.human
    return gec, (judge == pairs.human) & ~tie, tie


def _figures(agree: int, ties: int, concordant: int, total: int) -> dict:
    if total == 0:
        return {"accuracy": None, "kendall": None, "pairs": 0, "ties": ties,
                "tie_aware": {"accuracy": None, "kendall": None}}
    discordant = total - concordant - ties
    return {"accuracy": agree / total, "kendall": (agree - (total - agree)) / total, "pairs": total, "ties": ties,
            "tie_aware": {"accuracy": (concordant + ties / 2) / total, "kendall": (concordant - discordant) / total}}


def corr_sentence(pairs: Pairs, scores: np.ndarray) -> dict:
    """{"accuracy", "kendall", "pairs", "ties", "tie_aware": {"accuracy", "kendall"}} (see the module docstring)."""
    gec, concordant, tie = outcomes(pairs, scores)
    return _figures(int(gec.sum()), int(tie.sum()), int(concordant.sum()), len(pairs))


def pairwise_analysis(pairs: Pairs, scores: np.ndarray) -> list[dict]:
    """Per pair of human ranks (better, worse), in rank order: {"ranks": [better, worse], "accuracy", "pairs"}."""
    gec, _, _ = outcomes(pairs, scores)
    lo = np.minimum(pairs.rank_a, pairs.rank_b)
    hi = np.maximum(pairs.rank_a, pairs.rank_b)
    out = []
    for r1, r2 in sorted(set(zip(lo.tolist(), hi.tolist()))):
        cell = (lo == r1) & (hi == r2)
        total = int(cell.sum())
        out.append({"ranks": [r1, r2], "accuracy": int(gec[cell].sum()) / total, "pairs": total})
    return out


def per_item(pairs: Pairs, values: np.ndarray) -> np.ndarray:
    """Sum of a per-pair value within each ranking item: (items,) float64 (for resampling items)."""
    return np.bincount(pairs.item, weights=np.asarray(values, dtype=np.float64), minlength=pairs.items)
