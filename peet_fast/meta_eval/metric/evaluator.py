"""The meta-evaluation of metrics on a dataset (`peet-fast meta-eval`, ``peet_fast.meta_eval(...)``).

A metric is a registry name (peet_fast.metrics.base.get_metric), a Metric instance, or plain scores: ``{system:
score}`` (system level only) or ``{system: [one score per sentence, in .hypotheses' order]}`` (both levels; the
system score is then the aggregation of them, their mean by default). Plain scores are taken as higher-is-better.

A metric of the registry scores each (system, sentence) of the dataset once: Metric.system_stats on all the systems at
once; its system score is Metric.corpus_value of a system's statistics (the unrounded corpus figure) and its sentence
scores Metric.sentence_scores of the same statistics. **Orientation**: every figure here is computed on scores where
higher is better, so the sign of a lower-is-better metric (``higher_is_better = False``: peet's seconds, wer) is
flipped first, and a metric agreeing with the humans correlates positively whatever its direction.

Results are attribute-style dicts (:class:`Result`) keyed as the `--summary` JSON: ``corr_system(m).ew_sent.pearson``,
``corr_sentence(m).sent.accuracy``, ``window_analysis(m, 4).ts_edit[0].spearman``, ``pairwise_analysis(m).sent[0]``."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

import numpy as np

from peet_fast.io import InputError, arguments as A, plural
from peet_fast.languages import PairMemo
from peet_fast.meta_eval.metric import data as D
from peet_fast.meta_eval.metric import sentence as SL
from peet_fast.meta_eval.metric import significance as SG
from peet_fast.meta_eval.metric import system as SY
from peet_fast.meta_eval.metric.scores import checked_scores
from peet_fast.metrics.base import EvalSet, Metric, get_metric
from peet_fast.metrics.signature import meta_signature
from peet_fast.metrics.stats import resample_counts


def _annotators(annotator, options: dict):
    """The annotator's memoised factory: an Annotators as given; an annotator loaded already, handed down as one
    (Annotators.given); a callable returning the annotator, called once; None: English with these options (None
    values left out), shared by every dataset of the process (one spaCy pipeline)."""
    import functools

    from peet_fast.languages import Annotators

    if isinstance(annotator, Annotators):
        return annotator
    if annotator is None:
        return Annotators("en", {k: v for k, v in options.items() if v is not None}, shared=True)
    if callable(annotator):
        return functools.cache(annotator)
    return Annotators.given(annotator)


class Result(dict):
    """A dict whose keys are also attributes (nested dicts and lists of dicts too): r.ew_sent.pearson."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    @classmethod
    def of(cls, obj):
        if isinstance(obj, dict):
            return cls({k: cls.of(v) for k, v in obj.items()})
        if isinstance(obj, list):
            return [cls.of(v) for v in obj]
        return obj


@dataclass
class Scored:
    """One metric on the dataset: name, sign (+1, or -1 for a lower-is-better metric), system (system -> oriented
    system score, aggregation "corpus"), sentence ((S, n) oriented sentence scores, None for plain system scores),
    stats (system -> the metric's statistics; None for plain scores) and the Metric (None for plain scores)."""
    name: str
    sign: float
    system: dict
    sentence: np.ndarray | None
    stats: dict | None = field(default=None, repr=False)
    metric: Metric | None = None


