"""CLEME2.0 (Ye et al., ACL 2025): CLEME's chunks scored as hit-, wrong-, under- and over-correction, and the
comprehensive score; with CLEME's sentence-level P/R/F (SentCLEME) that the registry metric ``cleme`` needs.

Reproduces THUKElab/CLEME's ``HEUOEditScorer`` (core/evaluation/scorers/scorer_heuo.py) and the sentence level of its
``PRFEditScorer`` (scorer_prf.py) on the chunks of peet_fast.metrics.cleme (its partition, dependent/independent
counting and length weighting are CLEME's, checked there). On top of CLEME's TP/FP/FN/TN a changed hypothesis chunk
that is an FP is *necessary* (FP_NE) when the reference changes that chunk too (independent: any reference does),
else *unnecessary* (FP_UN). Per reference:

- NE = TP + FP_NE + FN; hit = TP / NE, err = FP_NE / NE, und = FN / NE (0 when NE = 0); ove = FP_UN / (TP + FP)
  with FP = FP_NE + FP_UN (0 when that is 0);
- com = f_hit * hit + f_err * (1 - err) + f_und * (1 - und) + f_ove * (1 - ove); the published defaults (CLEME's
  main.py) are CORPUS_FACTORS = (0.45, 0.35, 0.15, 0.05) and SENTENCE_FACTORS = (0.35, 0.25, 0.20, 0.20);
- corpus level: per sentence the reference whose counts added to the running totals give the highest com (then more
  TP, fewer FP, fewer FN, more TN; the first on ties) is added; com of the totals (unrounded, as CLEME returns it);
- sentence level: per sentence the reference with the highest (com, hit, -err, -und, -ove) of its own counts; the
  sentence's score is that com (CLEME's heuo_sentence_* figure is their mean);
- weights: every chunk 1 (unweighted), or CLEME's length weigher (TN always 1; the weighted FP is summed over the FP
  chunks, NE and ove use FP_NE + FP_UN, as CLEME does).

SentCLEME (``prf_sentence``): per sentence the reference with the highest (F, P, R, accuracy) of its own counts, each
rounded to 4 decimals as CLEME's compute_prf rounds them (its F always with beta 0.5: CLEME does not pass its beta
there), P = 1 when TP + FP = 0, R = 1 when TP + FN = 0, accuracy (TP + TN) / all; the sentence's score is that F.
Weighted, the chunks weigh what CLEME's code gives them at the sentence level: CORPUS_WEIGHER's weights (main.py's
alpha-10 sentence weighers never take effect; see CORPUS_WEIGHER).

Checked against CLEME itself, run from its repository (tests/fixtures/cleme/README.md: the README's AMU figures, its
English demo files, and M2 files of CoNLL-14 outputs); see tests/metrics/test_cleme2.py. Deliberate departure:
CLEME2.0's published weighting is similarity-based (BERTScore, a neural model: out of scope here); the weighted
variant here is CLEME's length weighting."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from peet_fast.metrics.cleme import Chunk, CSentence, LengthWeigher, chunk_partition

CORPUS_FACTORS = (0.45, 0.35, 0.15, 0.05)
SENTENCE_FACTORS = (0.35, 0.25, 0.20, 0.20)
COLUMNS = ("tp", "fp", "fn", "tn", "fp_ne", "fp_un")


@dataclass(frozen=True)
class ClassWeigher:
    """CLEME's LengthWeigher with its own (alpha, min, max) for TP, FP and FN (TN weighs 1)."""
    tp: tuple = (2.0, 0.75, 1.25)
    fp: tuple = (2.0, 0.75, 1.25)
    fn: tuple = (2.0, 0.75, 1.25)

    def weight(self, label: str, length: int, bias: float) -> float:
        if label == "tn":
            return 1.0
        alpha, lo, hi = self.fp if label.startswith("fp") else (self.tp if label == "tp" else self.fn)
        return LengthWeigher(alpha, lo, hi).weight(length, bias, reverse=label.startswith("fp"))


CORPUS_WEIGHER = ClassWeigher()
# CLEME main.py also declares sentence-level weighers (alpha 10: DEFAULT_LENGTH_WEIGHER_SENTENCE_*), but its
# LengthWeigher.__init__ drops its arguments (super().__init__() without them), so CLEME weighs with the defaults,
# CORPUS_WEIGHER, at the sentence level too; so does this module.


# --- chunks, labels and counts -------------------------------------------------------------------------------------

