"""errant_compare's span-based F0.5 as a metric of the registry (name "errant"; higher is better).

The system's edits source -> hypothesis and each reference's edits source -> reference are extracted by the
language's annotator exactly as `peet-fast compare --src SRC --hyp HYP --ref REF ...` extracts them
(peet_fast.metrics.inputs.sentences_from_parallel: what `peet-fast m2` writes), and scored by
peet_fast.metrics.span.compare_edits: per sentence, the reference whose edits give the best running corpus F is
chosen, as errant_compare does. Per-sentence statistics, shape (n, 3): the chosen pair's TP, FP, FN. The corpus
score is F_beta of their sums, rounded to 4 decimals as errant_compare prints it; over all the sentences in order it
is `compare`'s figure. A resample scores its sentences' counts as they were chosen over the whole corpus (the
choice is not redone per resample).

breakdown(stats) gives the per-type figures of `compare -cat` for the system these statistics belong to.

EvalSet use: sources (required), references, annotator, options["lang"] ("en" by default: span rules of
peet_fast.languages.span_rules)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from peet_fast.metrics.base import EvalSet, Metric, register
from peet_fast.metrics.config import Config, option


@register
class Errant(Metric):
    name = "errant"
    title = "ERRANT F0.5"
    label = "ERRANT F0.5"
    higher_is_better = True
    needs_sources = True
    fmt = ".4f"
    langs = ("en", "zh")
    parses = True
    config = {"beta": "beta", "mode": "mode", "single": "single", "multi": "multi", "filt": "filt",
              "alignments": "alignments", "cat": "cat"}
    scores_edits = True
    compare_options = frozenset([*config, "lang", "para", "allow_source_mismatch", "verbose"])

    @dataclass(frozen=True)
    class Config(Config):
        beta: float = option(0.5, "the F-measure's beta", low=0)
        mode: str = option("cs", choices=("cs", "cse", "ds", "dt"))      # errant_compare's -ds/-dt/-cse (span.MODES)
        single: bool = option(False)            # only the single-token edits (-single)
        multi: bool = option(False)             # only the multi-token edits (-multi)
        filt: tuple = option((), kind="strs")   # the error types left out (-filt)
        alignments: str = option("pool", choices=("pool", "separate"))
        cat: int | None = option(None, choices=(1, 2, 3))     # compare's per-type level (-cat)

    def __init__(self, beta: float = 0.5, mode: str = "cs", single: bool = False, multi: bool = False,
                 filt: Sequence[str] = (), alignments: str = "pool", cat: int | None = None):
        self.beta = beta
        self.mode = mode
        self.single, self.multi, self.filt, self.alignments, self.cat = single, multi, list(filt), alignments, cat
        if beta != 0.5:
            self.title = self.label = f"ERRANT F{beta}"

    def reference_sentences(self, data: EvalSet) -> list[dict]:
        """The references' edits per sentence ({annotator id: edits}, ids 0, 1, ... in reference order)."""
        return self.prepared(data, _reference_sentences)

    def hypothesis_sentences(self, hyps: Sequence[Sequence[str]], data: EvalSet) -> list[list[dict]]:
        """Each system's edits per sentence ({0: edits}, or {} without edits), all systems in one annotation batch."""
        from peet_fast.metrics.inputs import sentences_from_parallel

        n = len(data.sources)
        pooled = sentences_from_parallel(data.annotator(), list(data.sources),
                                         [[h[i] for h in hyps] for i in range(n)], [[] for _ in range(n)])[0]
        return [[{0: sent[s]} if s in sent else {} for sent in pooled] for s in range(len(hyps))]

    def sentence_stats(self, hyp: Sequence[str], data: EvalSet) -> np.ndarray:
        return self.system_stats([hyp], data)[0]

    def system_stats(self, hyps: Sequence[Sequence[str]], data: EvalSet) -> list[np.ndarray]:
        from peet_fast.languages import span_rules
        from peet_fast.metrics.span import SpanOptions, compare_edits, sentence_counts

        refs = self.reference_sentences(data)
        options = SpanOptions(self.beta, self.mode, **span_rules(data.options.get("lang", "en")))
        out = []
        for hyp in self.hypothesis_sentences(hyps, data):
            result = compare_edits(hyp, refs, options)
            alone = sentence_counts(hyp, refs, options)
            out.append(np.concatenate([np.array(result.counts, dtype=np.float64).reshape(len(hyp), 3),
                                       np.array(alone, dtype=np.float64).reshape(len(hyp), 3)], axis=1))
            self._remember(out[-1], result)
        return out

    def breakdown(self, stats: np.ndarray, level: int = 3) -> dict | None:
        """TP, FP, FN, P, R and F per error type over the chosen pairs, as `compare -cat LEVEL` (errant_compare
        -cat) prints them: level 1 the operation (M/R/U), 2 the main type, 3 the full type; sorted by type."""
        result = self._recalled(stats)
        return None if result is None else result.summary(level)["per_type"]

    def compare(self, given) -> "Compared":
        """errant_compare / ChERRANT's compare of one hypothesis (a metrics.base.Comparison): the hypothesis's and the
        references' edits from M2 blocks, or extracted from the texts as `m2` writes them; per sentence the pair
        maximising the running corpus F. The report is the tools' (-cat self.cat); the summary holds the figures,
        per_type at the cat level (full types by default), the language and the number of sentences."""
        import contextlib

        from peet_fast.io import lines_located
        from peet_fast.languages import span_rules
        from peet_fast.metrics import inputs as C
        from peet_fast.metrics import span
        from peet_fast.metrics.base import Compared

        if given.blocks is not None:
            hyp, ref = (span.m2_sentences(b, alignments=self.alignments) for b in given.blocks)
            texts = given.shown
        else:
            annotator = given.annotator
            if given.progress is not None:
                annotator = annotator.with_options(progress=given.progress)
            loaded = annotator()
            meter = given.progress if given.progress is not None else contextlib.nullcontext()
            with meter, lines_located(given.columns):
                found = C.parallel_sentences(loaded, given.sources, given.hyp, given.refs, self.alignments)
            hyp, ref, texts = found.hyp, found.ref, found.sources
            if given.sources and not found.lines:   # every line blank: errant_compare reads its two empty M2 files
                hyp, ref, texts = [{}], [{}], [""]  # as one empty sentence (-v shows it; the totals are 0 either way)
            note = C.blank_note("compare", given.src_path, given.sources, found.lines)
            if note and given.notice is not None:
                given.notice(note)
        if given.verbose is not None and given.lang != "en" and given.notice is not None and given.verbose_note:
            given.notice(given.verbose_note)
        options = span.SpanOptions(self.beta, self.mode, **span_rules(given.lang), single=self.single,
                                   multi=self.multi, filt=self.filt)
        result = span.compare_edits(hyp, ref, options, verbose=given.verbose,
                                    sources=texts if given.verbose is not None else None)
        summary = result.summary(self.cat or 3)
        summary.update({"lang": given.lang, "sentences": len(hyp)})
        return Compared(result, span.format_results(result, self.cat), summary)

    def corpus_score(self, stats: np.ndarray) -> float:
        from peet_fast.metrics.span import f_score

        tp, fp, fn = (int(x) for x in _chosen(stats).sum(axis=0))
        return f_score(tp, fp, fn, self.beta)[2]

    def corpus_value(self, stats: np.ndarray) -> float:
        """F_beta of the summed counts, unrounded (corpus_score rounds it as errant_compare prints it)."""
        from peet_fast.metrics.span import prf

        tp, fp, fn = (int(x) for x in _chosen(stats).sum(axis=0))
        return prf(tp, fp, fn, self.beta)[2]

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        """Each sentence's unrounded F_beta of the pair best for it alone (gec-metrics' sentence-level ERRANT);
        statistics of the chosen pair only (three columns) score that pair."""
        from peet_fast.metrics.span import prf

        st = np.asarray(stats, dtype=np.float64)
        alone = st.reshape(-1, 3) if st.ndim == 2 and st.shape[1] == 3 else st.reshape(-1, 6)[:, 3:]
        return np.array([prf(int(tp), int(fp), int(fn), self.beta)[2] for tp, fp, fn in alone.tolist()],
                        dtype=np.float64)

    def bootstrap(self, stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return self.bootstrap_systems([stats], idx)[:, 0]

    def bootstrap_systems(self, stats: Sequence[np.ndarray], idx: np.ndarray) -> np.ndarray:
        """Each resample's summed counts (one matrix product per system; integer sums are exact in float64), then
        the F of corpus_score."""
        from peet_fast.metrics.span import f_score
        from peet_fast.metrics.stats import resample_counts

        k = idx.shape[0]
        out = np.empty((k, len(stats)), dtype=np.float64)
        if not len(stats):
            return out
        counts = resample_counts(idx, len(stats[0]))
        for s, st in enumerate(stats):
            sums = counts @ _chosen(st)
            out[:, s] = [f_score(int(tp), int(fp), int(fn), self.beta)[2] for tp, fp, fn in sums]
        return out


def _reference_sentences(data: EvalSet) -> list[dict]:
    """The references' edits per sentence, extracted as `m2` writes them (Errant.reference_sentences)."""
    from peet_fast.metrics.inputs import sentences_from_parallel

    if data.sources is None:
        raise ValueError("the errant metric needs the source sentences (EvalSet.sources)")
    n = len(data.sources)
    per_sentence = [[r[i] for r in data.references] for i in range(n)]
    return sentences_from_parallel(data.annotator(), list(data.sources), [[] for _ in range(n)], per_sentence)[1]


def _chosen(stats: np.ndarray) -> np.ndarray:
    """The chosen pairs' (TP, FP, FN) columns of errant statistics: (n, 3) float64."""
    a = np.asarray(stats, dtype=np.float64)
    return a[:, :3] if a.ndim == 2 else a.reshape(-1, 3)
