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
PEET_NAME = "peet"          # the metric whose figures RankedSystem.peet, ci_low, ... and Ranking.seconds show


# --- the ranking ---------------------------------------------------------------------------------------------------

class MetricScore(NamedTuple):
    """One system's figures for one metric: the corpus score, its 95 % bootstrap interval, the paired p-value
    against the next system in the ranking (None for the last; NaN interval and None for the baseline when it is
    not ranked), and the metric's other figures of the system (Metric.system_figures; PEET: words,
    seconds_per_word, mean_seconds_per_word)."""
    score: float
    ci_low: float
    ci_high: float
    p_next: float | None
    figures: Mapping = {}


@dataclass
class RankedSystem:
    """A ranked system: its name, file, sentences, human score and its figures by metric (`metrics`: every ranked
    metric's MetricScore, and the baseline's, metrics.base.BASELINE, always computed). The other attributes are
    views of `metrics`: peet, ci_low, ci_high, p_next (PEET's, NaN/None without it), wer (the baseline's score),
    words, seconds_per_word and mean_seconds_per_word (PEET's figures)."""
    name: str
    file: str
    sentences: int
    human: float | None
    metrics: dict = field(default_factory=dict)     # metric name -> MetricScore

    def _figure(self, field_: str, default=float("nan")):
        got = self.metrics.get(PEET_NAME)
        if got is None:
            return default
        return getattr(got, field_) if field_ in MetricScore._fields else got.figures.get(field_, default)

    peet = property(lambda self: self._figure("score"))
    ci_low = property(lambda self: self._figure("ci_low"))
    ci_high = property(lambda self: self._figure("ci_high"))
    p_next = property(lambda self: self._figure("p_next", None))
    words = property(lambda self: self._figure("words", 0))
    seconds_per_word = property(lambda self: self._figure("seconds_per_word"))
    mean_seconds_per_word = property(lambda self: self._figure("mean_seconds_per_word"))

    @property
    def wer(self) -> float:
        return self.metrics[BASELINE].score


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
    signature: str = ""                                              # how to reproduce its figures (Metric.signature)
    arrays: dict = field(repr=False, default_factory=dict)           # Metric.sentence_arrays, (S, n) each, rank order

    @classmethod
    def of(cls, metric: Metric) -> "MetricInfo":
        return cls(metric.name, metric.title or metric.name, metric.describe(), metric.higher_is_better, metric.fmt,
                   metric=metric)

    @property
    def shown_figures(self) -> dict:
        """The figures a ranking table shows beside its score (Metric.shown_figures): figure -> (header, meaning)."""
        return {} if self.metric is None else type(self.metric).shown_figures

    def breakdown(self, rank: int) -> dict | None:
        """Per-category figures (Metric.breakdown) of the system at this rank, or None."""
        return None if self.metric is None else self.metric.breakdown(self.stats[rank])


@dataclass
class Ranking:
    """The result of `rank_systems`, systems in rank order; per-sentence arrays are in that order too. Everything
    per metric is in `metrics` (name -> MetricInfo, the ranked metrics, the first gave the order) and `baseline`
    (the baseline's, always computed); seconds, features, wer and boot are views of them."""
    systems: list[RankedSystem]
    resamples: int
    seed: int
    correlation: dict | None             # {"systems": k, "peet": {"spearman", "pearson"}, "wer": {...}, <metric>...}
    metrics: dict = field(default_factory=dict)          # name -> MetricInfo, the ranked metrics (first: the order)
    baseline: MetricInfo | None = field(repr=False, default=None)   # metrics.base.BASELINE's (stats: rank order)
    references: int = 0                  # reference sets (a gold M2: one per annotator)
    gold_path: str | None = None         # the gold M2 they came from, if one

    @property
    def metric_names(self) -> list[str]:
        return list(self.metrics)

    @property
    def own_figures(self) -> bool:
        """Ranked by one metric that has per-system figures besides its score (Metric.system_figures: PEET's
        per-word ones): rank's and report's table shows them and the baseline's score beside it (their usual
        table), without direction marks."""
        if len(self.metrics) != 1 or not self.systems:
            return False
        return bool(self.systems[0].metrics[next(iter(self.metrics))].figures)

    def _arrays(self) -> dict:
        """Every ranked metric's per-sentence arrays (Metric.sentence_arrays), one dict."""
        out: dict = {}
        for info in self.metrics.values():
            out.update(info.arrays)
        return out

    @property
    def seconds(self) -> np.ndarray | None:
        """(S, n) predicted seconds per sentence (PEET's), None without the peet metric."""
        return self._arrays().get("seconds")

    @property
    def features(self) -> dict[str, np.ndarray]:
        """feature -> (S, n) value for the reference giving the minimum (PEET's); empty without it."""
        return {k: v for k, v in self._arrays().items() if k != "seconds"}

    @property
    def wer(self) -> np.ndarray:
        """(S, n) sentence WER (the baseline's sentence scores)."""
        return np.stack([self.baseline.metric.sentence_scores(st) for st in self.baseline.stats])

    @property
    def boot(self) -> np.ndarray | None:
        """(B, S) bootstrap means of PEET, None without it."""
        info = self.metrics.get(PEET_NAME)
        return None if info is None else info.boot

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
                         "metrics": {k: self._metric_entry(k, r, s.metrics[k]) for k in self.metrics}}
                        for r, s in enumerate(self.systems)],
            "correlation": _json_safe(self.correlation),
        }


    def _metric_entry(self, name: str, rank: int, score: "MetricScore") -> dict:
        """A system's figures for one metric in the summary, with its per-category "breakdown" where the metric has
        one (m2: recall per gold error type; errant: per type as compare -cat 3)."""
        entry = _json_safe({k: v for k, v in score._asdict().items() if k != "figures"})
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
    if BASELINE not in stats:            # always computed, timed apart from the metrics asked for
        baseline = get_metric(BASELINE)
        phase(baseline)
        stats[BASELINE] = baseline.system_stats(hyps, data)
        spent[BASELINE] = time.perf_counter() - t0
    figures = {m.name: [m.system_figures(st, data) for st in stats[m.name]] for m in objs}
    arrays = {m.name: m.sentence_arrays(stats[m.name], data) for m in objs}
    phase(None)
    t0 = time.perf_counter()
    out = assemble_metrics(list(zip(names, hyp_files)), objs, stats, opts, figures, arrays)
    out.references, out.gold_path = len(refs), data.gold_path
    for m in objs:
        out.metrics[m.name].signature = m.signature(data)
    if opts.timings is not None:
        opts.timings.update(spent, bootstrap=time.perf_counter() - t0)
    return out