def partitions(sentences: Sequence[CSentence], merge_distance: int = 0) -> tuple[list, float]:
    """The chunks of every sentence (hyp first, then each kept reference: empty references dropped as CLEME drops
    them, all but the first when every reference is empty) and the weigher's bias (mean length of the references'
    changed chunks; 0 without any), as peet_fast.metrics.cleme.cleme computes them."""
    out = []
    for sent in sentences:
        refs = [r for r in sent.refs if r.tokens] or list(sent.refs[:1])
        if not refs:
            raise ValueError("a sentence needs at least one reference")
        out.append(chunk_partition(CSentence(sent.source, sent.hyp, tuple(refs)), merge_distance))
    lengths = [c.length for chunks in out for ref in chunks[1:] for c in ref if c.changed]
    return out, (sum(lengths) / len(lengths) if lengths else 0.0)


def kept_references(sent: CSentence) -> list[int]:
    """Indices (in sent.refs) of the references CLEME keeps for a sentence (see partitions)."""
    kept = [k for k, r in enumerate(sent.refs) if r.tokens]
    return kept or [0]


def labels(chunks: Sequence[Sequence[Chunk]], mode: str) -> list[list[tuple[str, Chunk]]]:
    """Per kept reference, each hypothesis chunk's label: tp, fp_ne, fp_un, fn or tn (chunks: hyp, then refs)."""
    hyp, refs = chunks[0], chunks[1:]
    if mode == "dependent":
        out = []
        for ref in refs:
            row = []
            for h, r in zip(hyp, ref):
                if h.changed:
                    row.append(("tp" if h.tokens == r.tokens else ("fp_ne" if r.changed else "fp_un"), h))
                else:
                    row.append(("fn" if h.tokens != r.tokens else "tn", h))
            out.append(row)
        return out
    if mode != "independent":
        raise ValueError(f"mode must be 'dependent' or 'independent', not {mode!r}")
    row = []
    for k, h in enumerate(hyp):
        if h.changed:
            if any(r[k].tokens == h.tokens for r in refs):
                row.append(("tp", h))
            else:
                row.append(("fp_ne" if any(r[k].changed for r in refs) else "fp_un", h))
        else:
            row.append(("fn" if all(r[k].changed for r in refs) else "tn", h))
    return [row] * len(refs)


def counts(row: Sequence[tuple[str, Chunk]], weigher: ClassWeigher | None, bias: float) -> list[float]:
    """[TP, FP, FN, TN, FP_NE, FP_UN] of one labelled reference, each summed in chunk order as CLEME sums them."""
    out = [0, 0, 0, 0, 0, 0]
    for label, chunk in row:
        w = 1 if weigher is None else weigher.weight(label, chunk.length, bias)
        if label.startswith("fp"):
            out[1] += w
            out[4 if label == "fp_ne" else 5] += w
        else:
            out[("tp", "fp", "fn", "tn").index(label)] += w
    return out


# --- HEUO ----------------------------------------------------------------------------------------------------------

def heuo(tp: float, fn: float, fp_ne: float, fp_un: float, factors: Sequence[float] = CORPUS_FACTORS) -> tuple:
    """CLEME's compute_comprehensive_indicator: (hit, err, und, ove, com)."""
    ne = tp + fp_ne + fn
    fp = fp_ne + fp_un
    hit = float(tp) / ne if ne else 0.0
    err = float(fp_ne) / ne if ne else 0.0
    und = float(fn) / ne if ne else 0.0
    ove = float(fp_un) / (tp + fp) if (tp + fp) else 0.0
    f_hit, f_err, f_und, f_ove = factors
    com = f_hit * hit + f_err * (1 - err) + f_und * (1 - und) + f_ove * (1 - ove)
    return hit, err, und, ove, com


def heuo_com(c: np.ndarray, factors: Sequence[float]) -> np.ndarray:
    """com of rows of counts (..., 6) (COLUMNS), vectorised with heuo's operations."""
    c = np.asarray(c, dtype=np.float64)
    tp, fn, fp_ne, fp_un = c[..., 0], c[..., 2], c[..., 4], c[..., 5]
    ne = tp + fp_ne + fn
    fp = fp_ne + fp_un
    with np.errstate(all="ignore"):
        hit = np.where(ne != 0, tp / ne, 0.0)
        err = np.where(ne != 0, fp_ne / ne, 0.0)
        und = np.where(ne != 0, fn / ne, 0.0)
        ove = np.where(tp + fp != 0, fp_un / (tp + fp), 0.0)
    f_hit, f_err, f_und, f_ove = factors
    return f_hit * hit + f_err * (1 - err) + f_und * (1 - und) + f_ove * (1 - ove)


def _gt(a: Sequence[float], b: Sequence[float]) -> bool:
    """CLEME's gt_numbers: a lexicographically greater than b."""
    for x, y in zip(a, b):
        if x > y:
            return True
        if x < y:
            return False
    return False