class MetaEval:
    """A dataset ready for meta-evaluation (meta_eval.data.Dataset) with the metrics scored on it so far."""

    def __init__(self, dataset: D.Dataset, annotator=None, model=None, spacy_model: str | None = None,
                 batch_size: int = 256, pool: "MetaEval | None" = None):
        if pool is not None and (pool.dataset.lines != dataset.lines or
                                 any(s not in pool.dataset.hypotheses for s in dataset.systems)):
            raise ValueError("a pool must hold the dataset's sentences and every system of its set")
        self.dataset = dataset
        self.pool = pool            # the dataset's every output, scored once for all its system sets
        self._annotators = _annotators(annotator, {"spacy_model": spacy_model, "batch_size": batch_size})
        self._model = model
        self._named: dict[str, Scored] = {}              # registry name -> its default metric scored
        self._scored: dict[int, Scored] = {}             # id(Metric instance) -> scored (Scored.metric keeps it)
        self._pairs: dict[str, SL.Pairs] = {}
        self._aggregated: dict[tuple, dict] = {}         # (id(Scored), aggregation) -> system scores
        # the pairs the metrics annotate (errant, senterrant, gotoscorer and cleme: each SRC -> hypothesis), annotated
        # once for all of them while this dataset lives (bounded: languages.PairMemo)
        self._pair_memo = PairMemo()
        self.timings: dict[str, float] = {}

    # --- the data, as a gec-metrics user expects it ------------------------------------------------------------

    @property
    def systems(self) -> list:
        return list(self.dataset.systems)

    @property
    def sources(self) -> list:
        return self.dataset.sources

    @property
    def references(self) -> list:
        return self.dataset.references

    @property
    def hypotheses(self) -> dict:
        return self.dataset.hypotheses

    @property
    def human(self) -> dict:
        return self.dataset.human

    def annotator(self):
        """The English annotator, loaded on first use (peet_fast.languages.Annotators)."""
        return self._annotators()

    def eval_set(self) -> EvalSet:
        # the dataset's gold: its blocks at its lines, not the whole file at its gold_path (so no path handed on)
        return EvalSet.from_files(replace(self.dataset, gold_path=None), self._annotators,
                                  {"model": self._model, "lang": "en"}, memo=self._pair_memo)

    # --- scoring -----------------------------------------------------------------------------------------------

    def scored(self, metric) -> Scored:
        """The metric scored on the dataset (cached: a registry name's default metric by name, a Metric by identity)."""
        if isinstance(metric, Mapping):
            return self._plain(metric)
        if isinstance(metric, str):
            if metric not in self._named and self.pool is not None:
                self._named[metric] = self._from_pool(metric)
            if metric not in self._named:
                try:
                    instance = get_metric(metric)
                except ValueError as exc:
                    raise InputError("metric", str(exc)) from None
                self._named[metric] = self.scored(instance)
            return self._named[metric]
        if not isinstance(metric, Metric):
            raise TypeError("a metric is a registry name, a peet_fast.metrics.base.Metric, or a dict of scores")
        got = self._scored.get(id(metric))
        if got is not None and got.metric is metric:
            return got
        if self.pool is not None:
            return self._from_pool(metric)
        if metric.needs_gold and self.dataset.gold is None:     # own data given as sources and text references
            raise InputError("gold", f"the {metric.name} metric needs a gold M2 (it scores edits), not text "
                                     "references: give one instead of src and references (`peet-fast m2 -orig SRC "
                                     "-cor REF ... -out GOLD.m2` extracts one from them with ERRANT)")
        import time

        t0 = time.perf_counter()
        data = self.eval_set()
        systems = self.systems
        with data.remembered():
            stats = dict(zip(systems, metric.system_stats([self.hypotheses[s] for s in systems], data)))
        sign = 1.0 if metric.higher_is_better else -1.0
        value = metric.corpus_value
        system = {s: sign * float(value(stats[s])) for s in systems}
        sentence = np.stack([sign * np.asarray(metric.sentence_scores(stats[s]), dtype=np.float64)
                             for s in systems])
        self.timings[metric.name] = time.perf_counter() - t0
        out = Scored(metric.name, sign, system, sentence, stats, metric)
        self._scored[id(metric)] = out
        return out

    def _from_pool(self, metric) -> Scored:
        """The pool's scores of the metric (every output of the dataset scored at once) for this system set."""
        full = self.pool.scored(metric)
        rows = [self.pool.systems.index(s) for s in self.systems]
        out = Scored(full.name, full.sign, {s: full.system[s] for s in self.systems}, full.sentence[rows],
                     {s: full.stats[s] for s in self.systems}, full.metric)
        self.timings[full.name] = self.pool.timings.get(full.name, 0.0)
        if not isinstance(metric, str):
            self._scored[id(metric)] = out
        return out

    def _plain(self, scores: Mapping) -> Scored:
        scores = checked_scores(scores, self.systems, len(self.sources))
        missing = [s for s in self.systems if s not in scores]
        if missing:
            raise InputError("scores", f"no score for the system{'s' if len(missing) > 1 else ''} "
                                       f"{', '.join(missing)}")
        values = [scores[s] for s in self.systems]
        if all(isinstance(v, (int, float, np.floating, np.integer)) for v in values):
            return Scored("scores", 1.0, {s: float(scores[s]) for s in self.systems}, None)
        n = len(self.sources)
        rows = []
        for s in self.systems:
            row = np.asarray(scores[s], dtype=np.float64).reshape(-1)
            if len(row) != n:
                raise InputError("scores", f"system {s!r} has {plural(len(row), 'sentence score')}; the data has "
                                           f"{n} sentences")
            rows.append(row)
        sentence = np.stack(rows)
        return Scored("scores", 1.0, dict(zip(self.systems, SY.aggregate(sentence, "mean").tolist())), sentence)

    def system_scores(self, metric, aggregation: str = "corpus") -> dict:
        """system -> its (oriented) score: the corpus score, or (aggregation "ts" / "ew" / "mean") its sentence
        scores aggregated (meta_eval.system.aggregate)."""
        sc = self.scored(metric)
        if aggregation == "corpus":
            return dict(sc.system)
        if aggregation not in SY.AGGREGATIONS:
            raise InputError("aggregation", f"unknown aggregation {aggregation!r}; choose from "
                                              f"{', '.join(SY.AGGREGATIONS)}")
        if sc.sentence is None:
            raise InputError("aggregation", "plain system scores cannot be aggregated; give sentence scores")
        key = (id(sc), aggregation)
        if sc.metric is None or key not in self._aggregated:
            scores = dict(zip(self.systems, SY.aggregate(sc.sentence, aggregation).tolist()))
            if sc.metric is None:
                return scores
            self._aggregated[key] = scores
        return dict(self._aggregated[key])

    @property
    def tie_order(self) -> list:
        """The systems in the order whose earlier one loses a metric tie (meta_eval.metric.sentence; own.load_own)."""
        return [s for s in self.dataset.tie_order or self.systems if s in set(self.systems)]

    def pairs(self, judgments: str) -> SL.Pairs:
        if judgments not in self._pairs:
            self._pairs[judgments] = SL.human_pairs(self.dataset.judgments[judgments], self.systems, self.tie_order)
        return self._pairs[judgments]

    def _sentence_scores(self, metric) -> np.ndarray:
        sc = self.scored(metric)
        if sc.sentence is None:
            raise InputError("scores", "sentence-level figures need sentence scores: {system: [one per sentence]}")
        return sc.sentence

    # --- the figures -------------------------------------------------------------------------------------------

    def corr_system(self, metric, aggregation: str = "corpus", bootstrap: int = 0, seed: int = SG.DEFAULT_SEED):
        """{HUMAN: {"pearson", "spearman"}} (with bootstrap > 0 also "pearson_ci", "spearman_ci")."""
        bootstrap, seed = SG.checked_resampling(bootstrap, seed)
        scores = self.system_scores(metric, aggregation)
        out = SY.corr_system(scores, self.human)
        if bootstrap:
            boot = self.system_resamples(metric, aggregation, bootstrap, seed)
            if boot is not None:
                for name, ci in SG.system_intervals(boot, self.human, self.systems).items():
                    out[name].update(ci)
        return Result.of(out)

    def system_resamples(self, metric, aggregation: str, resamples: int, seed: int = SG.DEFAULT_SEED):
        """(B, S) oriented system scores of B sentence resamples, or None where there are none (plain system
        scores, TrueSkill aggregation)."""
        sc = self.scored(metric)
        idx = SG.sentence_indices(len(self.sources), resamples, seed)
        if aggregation == "corpus" and sc.metric is not None:
            return sc.sign * sc.metric.bootstrap_systems([sc.stats[s] for s in self.systems], idx)
        if sc.sentence is None or aggregation == "ts":
            return None
        counts = resample_counts(idx, len(self.sources))
        if aggregation in ("mean", "corpus"):
            return counts @ sc.sentence.T / idx.shape[1]
        wins = SY.pairwise_wins(sc.sentence).reshape(len(self.sources), -1).astype(np.float64)
        S = len(self.systems)
        return np.stack([SY.expected_wins(w.reshape(S, S)) for w in counts @ wins])

    def window_analysis(self, metric, window: int = 4, aggregation: str = "corpus"):
        """{HUMAN: [{"from", "to", "systems", "pearson", "spearman"}, ...]} (meta_eval.system.window_analysis)."""
        window = A.integer(window, "window", 1)
        scores = self.system_scores(metric, aggregation)
        try:
            return Result.of({name: SY.window_analysis(scores, h, window) for name, h in self.human.items()})
        except ValueError as exc:
            raise InputError("window", str(exc)) from None

    def corr_sentence(self, metric, bootstrap: int = 0, seed: int = SG.DEFAULT_SEED):
        """{JUDG: {"accuracy", "kendall", "pairs", "ties", "tie_aware"}} (with bootstrap > 0 also "accuracy_ci",
        "kendall_ci": resampling ranking items)."""
        bootstrap, seed = SG.checked_resampling(bootstrap, seed)
        scores = self._sentence_scores(metric)
        out = {}
        for j in self.dataset.judgment_names:
            pairs = self.pairs(j)
            out[j] = SL.corr_sentence(pairs, scores)
            if bootstrap:
                out[j].update(SG.sentence_intervals(self.sentence_resamples(metric, j, bootstrap, seed)))
        return Result.of(out)

    def sentence_resamples(self, metric, judgments: str, resamples: int, seed: int = SG.DEFAULT_SEED) -> np.ndarray:
        """(B,) accuracies (gec-metrics' count) over B resamples of the ranking items."""
        pairs = self.pairs(judgments)
        agree, _, _ = SL.outcomes(pairs, self._sentence_scores(metric))
        counts = resample_counts(SG.sentence_indices(pairs.items, resamples, seed), pairs.items)
        return SG.ratio_resamples(counts, SL.per_item(pairs, agree), SL.per_item(pairs, np.ones(len(pairs))))

    def pairwise_analysis(self, metric):
        """{JUDG: [{"ranks": [better, worse], "accuracy", "pairs"}, ...]} (meta_eval.sentence.pairwise_analysis)."""
        scores = self._sentence_scores(metric)
        return Result.of({j: SL.pairwise_analysis(self.pairs(j), scores) for j in self.dataset.judgment_names})

    # --- several metrics: the summary --------------------------------------------------------------------------

    def compare(self, first, second, aggregation: str = "corpus", bootstrap: int = 0,
                seed: int = SG.DEFAULT_SEED) -> dict:
        """Whether `first` agrees with the humans more than `second`: per human score Williams' test on the
        Pearson correlations ({"t", "p"}); with bootstrap > 0, per judgments the paired-bootstrap p of the
        sentence accuracy (share of item resamples where first is not strictly above second)."""
        bootstrap, seed = SG.checked_resampling(bootstrap, seed)
        a, b = self.system_scores(first, aggregation), self.system_scores(second, aggregation)
        systems = self.systems
        xa, xb = [a[s] for s in systems], [b[s] for s in systems]
        r23 = SY.correlation(xa, xb)["pearson"]
        out: dict = {"system": {}}
        for name, h in self.human.items():
            hs = [h[s] for s in systems]
            r12, r13 = SY.correlation(xa, hs)["pearson"], SY.correlation(xb, hs)["pearson"]
            out["system"][name] = SG.williams(r12, r13, r23, len(systems))
        if (bootstrap and self.dataset.judgments and self.scored(first).sentence is not None
                and self.scored(second).sentence is not None):     # own data with --human alone: no judgments
            out["sentence"] = {j: {"p": SG.paired_p(self.sentence_resamples(first, j, bootstrap, seed),
                                                    self.sentence_resamples(second, j, bootstrap, seed))}
                               for j in self.dataset.judgment_names}
        return Result.of(out)

    def summary(self, metrics: Sequence, aggregation: str = "corpus", window: int | None = None,
                bootstrap: int = 0, seed: int = SG.DEFAULT_SEED, levels: Sequence[str] = ("system", "sentence"),
                pairwise: bool = True) -> dict:
        """The `--summary` JSON: {"data", "system_set", "systems", "aggregation", "bootstrap", "human": {HUMAN:
        {system: score}}, "metrics": {NAME:
        {"higher_is_better", "system": {HUMAN: {...}}, "sentence": {JUDG: {...}}, "window": {HUMAN: [...]},
        "pairwise": {JUDG: [...]}}}, "comparisons": [...]}."""
        bootstrap, seed = SG.checked_resampling(bootstrap, seed)
        metrics = A.items(metrics, "metrics", "a list of metrics (names, Metric instances or scores)")
        window = None if window is None else A.integer(window, "window", 1)
        d = self.dataset
        out: dict = {"data": d.name, "system_set": d.system_set, "systems": self.systems,
                     "sentences": len(self.sources), "aggregation": aggregation,
                     "bootstrap": {"resamples": bootstrap, "seed": seed} if bootstrap else None,
                     "window_size": window, "human": self.human, "metrics": {}, "comparisons": []}
        names = []
        for m in metrics:
            sc = self.scored(m)
            name = sc.name
            entry: dict = {"higher_is_better": sc.sign > 0, "system_scores": self.system_scores(m, aggregation),
                           "signature": None if sc.metric is None else meta_signature(sc.metric, self.eval_set(), d)}
            if "system" in levels:
                entry["system"] = self.corr_system(m, aggregation, bootstrap, seed)
            if "sentence" in levels and sc.sentence is not None and d.judgments:     # own data: judgments or not
                entry["sentence"] = self.corr_sentence(m, bootstrap, seed)
                if pairwise:
                    entry["pairwise"] = self.pairwise_analysis(m)
            if window:
                entry["window"] = self.window_analysis(m, window, aggregation)
            out["metrics"][name] = entry
            names.append((name, m))
        if d.name == "own" and any("sentence" in e for e in out["metrics"].values()):     # the datasets': docs
            out["tie_order"] = self.tie_order                      # a metric tie: a loss of the earlier system
        for i, (na, ma) in enumerate(names):
            for nb, mb in names[i + 1:]:
                out["comparisons"].append({"metrics": [na, nb], **self.compare(ma, mb, aggregation, bootstrap, seed)})
        return Result.of(out)


