"""CLEME and CLEME2.0 as metrics of the registry: names "cleme" and "cleme2" (higher is better; English and Chinese).

Both score a hypothesis's chunks against the references' as THUKElab/CLEME does (peet_fast.metrics.cleme: the chunk
partition, dependent/independent counting, length weighting; peet_fast.metrics.cleme2: CLEME2.0's HEUO scorer and
SentCLEME). Edits: the hypothesis's are extracted by the language's annotator (EvalSet.annotator; the M2 that
`peet-fast m2` writes, read as CLEME reads an M2: cleme.annotation_target); the references' are the gold M2's when
the EvalSet has one (its blocks as CLEME's M2 reader builds them: cleme.cleme_targets), else extracted from the
reference texts the same way. So ``cleme`` on an EvalSet equals ``compare --metric cleme`` on the same files
(unchanged), and both equal CLEME on the M2 files of those edits.

- ``cleme`` (options mode "dependent"/"independent", weighted False/True, beta 0.5): the corpus score is CLEME's
  F_beta (rounded to 4 decimals, as CLEME prints it) of the counts of the reference chosen per sentence by the
  running corpus F (peet_fast.metrics.cleme); a sentence's score is SentCLEME's F of that sentence (cleme2's
  prf_sentence_score), weighted, when weighted, as CLEME's code weighs it (the corpus length weigher).
- ``cleme2`` (options mode, weighted, factors CORPUS_FACTORS, sentence_factors SENTENCE_FACTORS): the corpus score
  is HEUO's comprehensive score of the counts chosen per sentence by the running com; a sentence's score is the com
  of its best reference with the sentence factors; weighted: CLEME's corpus length weigher at both levels.

Per-sentence statistics: for ``cleme`` (n, 4 + 4R): the chosen (TP, FP, FN, TN) at the corpus level (chosen over the
whole corpus in order, as CLEME chooses; a resample sums them as chosen, the choice is not redone), then per kept
reference its sentence-level (TP, FP, FN, TN) (NaN past the sentence's kept references; R = the most references of a
sentence); ``cleme2`` the same with the six columns of cleme2.COLUMNS. Departures: a blank source line is scored (its
chunks) where CLEME refuses the whole file; a beta other than 0.5 is used at the sentence level too (CLEME's
sentence level always uses 0.5). How both were checked: tests/metrics/test_cleme2.py, tests/fixtures/cleme."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from peet_fast.io import InputError
from peet_fast.metrics import cleme2 as C2
from peet_fast.metrics.base import EvalSet, Metric, register
from peet_fast.metrics.config import Config, option
from peet_fast.metrics.cleme import CSentence, annotation_target, cleme_targets


def _annotated_targets(annotator, sources: Sequence[str], targets: Sequence[str]) -> list:
    """(source tokens, Target) of each (source, target) pair, one annotation batch."""
    return [annotation_target(a) for a in annotator.annotate_pairs(list(sources), list(targets))]




def _totals(stats: np.ndarray, k: int) -> list[float]:
    """The first k columns summed in sentence order, one addition at a time (as CLEME adds them)."""
    st = np.asarray(stats, dtype=np.float64)[:, :k]
    return np.cumsum(st, axis=0)[-1].tolist() if len(st) else [0.0] * k


class _ChunkMetric(Metric):
    higher_is_better = True
    needs_sources = True
    needs_annotator = True
    langs = ("en", "zh")                    # languages whose annotator it takes (compare --lang)
    columns: tuple = ()

    def __init__(self, mode: str = "dependent", weighted: bool = False, merge_distance: int = 0):
        if mode not in ("dependent", "independent"):
            raise InputError("mode", f"must be 'dependent' or 'independent', not {mode!r}")
        self.mode, self.weighted, self.merge_distance = mode, bool(weighted), int(merge_distance)

    def references(self, data: EvalSet) -> list:
        """Per sentence (source tokens, [reference Target, ...]), kept for the next system on the same EvalSet."""
        return self.prepared(data, self._reference_targets)

    def _reference_targets(self, data: EvalSet) -> list:
        if data.sources is None:
            raise InputError(self.name, f"{self.name} needs the source sentences")
        if data.gold is not None:
            path = data.gold_path or "<gold>"
            return [cleme_targets(b, path) for b in data.gold]
        if not data.references:
            raise InputError(self.name, f"{self.name} needs at least one reference")
        n = len(data.sources)
        flat = _annotated_targets(data.annotator(), [s for _ in data.references for s in data.sources],
                                  [t for r in data.references for t in r])
        return [(flat[i][0], [flat[r * n + i][1] for r in range(len(data.references))]) for i in range(n)]

    def sentences(self, hyps: Sequence[Sequence[str]], data: EvalSet) -> list[list[CSentence]]:
        """Each system's CLEME sentences (all systems' hypotheses in one annotation batch)."""
        refs = self.references(data)
        n = len(refs)
        for h in hyps:
            if len(h) != n:
                raise InputError(self.name, f"{len(h)} hypotheses for {n} sentences")
        if data.annotator is None:
            raise ValueError(f"the {self.name} metric needs an annotator (EvalSet.annotator)")
        # cleme then cleme2 on the same systems: annotated once (the EvalSet's memo, any language's annotator)
        annotator = data.annotator()
        table = data.memo.table(_annotated_targets)
        key = (id(annotator), tuple(data.sources), tuple(tuple(h) for h in hyps))
        flat = table.get(key)
        if flat is None or flat[0] is not annotator:
            with data.remembered():
                flat = (annotator, _annotated_targets(annotator, [s for _ in hyps for s in data.sources],
                                                      [t for h in hyps for t in h]))
            data.memo.put(table, key, flat)
        flat = flat[1]
        out = []
        for s in range(len(hyps)):
            sents = []
            for i, (src, ref_targets) in enumerate(refs):
                h_src, target = flat[s * n + i]
                if h_src != src:
                    raise InputError(self.name, f"sentence {i + 1}: the hypothesis's source tokens differ from the "
                                                "references' (give the gold M2's own S lines as the sources)")
                sents.append(CSentence(src, target, tuple(ref_targets)))
            out.append(sents)
        return out

    def sentence_stats(self, hyp: Sequence[str], data: EvalSet) -> np.ndarray:
        return self.system_stats([hyp], data)[0]

    def system_stats(self, hyps: Sequence[Sequence[str]], data: EvalSet) -> list[np.ndarray]:
        return [self.stats_of(sents) for sents in self.sentences(hyps, data)]

    def stats_of(self, sentences: Sequence[CSentence]) -> np.ndarray:
        """The per-sentence statistics of CLEME sentences (see the module docstring): the chunk partition, labels
        and counts in C (ext/cleme.pyx), exactly what stats_of_python computes (its reference)."""
        from peet_fast._ext.cleme import Unsupported, label_counts, partition_labels

        k = len(self.columns)
        try:
            n_chunks, n_refs, lengths, labels, bias = partition_labels(sentences, self.merge_distance,
                                                                       self.mode == "dependent")
        except Unsupported:
            return self.stats_of_python(sentences)
        corpus_w, sentence_w = self.weighers()
        corpus = label_counts(n_chunks, n_refs, lengths, labels, corpus_w, bias)[:, :k]
        sentence = corpus if sentence_w is corpus_w else label_counts(n_chunks, n_refs, lengths, labels,
                                                                      sentence_w, bias)[:, :k]
        n = len(n_refs)
        R = int(n_refs.max()) if n else 1
        starts = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(n_refs, out=starts[1:])
        rows = corpus.tolist()
        candidates = [rows[starts[i]:starts[i + 1]] for i in range(n)]
        block = np.full((n, R, k), np.nan, dtype=np.float64)
        sent_of = np.repeat(np.arange(n), n_refs)
        block[sent_of, np.arange(len(sent_of)) - starts[sent_of]] = sentence
        chosen = np.asarray(self.corpus_choice(candidates), dtype=np.int64)
        first = corpus[starts[:-1] + chosen] if n else np.zeros((0, k))
        return np.concatenate([first, block.reshape(n, R * k)], axis=1)

    def stats_of_python(self, sentences: Sequence[CSentence]) -> np.ndarray:
        """stats_of in Python (peet_fast.metrics.cleme's chunk partition, cleme2's labels and counts): the
        reference the compiled stats_of is tested against, and its fallback outside the kernel's domain."""
        k = len(self.columns)
        parts, bias = C2.partitions(sentences, self.merge_distance)
        R = max((len(p) - 1 for p in parts), default=1)
        out = np.full((len(parts), k + k * R), np.nan, dtype=np.float64)
        corpus_w, sentence_w = self.weighers()
        corpus = []
        for i, chunks in enumerate(parts):
            rows = C2.labels(chunks, self.mode)
            corpus.append([C2.counts(row, corpus_w, bias)[:k] for row in rows])
            for r, row in enumerate(rows):
                out[i, k + k * r:k + k * (r + 1)] = C2.counts(row, sentence_w, bias)[:k]
        for i, (cands, j) in enumerate(zip(corpus, self.corpus_choice(corpus))):
            out[i, :k] = cands[j]
        return out

    def _sums(self, stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
        st = np.asarray(stats, dtype=np.float64)[:, :len(self.columns)]
        from peet_fast.metrics.stats import resample_counts

        return resample_counts(idx, len(st)) @ st

    def _candidates(self, row: np.ndarray) -> list:
        k = len(self.columns)
        cands = np.asarray(row[k:], dtype=np.float64).reshape(-1, k)
        return [c.tolist() for c in cands if not np.isnan(c).any()]


@register
class Cleme(_ChunkMetric):
    """CLEME's F_beta (THUKElab/CLEME; Ye et al. 2023)."""
    name = "cleme"
    title = "CLEME F0.5"
    label = "CLEME F0.5"
    fmt = ".4f"
    columns = C2.COLUMNS[:4]
    config = {"beta": "beta", "cleme_mode": "mode", "cleme_weighted": "weighted"}
    scores_edits = True
    compare_options = frozenset([*config, "lang", "para"])
    refusal = "CLEME scores chunks, over every edit"

    def compare(self, given) -> "Compared":
        """CLEME (merge distance 0, CLEME's default) of one hypothesis (a metrics.base.Comparison: M2 blocks, or texts
        annotated here; of ChERRANT parallel hypothesis lines the first target): the report of this instance's
        variant; the summary holds it and every variant, the language and the number of sentences."""
        from peet_fast.metrics import inputs as C
        from peet_fast.metrics.base import Compared
        from peet_fast.metrics.cleme import cleme, format_cleme

        if given.blocks is not None:
            sents = C.cleme_from_m2(*given.blocks, *given.paths)
        else:
            hyp = [h[0] for h in given.hyp] if given.para else given.hyp
            sents = C.cleme_from_parallel(given.annotator(), given.sources, hyp, given.refs)
        variants = cleme(sents, beta=self.beta)
        variant = f"{self.mode}_{'weighted' if self.weighted else 'unweighted'}"
        result = variants[variant]
        summary = {"metric": self.name, "variant": variant, **result.summary(), "merge_distance": self.merge_distance,
                   "variants": {name: r.summary() for name, r in variants.items()}, "lang": given.lang,
                   "sentences": len(sents)}
        return Compared(result, format_cleme(result, variant), summary)

    @dataclass(frozen=True)
    class Config(Config):
        mode: str = option("dependent", choices=("dependent", "independent"))
        weighted: bool = option(False)          # length-weighted counts
        beta: float = option(0.5, "the F-measure's beta", low=0)
        merge_distance: int = option(0, low=0)

    def __init__(self, mode: str = "dependent", weighted: bool = False, beta: float = 0.5, merge_distance: int = 0):
        super().__init__(mode, weighted, merge_distance)
        self.beta = float(beta)
        self.title = self.label = (f"CLEME-{'dep' if mode == 'dependent' else 'ind'}"
                                   f"{' weighted' if self.weighted else ''} F{self.beta:g}")

    def weighers(self):
        return (C2.CORPUS_WEIGHER, C2.CORPUS_WEIGHER) if self.weighted else (None, None)

    def corpus_choice(self, candidates: list) -> list[int]:
        """CLEME's PRF choice (peet_fast.metrics.cleme._corpus): the best running F rounded to 4 decimals, then
        more TP, fewer FP, fewer FN, more TN; the first on ties."""
        from peet_fast.metrics.span import prf

        total = [0, 0, 0, 0]
        chosen = []
        for cands in candidates:
            best_key, best, j_best = (-1.0, 0, 0, 0, 0), [0, 0, 0, 0], 0
            for j, c in enumerate(cands):
                f = round(prf(total[0] + c[0], total[1] + c[1], total[2] + c[2], self.beta)[2], 4)
                key = (f, c[0], -c[1], -c[2], c[3])
                if key > best_key:
                    best_key, best, j_best = key, c, j
            total = [t + x for t, x in zip(total, best)]
            chosen.append(j_best)
        return chosen

    def corpus_score(self, stats: np.ndarray) -> float:
        from peet_fast.metrics.span import prf

        tp, fp, fn = _totals(stats, 3)
        return round(prf(tp, fp, fn, self.beta)[2], 4)

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        return np.array([C2.prf_sentence_score(self._candidates(row), self.beta) for row in np.asarray(stats)],
                        dtype=np.float64)

    def bootstrap(self, stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
        sums = self._sums(stats, idx)
        tp, fp, fn = sums[:, 0], sums[:, 1], sums[:, 2]
        with np.errstate(all="ignore"):
            p = np.where(fp != 0, tp / (tp + fp), 1.0)
            r = np.where(fn != 0, tp / (tp + fn), 1.0)
            b2 = self.beta ** 2
            f = np.where(p + r != 0, ((1 + b2) * p * r) / ((b2 * p) + r), 0.0)
        return np.round(f, 4)


@register
class Cleme2(_ChunkMetric):
    """CLEME2.0's comprehensive score (THUKElab/CLEME's HEUO scorer; Ye et al. 2025)."""
    name = "cleme2"
    title = "CLEME2.0"
    label = "CLEME2.0"
    fmt = ".4f"
    columns = C2.COLUMNS
    config = {"cleme_mode": "mode", "cleme_weighted": "weighted"}
    compare_options = frozenset(config)

    @dataclass(frozen=True)
    class Config(Config):
        mode: str = option("dependent", choices=("dependent", "independent"))
        weighted: bool = option(False)
        factors: tuple = option(C2.CORPUS_FACTORS, kind="floats")             # hit, err, und, ove (corpus)
        sentence_factors: tuple = option(C2.SENTENCE_FACTORS, kind="floats")  # the same per sentence
        merge_distance: int = option(0, low=0)

    def __init__(self, mode: str = "dependent", weighted: bool = False, factors: Sequence[float] = C2.CORPUS_FACTORS,
                 sentence_factors: Sequence[float] = C2.SENTENCE_FACTORS, merge_distance: int = 0):
        super().__init__(mode, weighted, merge_distance)
        for name, f in (("factors", factors), ("sentence_factors", sentence_factors)):
            if len(f) != 4 or abs(sum(f) - 1.0) > 1e-5:
                raise InputError(name, f"four factors (hit, err, und, ove) summing to 1, not {tuple(f)!r}")
        self.factors, self.sentence_factors = tuple(map(float, factors)), tuple(map(float, sentence_factors))
        self.title = self.label = (f"CLEME2.0-{'dep' if mode == 'dependent' else 'ind'}"
                                   f"{' weighted' if self.weighted else ''}")

    def weighers(self):
        return (C2.CORPUS_WEIGHER, C2.CORPUS_WEIGHER) if self.weighted else (None, None)

    def corpus_choice(self, candidates: list) -> list[int]:
        return C2.heuo_corpus_choice(candidates, self.factors)

    def corpus_score(self, stats: np.ndarray) -> float:
        t = _totals(stats, 6)
        return C2.heuo(t[0], t[2], t[4], t[5], self.factors)[4]

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        out = []
        for row in np.asarray(stats):
            cands = self._candidates(row)
            c = cands[C2.heuo_sentence_choice(cands, self.sentence_factors)]
            out.append(C2.heuo(c[0], c[2], c[4], c[5], self.sentence_factors)[4])
        return np.array(out, dtype=np.float64)

    def bootstrap(self, stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return C2.heuo_com(self._sums(stats, idx), self.factors)
