"""System ranking with uncertainty (`peet-fast rank`): PEET per system with bootstrap confidence intervals and paired
p-values, WER as the technical-effort baseline, and correlation with human system scores; any metric of the registry
(peet_fast.metrics.base: `--metric peet wer errant ...`) the same way, side by side.

The statistics are peet_fast.metrics.stats' (one paired bootstrap for all systems, 95 % percentile CIs, the paired
p-value of each system against the next one in the ranking, Pearson's r and Spearman's rho) and WER is
peet_fast.metrics.wer's; their definitions are documented there and in docs/commands.md (`rank`). Correlations
with human scores (higher is better) are computed over the systems that have a human score. PEET and WER are
lower-is-better, so a good metric correlates *negatively*; the raw sign is reported.

Several metrics: the systems are ranked by the first; every metric's per-sentence statistics are resampled with the
same bootstrap indices (one stream for the seed, as PEET alone always was), each metric's 95 % interval comes from its
own corpus scores of the resamples (Metric.bootstrap_systems), and its p(next) compares each system with the next one
in the ranking in that metric's direction (higher-is-better metrics: not strictly higher). WER (the baseline) is
always computed; PEET only when asked for.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Mapping, NamedTuple, Sequence

import numpy as np

from peet_fast.evaluation.inputs import MIN_CORRELATION_SYSTEMS, HumanScores, read_human_csv, read_human_scores  # noqa: F401
from peet_fast.metrics.base import BASELINE, EvalSet, Metric, get_metric, metric_from_spec
from peet_fast.metrics.stats import CI_LEVEL, bootstrap_blocks, correlations, paired_p_value, percentile_ci

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0


# --- the ranking ---------------------------------------------------------------------------------------------------

@dataclass
class RankedSystem:
    name: str
    file: str
    peet: float
    ci_low: float
    ci_high: float
    wer: float
    sentences: int
    p_next: float | None        # paired p-value against the next system in the ranking (None for the last)
    human: float | None
    words: int = 0                                  # total MO words
    seconds_per_word: float = float("nan")          # total seconds / total MO words (peet_fast.peet.scoring)
    mean_seconds_per_word: float = float("nan")     # mean over sentences with MO words of seconds / MO words
    metrics: dict = field(default_factory=dict)     # metric name -> MetricScore (every ranked metric)


class MetricScore(NamedTuple):
    """One system's figures for one metric: the corpus score, its 95 % bootstrap interval, the paired p-value
    against the next system in the ranking (None for the last)."""
    score: float
    ci_low: float
    ci_high: float
    p_next: float | None


@dataclass
class MetricInfo:
    """A ranked metric: what rank, report and the summary need of it; stats and boot in rank order."""
    name: str
    title: str
    label: str
    higher_is_better: bool
    fmt: str
    stats: list = field(repr=False, default_factory=list)          # per system: (n, ...) sentence statistics
    boot: np.ndarray = field(repr=False, default=None)               # (B, S) corpus scores of the resamples
    metric: Metric | None = field(repr=False, default=None)          # the instance that computed stats
    headline: bool = False                                           # Metric.headline: the ranking's own figures
    signature: str = ""                                              # how to reproduce its figures (Metric.signature)

    @classmethod
    def of(cls, metric: Metric) -> "MetricInfo":
        return cls(metric.name, metric.title or metric.name, metric.describe(), metric.higher_is_better, metric.fmt,
                   metric=metric, headline=metric.headline)

    def breakdown(self, rank: int) -> dict | None:
        """Per-category figures (Metric.breakdown) of the system at this rank, or None."""
        return None if self.metric is None else self.metric.breakdown(self.stats[rank])


@dataclass
class Ranking:
    """The result of `rank_systems`, systems in rank order; per-sentence arrays are in that order too."""
    systems: list[RankedSystem]
    resamples: int
    seed: int
    seconds: np.ndarray                  # (S, n) predicted seconds per sentence (None without the peet metric)
    wer: np.ndarray                      # (S, n) sentence WER
    features: dict[str, np.ndarray]      # feature -> (S, n) value for the reference giving the minimum
    correlation: dict | None             # {"systems": k, "peet": {"spearman", "pearson"}, "wer": {...}, <metric>...}
    boot: np.ndarray = field(repr=False, default=None)   # (B, S) bootstrap means of PEET
    metrics: dict = field(default_factory=dict)          # name -> MetricInfo, the ranked metrics (first: the order)
    references: int = 0                  # reference sets (a gold M2: one per annotator)
    gold_path: str | None = None         # the gold M2 they came from, if one

    @property
    def metric_names(self) -> list[str]:
        return list(self.metrics)

    @property
    def headline_only(self) -> bool:
        """Ranked by one metric, the headline one (PEET alone: rank's and report's own layout)."""
        return len(self.metrics) == 1 and next(iter(self.metrics.values())).headline

    def labels(self) -> dict[str, tuple[str, str]]:
        """(title, label) of every metric in the correlations: the ranked ones and the baseline (always computed)."""
        base = get_metric(BASELINE)
        out = {BASELINE: (base.title or base.name, base.describe())}
        out.update({name: (m.title, m.label) for name, m in self.metrics.items()})
        return out

    def summary(self) -> dict:
        """The `--summary` JSON body (without model/references, which the caller adds)."""
        return {
            "bootstrap": {"resamples": self.resamples, "seed": self.seed, "ci": CI_LEVEL,
                          "p_value": "share of resamples where the higher-ranked system is not strictly better "
                                     "than the next one"},
            "metrics": [{"name": m.name, "title": m.title, "higher_is_better": m.higher_is_better,
                         "config": _json_safe(m.metric.settings.values()) if m.metric is not None else {},
                         "signature": m.signature} for m in self.metrics.values()],
            "systems": [{"name": s.name, "file": s.file, "peet": _json_safe(s.peet), "ci_low": _json_safe(s.ci_low),
                         "ci_high": _json_safe(s.ci_high), "wer": s.wer, "sentences": s.sentences,
                         "p_next": s.p_next, "human": s.human, "words": s.words,
                         "seconds_per_word": _json_safe(s.seconds_per_word),
                         "mean_seconds_per_word": _json_safe(s.mean_seconds_per_word),
                         "metrics": {k: self._metric_entry(k, r, v) for k, v in s.metrics.items()}}
                        for r, s in enumerate(self.systems)],
            "correlation": _json_safe(self.correlation),
        }


    def _metric_entry(self, name: str, rank: int, score: "MetricScore") -> dict:
        """A system's figures for one metric in the summary, with its per-category "breakdown" where the metric has
        one (m2: recall per gold error type; errant: per type as compare -cat 3)."""
        entry = _json_safe(score._asdict())
        info = self.metrics.get(name)
        found = info.breakdown(rank) if info is not None else None
        if found is not None:
            entry["breakdown"] = _json_safe(found)
        return entry


def _json_safe(x):
    if isinstance(x, dict):
        return {k: _json_safe(v) for k, v in x.items()}
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def metric_objects(metrics: Sequence[str | Metric]) -> list[Metric]:
    """Metric instances for names or specs (NAME:FIELD=VALUE:..., metric_from_spec) or instances; ValueError for an
    unknown name or a repeated one."""
    out: list[Metric] = []
    for m in metrics:
        obj = metric_from_spec(m) if isinstance(m, str) else m
        obj = get_metric(obj) if isinstance(obj, str) else obj
        if any(o.name == obj.name for o in out):
            raise ValueError(f"metric {obj.name!r} given twice")
        out.append(obj)
    if not out:
        raise ValueError("no metric given")
    return out


class MetricInputsError(ValueError):
    """A metric asked for without what it needs (the sources, a gold M2)."""


def check_metric_inputs(metrics: Sequence[Metric], data: EvalSet, src_hint: str = "sources",
                        gold_hint: str = "a gold M2") -> None:
    """Refuse (MetricInputsError, a ValueError naming the metric) a metric whose needs the EvalSet does not meet."""
    for m in metrics:
        if m.needs_sources and data.sources is None:
            raise MetricInputsError(f"the {m.name} metric needs the source sentences: give {src_hint}")
        if m.needs_gold and data.gold is None:
            raise MetricInputsError(f"the {m.name} metric needs {gold_hint}")


@dataclass
class RankOptions:
    """How rank_systems ranks, besides the test set and the metrics: resamples and seed of the paired bootstrap (the
    summary's "bootstrap" entry), human system scores ({system: score}, for the correlations), the systems' names (one
    per file; default: after their files), timings (a dict receiving the seconds of each phase: "score" for PEET,
    each other metric by name, "bootstrap") and hints (how the caller names the sources and the gold M2 in a
    metric's refusal: check_metric_inputs)."""
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    human: Mapping[str, float] | None = None
    names: Sequence[str] | None = None
    timings: dict | None = None
    hints: Sequence[str] = ()
    on_phase: Callable | None = None     # on_phase(metric) before each metric's scoring, on_phase(None) before the bootstrap


def rank_systems(data: EvalSet, hyp_files: Sequence[str], hyps: Sequence[Sequence[str]],
                 metrics: Sequence[str | Metric] = ("peet",), options: RankOptions | None = None) -> Ranking:
    """Score every system with every metric (names of the registry or Metric instances; the first orders the
    ranking), then bootstrap CIs, paired p-values of adjacent systems, WER and (with human scores) correlations.
    data: the test set (references, sources, gold M2; data.annotator a peet_fast.languages.Annotators, called only
    when a metric needs the annotator; data.options: "model" the PEET model, "on_chunk" PEET's progress, "lang").
    PEET takes the `score` path: one annotation batch per chunk for all systems x references."""
    import time

    from peet_fast.formats.systems import system_names
    from peet_fast.peet.scoring import SystemScore

    opts = options if options is not None else RankOptions()
    objs = metric_objects(metrics)
    refs = data.references
    check_metric_inputs(objs, data, *opts.hints)
    names = opts.names if opts.names is not None else system_names(hyp_files)
    stats: dict[str, list[np.ndarray]] = {}
    spent: dict[str, float] = {}
    phase = opts.on_phase if opts.on_phase is not None else (lambda metric: None)
    for m in objs:
        phase(m)
        t0 = time.perf_counter()
        with data.remembered():          # each (source, hypothesis) pair annotated once, whichever metrics need it
            stats[m.name] = m.system_stats(hyps, data)
        spent[m.phase or m.name] = time.perf_counter() - t0
    t0 = time.perf_counter()
    baseline = next((m for m in objs if m.name == BASELINE), None)
    if baseline is None:                 # always computed, timed apart from the metrics asked for
        baseline = get_metric(BASELINE)
        phase(baseline)
        base_stats = baseline.system_stats(hyps, data)
        spent[BASELINE] = time.perf_counter() - t0
    else:
        base_stats = stats[BASELINE]
    wer = np.stack([baseline.sentence_scores(st) for st in base_stats])
    n = len(refs[0]) if refs else len(hyps[0])
    head = next((m for m in objs if m.headline), None)
    arrays = head.sentence_arrays(stats[head.name], data) if head is not None else {}
    seconds = arrays.pop("seconds", None)
    scores = [SystemScore(names[s], f, float("nan"), n) for s, f in enumerate(hyp_files)]
    if head is not None:
        scores = [SystemScore(names[s], f, sentences=n, **head.system_figures(stats[head.name][s], data))
                  for s, f in enumerate(hyp_files)]
    phase(None)
    t0 = time.perf_counter()
    out = assemble_metrics(scores, objs, stats, (seconds, wer, arrays), opts)
    out.references, out.gold_path = len(refs), data.gold_path
    for m in objs:
        out.metrics[m.name].signature = m.signature(data)
    if opts.timings is not None:
        opts.timings.update(spent, bootstrap=time.perf_counter() - t0)
    return out


def assemble(scores, seconds: np.ndarray, wer: np.ndarray, features: Mapping[str, np.ndarray], resamples: int,
             seed: int, human: Mapping[str, float] | None, order: Callable) -> Ranking:
    """The PEET Ranking from per-system scores (input order) and per-sentence arrays (same order); `order` sorts
    scores into rank order (scoring.rank)."""
    from peet_fast.peet.metric import PEET

    ranked = order(scores)
    pos = [next(k for k, s in enumerate(scores) if s is r) for r in ranked]
    names = list(features)
    stats = [np.concatenate([np.asarray(seconds[s], dtype=np.float64)[:, None]]
                            + [np.asarray(features[k][s], dtype=np.float64)[:, None] for k in names], axis=1)
             for s in range(len(scores))]
    return assemble_metrics(scores, [PEET()], {PEET.name: stats}, (seconds, wer, features),
                            RankOptions(resamples, seed, human), pos=pos)


def assemble_metrics(scores, metrics: Sequence[Metric], stats: Mapping[str, Sequence[np.ndarray]], arrays: tuple,
                     options: RankOptions, pos: Sequence[int] | None = None) -> Ranking:
    """The Ranking from per-system PEET scores (scoring.SystemScore, input order; peet NaN without PEET), each
    metric's per-system sentence statistics (input order) and the per-sentence arrays (seconds or None, wer,
    features; same order). The systems are ranked by the first metric (lower or higher first as it says; ties by
    name) unless `pos` gives the order; options: resamples, seed and human scores."""
    seconds, wer, features = arrays
    resamples, seed, human = options.resamples, options.seed, options.human
    corpus = {m.name: [m.corpus_score(st) for st in stats[m.name]] for m in metrics}
    if pos is None:
        first = metrics[0]
        sign = -1.0 if first.higher_is_better else 1.0
        key = [(sign * corpus[first.name][k], s.name) for k, s in enumerate(scores)]
        pos = sorted(range(len(scores)), key=lambda k: key[k])
    S = len(scores)
    n = wer.shape[1]
    wer = wer[pos]
    if seconds is not None:
        seconds = np.ascontiguousarray(np.asarray(seconds)[pos])
    features = {k: v[pos] for k, v in features.items()}
    infos: dict[str, MetricInfo] = {}
    for m in metrics:
        info = MetricInfo.of(m)
        info.stats = [stats[m.name][k] for k in pos]
        info.boot = np.empty((resamples, S), dtype=np.float64)
        infos[m.name] = info
    for lo, hi, idx in bootstrap_blocks(n, resamples, seed):
        for m in metrics:
            infos[m.name].boot[lo:hi] = m.bootstrap_systems(infos[m.name].stats, idx)
    head = next((m for m in metrics if m.headline), None)
    figures: dict[str, list[MetricScore]] = {}
    for m in metrics:
        boot = infos[m.name].boot
        low, high = percentile_ci(boot)
        sign = -1.0 if m.higher_is_better else 1.0
        rows = []
        for r, k in enumerate(pos):
            p = paired_p_value(sign * boot[:, r], sign * boot[:, r + 1]) if r + 1 < S else None
            rows.append(MetricScore(float(corpus[m.name][k]), float(low[r]), float(high[r]), p))
        figures[m.name] = rows
    systems = []
    for r, k in enumerate(pos):
        s = scores[k]
        pe = figures.get(head.name) if head is not None else None
        ci_low, ci_high, p = (pe[r].ci_low, pe[r].ci_high, pe[r].p_next) if pe else (float("nan"), float("nan"),
                                                                                   None)
        systems.append(RankedSystem(s.name, s.file, s.peet, ci_low, ci_high, math.fsum(wer[r].tolist()) / n, n, p,
                                    None if human is None else human.get(s.name), s.words, s.seconds_per_word,
                                    s.mean_seconds_per_word, {name: rows[r] for name, rows in figures.items()}))
    corr = None
    if human is not None:
        have = [s for s in systems if s.human is not None]
        values: dict[str, list[float]] = {}
        if head is not None:
            values[head.name] = [s.peet for s in have]
        values[BASELINE] = [s.wer for s in have]
        for m in metrics:
            if m.name not in values:
                values[m.name] = [s.metrics[m.name].score for s in have]
        corr = correlations(values, [s.human for s in have])
    boot = infos[head.name].boot if head is not None else None
    return Ranking(systems, resamples, seed, seconds, wer, features, corr, boot, infos)