_POOLS: dict = {}         # (data, root, gold, options) -> the MetaEval of the dataset's every output


def _pool(data: str, root: str, gold: str, dataset: D.Dataset, annotator, model, spacy_model, batch_size) -> MetaEval:
    """The process's MetaEval of every output of the dataset (SEEDA's "all"), reused while it holds the same
    sentences, references and outputs as `dataset` (a changed file gives a new one)."""
    import os

    key = (data, os.path.realpath(root), os.path.realpath(gold), id(model), id(annotator), spacy_model, batch_size)
    pool = _POOLS.get(key)
    if pool is not None:
        d = pool.dataset
        if (d.sources != dataset.sources or d.references != dataset.references or d.lines != dataset.lines
                or any(d.hypotheses.get(s) != dataset.hypotheses[s] for s in dataset.systems)):
            pool = None
    if pool is None:
        full = dataset if dataset.system_set == "all" else D.load(data, root, gold, "all")
        pool = MetaEval(full, annotator, model, spacy_model, batch_size)
        if len(_POOLS) >= 4:
            _POOLS.pop(next(iter(_POOLS)))
        _POOLS[key] = pool
    return pool


def meta_eval(data: str | None = None, root: str | None = None, gold: str | None = None,
              system_set: str | None = None, *, annotator=None, model=None, share: bool = True,
              **own) -> MetaEval:
    """The meta-evaluation dataset `data` ("seeda" or "gjg15") from a clone of its repository at `root`, references
    from the CoNLL-14 gold M2 at `gold`; system_set: SEEDA's "base" (default), "+INPUT", "+REF-F_GPT-3.5"
    ("+fluency") or "all". model: the PEET model for the peet metric (a JSON file, a Model, or None: the published
    one). annotator: the English annotator, or a callable returning it (default: peet_fast.load("en"), with the
    keywords spacy_model and batch_size, default None and 256, if given).

    share (default): every system set of one dataset takes its scores from one scoring of all the dataset's outputs
    in this process (each system, sentence and metric scored once, whichever sets are asked for; GoToScorer's chunk
    weights then come from all the outputs); share=False scores this set alone.

    Own data (meta_eval.metric.own.load_own), instead of data and root, by keyword: outputs ({system: path}, in
    order), the references from `gold` (an M2) or from `src` and `references` (files), and the human system scores
    from `human` (a system,score CSV) or from `judgments` (an Appraise ranking XML) by human_method ("ew", "ts";
    human_runs, seed); with judgments the sentence level too; human_ignore, human_subset, src_base as `rank` and
    `human-rank` take them."""
    from peet_fast.meta_eval.metric.own import PARAMETERS

    spacy_model, batch_size = own.pop("spacy_model", None), own.pop("batch_size", 256)     # the pipeline's options
    A.string(data, "data", none=True), A.string(system_set, "system_set", none=True)        # checked at the edge
    A.string(spacy_model, "spacy_model", none=True), A.integer(batch_size, "batch_size", 1), A.boolean(share, "share")
    unknown = sorted(set(own) - set(PARAMETERS))
    if unknown:
        raise TypeError(f"meta_eval() got an unexpected keyword argument {unknown[0]!r}")
    outputs = own.get("outputs")
    if outputs is not None:
        if data is not None or root is not None or system_set is not None:
            raise InputError("outputs", "give either a dataset (data, root) or own outputs, not both")
        from peet_fast.meta_eval.metric.own import load_own

        if model is not None:
            from peet_fast.peet.model import Model, load_model

            model = model if isinstance(model, Model) else load_model(model)
        dataset = load_own(gold=gold, **own)
        return MetaEval(dataset, annotator, model, spacy_model, batch_size)
    for param in own:
        raise InputError(param, "is for own data: give outputs too")
    if data is None:
        raise InputError("data", "give a dataset (data, root and gold) or own outputs")
    from peet_fast.meta_eval.metric.own import _path

    root, gold = _path("root", root), _path("gold", gold)      # InputError("gold", "NoneType is not a path")
    if model is not None:
        from peet_fast.peet.model import Model, load_model

        model = model if isinstance(model, Model) else load_model(model)
    dataset = D.load(data, root, gold, system_set)
    if not share:
        return MetaEval(dataset, annotator, model, spacy_model, batch_size)
    pool = _pool(data, root, gold, dataset, annotator, model, spacy_model, batch_size)
    if pool.dataset.systems == dataset.systems:
        return pool
    return MetaEval(dataset, annotator, model, spacy_model, batch_size, pool=pool)
