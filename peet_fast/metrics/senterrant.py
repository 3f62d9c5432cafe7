"""SentERRANT: the sentence-level ERRANT F0.5 averaged over sentences, as PT-M2 computes it (github pygongnlp/PT-M2,
``evaluate.py --base senterrant --scorer self``: metrics.PTM2.compute_senterrant over errant_score.py's
errant_load_annotation and batch_multi_pre_rec_f1_sent_errant), the SentERRANT column of SEEDA's README. Metric
"senterrant" of the registry; higher is better; needs the sources and references.

PT-M2 reads two errant_parallel M2 files (source -> hypothesis; source -> the references, one coder each); here the
edits are the ``errant`` metric's (peet_fast's errant-identical annotator, one annotation batch). As PT-M2 reads them:
an edit is its (start, end, correction); ``UNK`` edits and noop lines are left out; an edit repeated within a coder
counts once (PT-M2 keys a dict by it). Per sentence and reference, the hypothesis edits are matched in order against
that reference's edits (errant_score.matchSeq: a match moves the search past the reference edit it matched, so an
edit matching an earlier reference edit than the last match is not counted); the sentence's F is that of the
reference giving the best F for the sentence alone, with P = 1 without hypothesis edits, R = 1 without reference
edits, F = 0 when beta^2 P + R = 0 (a sentence left unchanged where some reference is unchanged scores 1). The
corpus score is the plain mean over the sentences (summed left to right, as PT-M2 does).

Checked against PT-M2's own errant_score.py (its non-neural part, run unchanged) on M2 files written by errant 3.0.2's
errant_parallel for the CoNLL-14 test set (references: the two annotators' corrected sentences) and the 27 CoNLL-14 /
SEEDA outputs, sentence by sentence (tests/metrics/test_senterrant.py, fixtures in tests/fixtures/senterrant/).
SEEDA's own SentERRANT column is not reproduced by this, by PT-M2's code on these M2 files, or by errant_compare
(docs/rank-metrics.md gives the figures): their M2 files are not published.

Departures: PT-M2 asserts that each target is its edits applied to the source (it stops where a hypothesis holds
a double space); here every line is scored as the annotator tokenises it. A blank source line, which errant_parallel
skips (so PT-M2 would misalign every later sentence), is refused.

Per-sentence statistics, shape (n, 4): the sentence's F and the chosen reference's correct, proposed and reference
edit counts (PT-M2's tie-breaks: more correct, then fewer proposed + beta^2 reference edits, then the first)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from peet_fast.metrics.base import EvalSet, Metric, register
from peet_fast.metrics.config import Config, option
from peet_fast.metrics.sentm2 import MeanOfSentences, best_for_sentence

NOOP_KEY = (-1, -1, "-NONE-")


def edit_keys(edits: Sequence[tuple]) -> list[tuple]:
    """PT-M2's view of one coder's edits: (start, end, correction) in order, once each, without UNK and noop."""
    seen: dict = {}
    for start, end, etype, cor in edits:
        if etype == "UNK":
            continue
        key = (start, end, cor)
        if key != NOOP_KEY:
            seen.setdefault(key, None)
    return list(seen)


def matched(hyp: Sequence[tuple], ref: Sequence[tuple]) -> int:
    """errant_score.matchSeq: hypothesis edits in order, each searched among the reference edits after the last
    match."""
    n = 0
    last = 0
    for e in hyp:
        for i in range(last, len(ref)):
            if e == ref[i]:
                n += 1
                last = i + 1
    return n


def sentence_counts(hyp: Sequence[tuple], refs: dict) -> list[tuple]:
    """(reference id, correct, proposed, reference edits, None) per reference of one sentence (PT-M2's keys)."""
    return [(rid, matched(hyp, keys), len(hyp), len(keys), None) for rid, keys in refs.items()]


@register
class SentErrant(MeanOfSentences, Metric):
    """SentERRANT F_beta (PT-M2's figure): per-sentence (F, correct, proposed, reference edits), the mean of F."""
    name = "senterrant"
    parses = True
    title = "SentERRANT F0.5"
    label = "SentERRANT F0.5"
    higher_is_better = True
    needs_sources = True
    fmt = ".4f"

    @dataclass(frozen=True)
    class Config(Config):
        beta: float = option(0.5, "the F-measure's beta", low=0)

    def __init__(self, beta: float = 0.5):
        from peet_fast.metrics.errant import Errant

        self.beta = float(beta)
        self.title = self.label = f"SentERRANT F{self.beta:g}"
        self._errant = Errant(beta=self.beta)

    def sentence_stats(self, hyp: Sequence[str], data: EvalSet) -> np.ndarray:
        return self.system_stats([hyp], data)[0]

    def system_stats(self, hyps: Sequence[Sequence[str]], data: EvalSet) -> list[np.ndarray]:
        from peet_fast.io import InputError

        if data.sources is None:
            raise ValueError("the senterrant metric needs the source sentences (EvalSet.sources)")
        blank = next((k for k, s in enumerate(data.sources) if not s.strip()), None)
        if blank is not None:
            raise InputError("senterrant", f"source line {blank + 1} is blank: errant_parallel skips it, so PT-M2 "
                                           "cannot score this test set")
        refs = [{rid: edit_keys(edits) for rid, edits in sent.items()}
                for sent in self._errant.reference_sentences(data)]
        out = []
        for system in self._errant.hypothesis_sentences(hyps, data):
            stats = np.zeros((len(refs), 4), dtype=np.float64)
            for i, (h, r) in enumerate(zip(system, refs)):
                counts = sentence_counts(edit_keys(h.get(0, ())), r)
                k, f = best_for_sentence(counts, self.beta)
                stats[i] = (f, *counts[k][1:4])
            out.append(stats)
        return out