def heuo_corpus_choice(candidates: Sequence[Sequence[Sequence[float]]], factors: Sequence[float]) -> list[int]:
    """Per sentence the index of the candidate (rows of COLUMNS counts) CLEME's HEUO score_corpus adds."""
    total = [0.0] * 6
    chosen = []
    for cands in candidates:
        best_key, best, k_best = [-1.0, 0, 0, 0, 0], None, 0
        for k, c in enumerate(cands):
            com = heuo(total[0] + c[0], total[2] + c[2], total[4] + c[4], total[5] + c[5], factors)[4]
            key = [com, c[0], -c[1], -c[2], c[3]]
            if _gt(key, best_key):
                best_key, best, k_best = key, c, k
        if best is not None:
            total = [t + x for t, x in zip(total, best)]
        chosen.append(k_best)
    return chosen


def heuo_sentence_choice(cands: Sequence[Sequence[float]], factors: Sequence[float]) -> int:
    """The candidate CLEME's HEUO score_sentence keeps for one sentence."""
    best_key, k_best = [-1.0, -1.0, 1.0, 1.0, 1.0], 0
    for k, c in enumerate(cands):
        hit, err, und, ove, com = heuo(c[0], c[2], c[4], c[5], factors)
        key = [com, hit, -err, -und, -ove]
        if _gt(key, best_key):
            best_key, k_best = key, k
    return k_best


# --- SentCLEME (PRF at the sentence level) -------------------------------------------------------------------------

def compute_prf(tp: float, fp: float, fn: float, beta: float = 0.5) -> tuple[float, float, float]:
    """CLEME's compute_prf: P, R, F rounded to 4 decimals (P = 1 when TP + FP = 0, R likewise)."""
    p = float(tp) / (tp + fp) if (tp + fp) else 1.0
    r = float(tp) / (tp + fn) if (tp + fn) else 1.0
    f = float((1 + (beta ** 2)) * p * r) / (((beta ** 2) * p) + r) if (p + r) else 0.0
    return round(p, 4), round(r, 4), round(f, 4)


def compute_acc(tp: float, fp: float, fn: float, tn: float) -> float:
    total = tp + fp + fn + tn
    return round(float(tp + tn) / total if total else 0.0, 4)


def prf_sentence_score(cands: Sequence[Sequence[float]], beta: float = 0.5) -> float:
    """SentCLEME's F of one sentence: the candidate with the highest (F, P, R, accuracy), its F."""
    best = [-1.0, -1.0, -1.0, -1.0]
    for c in cands:
        p, r, f = compute_prf(c[0], c[1], c[2], beta)
        key = [f, p, r, compute_acc(c[0], c[1], c[2], c[3])]
        if _gt(key, best):
            best = key
    return best[0]


def prf_values(c: np.ndarray, beta: float) -> np.ndarray:
    """F_beta (rounded to 4 decimals, as CLEME's compute_prf) of rows of counts (..., >= 3): TP, FP, FN first."""
    c = np.asarray(c, dtype=np.float64)
    tp, fp, fn = c[..., 0], c[..., 1], c[..., 2]
    with np.errstate(all="ignore"):
        p = np.where(tp + fp != 0, tp / (tp + fp), 1.0)
        r = np.where(tp + fn != 0, tp / (tp + fn), 1.0)
        b2 = beta ** 2
        f = np.where(p + r != 0, ((1 + b2) * p * r) / ((b2 * p) + r), 0.0)
    return np.round(f, 4)


def cleme2(sentences: Sequence[CSentence], *, mode: str = "dependent", weighted: bool = False,
           factors: Sequence[float] = CORPUS_FACTORS, merge_distance: int = 0) -> dict:
    """Corpus-level CLEME2.0 of a corpus: {"com", "hit", "err", "und", "ove", "tp", "fp", "fn", "tn", "fp_ne",
    "fp_un"} (CLEME's heuo_corpus_weighted / _unweighted)."""
    parts, bias = partitions(sentences, merge_distance)
    weigher = CORPUS_WEIGHER if weighted else None
    cands = [[counts(row, weigher, bias) for row in labels(ch, mode)] for ch in parts]
    chosen = heuo_corpus_choice(cands, factors)
    total = [0] * len(COLUMNS)
    for c, k in zip(cands, chosen):
        total = [t + x for t, x in zip(total, c[k])]
    hit, err, und, ove, com = heuo(total[0], total[2], total[4], total[5], factors)
    return {"com": com, "hit": hit, "err": err, "und": und, "ove": ove, **dict(zip(COLUMNS, total))}