def assemble_metrics(systems: Sequence[tuple[str, str]], metrics: Sequence[Metric],
                     stats: Mapping[str, Sequence[np.ndarray]], options: RankOptions,
                     figures: Mapping[str, Sequence[Mapping]] | None = None,
                     arrays: Mapping[str, Mapping[str, np.ndarray]] | None = None) -> Ranking:
    """The Ranking from the systems ((name, file), input order), each metric's per-system sentence statistics
    (input order; the baseline's, metrics.base.BASELINE, among them whether ranked or not), each metric's other
    figures per system (Metric.system_figures, input order) and per-sentence arrays (Metric.sentence_arrays,
    (S, n) each, input order). The systems are ranked by the first metric (lower or higher first as it says; ties
    by name); options: resamples, seed and human scores."""
    resamples, seed, human = options.resamples, options.seed, options.human
    figures = figures if figures is not None else {}
    arrays = arrays if arrays is not None else {}
    corpus = {m.name: [m.corpus_score(st) for st in stats[m.name]] for m in metrics}
    first = metrics[0]
    sign = -1.0 if first.higher_is_better else 1.0
    key = [(sign * corpus[first.name][k], nm) for k, (nm, _) in enumerate(systems)]
    pos = sorted(range(len(systems)), key=lambda k: key[k])
    S = len(systems)
    base_metric = next((m for m in metrics if m.name == BASELINE), None) or get_metric(BASELINE)
    baseline = MetricInfo.of(base_metric)
    baseline.stats = [stats[BASELINE][k] for k in pos]
    n = len(baseline.stats[0]) if S else 0
    infos: dict[str, MetricInfo] = {}
    for m in metrics:
        info = MetricInfo.of(m)
        info.stats = [stats[m.name][k] for k in pos]
        info.boot = np.empty((resamples, S), dtype=np.float64)
        info.arrays = {k: np.ascontiguousarray(np.asarray(v)[pos]) for k, v in arrays.get(m.name, {}).items()}
        infos[m.name] = info
    for lo, hi, idx in bootstrap_blocks(n, resamples, seed):
        for m in metrics:
            infos[m.name].boot[lo:hi] = m.bootstrap_systems(infos[m.name].stats, idx)
    rows: list[dict[str, MetricScore]] = [{} for _ in pos]
    for m in metrics:
        boot = infos[m.name].boot
        low, high = percentile_ci(boot)
        sign = -1.0 if m.higher_is_better else 1.0
        per = figures.get(m.name)
        for r, k in enumerate(pos):
            p = paired_p_value(sign * boot[:, r], sign * boot[:, r + 1]) if r + 1 < S else None
            rows[r][m.name] = MetricScore(float(corpus[m.name][k]), float(low[r]), float(high[r]), p,
                                          dict(per[k]) if per is not None else {})
    if BASELINE not in infos:
        for r, st in enumerate(baseline.stats):
            rows[r][BASELINE] = MetricScore(math.fsum(base_metric.sentence_scores(st).tolist()) / n,
                                            float("nan"), float("nan"), None)
    ranked = [RankedSystem(systems[k][0], systems[k][1], n, None if human is None else human.get(systems[k][0]),
                           rows[r]) for r, k in enumerate(pos)]
    corr = None
    if human is not None:
        have = [s for s in ranked if s.human is not None]
        values: dict[str, list[float]] = {}
        if PEET_NAME in infos:           # PEET first, then the baseline, then the other ranked metrics
            values[PEET_NAME] = [s.metrics[PEET_NAME].score for s in have]
        values[BASELINE] = [s.metrics[BASELINE].score for s in have]
        for m in metrics:
            if m.name not in values:
                values[m.name] = [s.metrics[m.name].score for s in have]
        corr = correlations(values, [s.human for s in have])
    return Ranking(ranked, resamples, seed, corr, infos, baseline)
