"""One interface for corpus-level GEC metrics: per-sentence sufficient statistics -> corpus score, and a registry
by name (as sacrebleu's ``metrics/`` and gec-metrics' ``MetricBase`` do).

A metric turns one system's hypotheses into an array of per-sentence statistics (first axis: the sentences, in
order; any further axes are the metric's own) from which the corpus score is computed for any subset or resample
of the sentences. ``rank``, ``report``, ``compare`` and the API loop over metrics by name and never name one:

    metric = get_metric("m2")                       # a Metric instance (options as keyword arguments)
    stats = metric.sentence_stats(hyp_lines, data)  # data: an EvalSet (sources, references, gold M2, annotator)
    metric.corpus_score(stats)                      # the official tool's corpus figure
    metric.bootstrap(stats, idx)                    # idx: (resamples, n) sentence indices -> (resamples,) scores

A metric's module registers its class with :func:`register`; :data:`MODULES` names the module of each metric so that
:func:`get_metric` imports only the one asked for (a metric's dependencies load when it is used)."""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Sequence

import numpy as np

from peet_fast.io import InputError
from peet_fast.languages import PairMemo, remembering
from peet_fast.metrics.config import Config, spec_parts

# name -> module defining (and registering) it; imported on first use
MODULES: dict[str, str] = {
    "peet": "peet_fast.peet.metric",
    "wer": "peet_fast.metrics.wer",
    "errant": "peet_fast.metrics.errant",
    "gleu": "peet_fast.metrics.gleu",
    "m2": "peet_fast.metrics.m2",
    "sentm2": "peet_fast.metrics.sentm2",
    "senterrant": "peet_fast.metrics.senterrant",
    "gotoscorer": "peet_fast.metrics.gotoscorer",
    "green": "peet_fast.metrics.green",
    "cleme": "peet_fast.metrics.cleme_metric",
    "cleme2": "peet_fast.metrics.cleme_metric",
}

REGISTRY: dict[str, type["Metric"]] = {}

# the metric `rank` always computes beside those asked for (its figures: RankedSystem.wer, Ranking.wer)
BASELINE = "wer"


@dataclass
class EvalSet:
    """What a metric may use about the test set, one entry per sentence.

    sources: the source sentences (tokenised lines) or None where there are none; references: one list of lines per
    reference set (references[r][i] is reference r of sentence i; a gold M2 gives one set per annotator); gold: the
    gold M2 blocks (peet_fast.formats.m2) when the references came from one, with gold_path naming its file;
    annotator: a callable returning the edit annotator, loaded on first use: a peet_fast.languages.Annotators (the
    one memoised factory every command and the API hand down; metrics that extract edits need it);
    options: anything else a metric documents (e.g. a PEET model); memo: the one memo of annotated pairs of the
    test set (languages.PairMemo: each (source, hypothesis) pair annotated once whichever metrics score it, while
    the EvalSet lives; a meta-evaluation hands its dataset's own to every EvalSet of it), active within
    remembered()."""
    sources: Sequence[str] | None
    references: Sequence[Sequence[str]]
    gold: Sequence[Any] | None = None
    gold_path: str | None = None
    annotator: Callable[[], Any] | None = None
    options: dict = field(default_factory=dict)
    memo: PairMemo = field(default_factory=PairMemo, repr=False, compare=False)

    @classmethod
    def from_gold(cls, blocks: Sequence[Any], gold_path: str | None = None, annotator=None,
                  options: dict | None = None, memo: PairMemo | None = None) -> "EvalSet":
        """The test set of a gold M2 (its blocks, read from gold_path): the sources (each block's S line) and one
        reference set per annotator (formats.m2.annotator_references) -- the one place a gold M2 becomes
        references. memo: the PairMemo to share (None: a new one)."""
        from peet_fast.formats.m2 import annotator_references

        return cls._made([" ".join(b.source) for b in blocks], annotator_references(blocks, gold_path or "<gold>"),
                         blocks, gold_path, annotator, options, memo)

    @classmethod
    def from_files(cls, inputs, annotator=None, options: dict | None = None,
                   memo: PairMemo | None = None) -> "EvalSet":
        """The test set of what a caller read: any object with ``sources``, ``references``, ``gold`` and
        ``gold_path`` (evaluation.inputs.read_eval_inputs's EvalInputs, a meta-evaluation's dataset). memo: the
        PairMemo to share (a meta-evaluation's dataset hands its own to each of its EvalSets; None: a new one).
        With from_gold, the one way the package builds an EvalSet (tests/test_imports.py checks it)."""
        return cls._made(inputs.sources, inputs.references, inputs.gold, inputs.gold_path, annotator, options, memo)

    @classmethod
    def _made(cls, sources, references, gold, gold_path, annotator, options, memo) -> "EvalSet":
        made = cls(sources, references, gold, gold_path, annotator, dict(options or {}))
        if memo is not None:
            made.memo = memo
        return made

    def remembered(self):
        """A context in which the annotators recall the pairs annotated before on this test set (its memo)."""
        return remembering(self.memo)

    def __len__(self) -> int:
        if self.references:
            return len(self.references[0])
        return len(self.sources or ())


@dataclass
class Comparison:
    """One hypothesis against its references as `compare` and api.compare give them to a metric that scores edits
    (Metric.scores_edits): M2 blocks (the edits given) or texts (the edits extracted by the annotator).

    blocks: (hypothesis blocks, reference blocks) of M2 input, paths naming their files; else sources (the source
    lines), hyp (the hypothesis lines; para: per line its targets) and refs (per sentence its references), with
    annotator (a peet_fast.languages.Annotators), progress (a progress(done, total) callback the annotation reports
    to, and a context manager around it), columns ((file, lines) for a message naming where a sentence is) and
    src_path (the file named where blank source lines are left out). notice(text): one line for the user; verbose:
    where errant_compare's verbose report goes (shown: the sentence texts it shows for M2 input; verbose_note: the
    line saying that the language's own tool lays it out otherwise)."""
    blocks: tuple | None = None
    paths: tuple = ("<hyp>", "<ref>")
    sources: Sequence[str] | None = None
    hyp: Sequence | None = None
    refs: Sequence[Sequence[str]] | None = None
    lang: str = "en"
    para: bool = False
    annotator: Callable[[], Any] | None = None
    progress: Any = None
    columns: Sequence = ()
    src_path: str | None = None
    notice: Callable[[str], None] | None = None
    verbose: Any = None
    shown: Sequence[str] | None = None
    verbose_note: str | None = None


@dataclass
class Compared:
    """What Metric.compare returns: the metric's own result (metrics.span.CompareResult, metrics.cleme.ClemeResult,
    or the corpus score), the report `compare` prints and its --summary figures (the files named by the caller)."""
    result: Any
    report: str
    summary: dict


class Metric:
    """A corpus metric. Subclasses set name, title, higher_is_better and implement sentence_stats and
    corpus_score; bootstrap may be overridden with a vectorised version."""
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""               # column header, e.g. "M2 F0.5"
    label: ClassVar[str] = ""               # name in sentences ("PEET vs human ..."); default: title
    fmt: ClassVar[str] = ".4f"              # how a corpus score is printed (format spec)
    higher_is_better: ClassVar[bool] = True
    needs_sources: ClassVar[bool] = False   # refuses an EvalSet without sources
    needs_gold: ClassVar[bool] = False      # refuses an EvalSet without a gold M2
    needs_annotator: ClassVar[bool] = False  # extracts edits or features with EvalSet.annotator (a language's)
    parses: ClassVar[bool] = False          # its figures depend on the language pipeline (a signature's nlp)
    # the figures of system_figures a ranking table shows beside the score (rank, report): figure -> (header, meaning)
    shown_figures: ClassVar[dict] = {}
    needs_model: ClassVar[bool] = False     # scores with a PEET model (EvalSet.options["model"]): loaded first
    phase: ClassVar[str] = ""               # its name in rank's timings (default: its name)
    langs: ClassVar[tuple] = ("en",)        # the languages whose annotator it takes (compare's lang)
    Config: ClassVar[type] = Config         # its options (a frozen dataclass of metrics.config: fields, bounds)
    # the command line's metric-specific flags (their dest) -> the Config field each sets (the one map: configured)
    config: ClassVar[dict] = {}
    scores_edits: ClassVar[bool] = False    # compare gives it a Comparison (M2, parallel text): Metric.compare
    compare_options: ClassVar[frozenset] = frozenset()   # compare's options it takes (config's and input ones)
    refusal: ClassVar[str] = ""             # why it refuses compare's other options (a clause of the message)

    def sentence_stats(self, hyp: Sequence[str], data: EvalSet) -> np.ndarray:
        """Per-sentence sufficient statistics, shape (len(hyp), ...)."""
        raise NotImplementedError

    def corpus_score(self, stats: np.ndarray) -> float:
        """The corpus score of the sentences whose statistics are given (rows of sentence_stats, any subset)."""
        raise NotImplementedError

    def corpus_value(self, stats: np.ndarray) -> float:
        """The corpus score unrounded (what meta-evaluation correlates); the default is corpus_score, which a metric
        printing a rounded figure (errant: 4 decimals, as errant_compare) overrides here."""
        return self.corpus_score(stats)

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        """One score per sentence, shape (n,), in the corpus score's direction (higher_is_better): what sentence-level
        meta-evaluation compares. The default is the corpus score of each sentence alone; a metric whose
        sentence-level figure is defined otherwise (SentM2, PEET's seconds) overrides it."""
        return np.array([self.corpus_score(stats[i:i + 1]) for i in range(len(stats))], dtype=np.float64)

    def breakdown(self, stats: np.ndarray) -> dict | None:
        """Per-category figures of one system, {category: {figure: value}}, for an array this instance's
        sentence_stats or system_stats returned (all its sentences), or None where the metric has none (the
        default). ``m2``: recall per gold error type; ``errant``: TP/FP/FN/P/R/F per type as errant_compare -cat 3
        prints them."""
        return None

    def compare(self, given: Comparison) -> Compared:
        """`compare` of one hypothesis given as edits (scores_edits metrics: errant, cleme)."""
        raise ValueError(f"the {self.name} metric scores text, not edits")

    def compare_set(self, hyp: Sequence[str], data: EvalSet) -> Compared:
        """`compare` of one hypothesis's text on an EvalSet: the corpus score, printed 'TITLE<TAB>score', and the
        summary {"metric", "title", "higher_is_better", "score", "sentences"}."""
        stats = self.sentence_stats(hyp, data)
        score = self.corpus_score(stats)
        summary = {"metric": self.name, "title": self.title, "higher_is_better": self.higher_is_better,
                   "score": None if score != score else score, "sentences": len(stats)}
        shown = "nan" if score != score else format(score, self.fmt)
        return Compared(score, f"{self.title or self.name}\t{shown}\n", summary)

    def system_figures(self, stats: np.ndarray, data: EvalSet) -> dict:
        """A metric's figures of one system besides its corpus score (MetricScore.figures of a ranking; PEET: peet,
        words, seconds_per_word, mean_seconds_per_word); the default: none."""
        return {}

    def sentence_arrays(self, stats: Sequence[np.ndarray], data: EvalSet) -> dict:
        """A metric's per-sentence arrays of every system, {name: (systems, n) array}, that a ranking keeps
        (PEET: "seconds" and each feature of the model); the default: none."""
        return {}

    def prepared(self, data: EvalSet, prepare: Callable[[EvalSet], Any], key: Any = None) -> Any:
        """The one reference cache (as sacrebleu's _ref_cache): what prepare(data) returns, computed once and kept
        for the next system scored on the same EvalSet (the references' edits, tokens, chunks), one entry per
        prepare; with a key (e.g. a gold M2's path), once per key whatever the EvalSet."""
        cache = self.__dict__.setdefault("_ref_cache", {})
        slot = (getattr(prepare, "__name__", repr(prepare)), key)
        hit = cache.get(slot)
        if hit is None or (key is None and hit[0] is not data):
            hit = cache[slot] = (data, prepare(data))
        return hit[1]

    def last_prepared(self, prepare: Callable[[EvalSet], Any]) -> Any:
        """What prepare returned for the last EvalSet it was prepared for (prepared, no key), or None."""
        hit = self.__dict__.get("_ref_cache", {}).get((getattr(prepare, "__name__", repr(prepare)), None))
        return None if hit is None else hit[1]

    def _remember(self, stats: np.ndarray, detail: Any) -> None:
        """Keep what breakdown(stats) needs beside the statistics array it belongs to (while that array lives)."""
        import weakref

        kept = self.__dict__.setdefault("_kept", {})
        for key in [k for k, (ref, _) in kept.items() if ref() is None]:
            del kept[key]
        kept[id(stats)] = (weakref.ref(stats), detail)

    def _recalled(self, stats: np.ndarray) -> Any:
        """What _remember kept for this very array, or None."""
        got = self.__dict__.get("_kept", {}).get(id(stats))
        return got[1] if got is not None and got[0]() is stats else None

    def bootstrap(self, stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Corpus scores of resamples: idx has shape (resamples, n) (sentence indices) -> shape (resamples,)."""
        return np.array([self.corpus_score(stats[row]) for row in idx], dtype=np.float64)

    # --- several systems at once (optional; the defaults loop over the one-system methods) ---------------------

    def system_stats(self, hyps: Sequence[Sequence[str]], data: EvalSet) -> list[np.ndarray]:
        """sentence_stats of several systems on one EvalSet (a metric may batch them: one parse per sentence)."""
        return [self.sentence_stats(h, data) for h in hyps]

    def bootstrap_systems(self, stats: Sequence[np.ndarray], idx: np.ndarray) -> np.ndarray:
        """Corpus scores of every system (stats: one array per system) on the same resamples: shape
        (resamples, systems); column s equals bootstrap(stats[s], idx) (paired: the same idx for all)."""
        if not len(stats):
            return np.zeros((len(idx), 0), dtype=np.float64)
        return np.stack([self.bootstrap(s, idx) for s in stats], axis=1)

    @property
    def settings(self) -> Config:
        """The instance's options as its Config (what get_metric made it from; for an instance made directly, read
        from its attributes of the fields' names)."""
        got = self.__dict__.get("_settings")
        if got is None:
            from dataclasses import fields

            got = self.Config(**{f.name: getattr(self, f.name) for f in fields(self.Config) if hasattr(self, f.name)})
            self.__dict__["_settings"] = got
        return got

    def signed(self, data: EvalSet | None) -> dict:
        """What the metric's signature adds to its Config's fields ({field: text}; PEET: its model); default none."""
        return {}

    def signature(self, data: EvalSet | None = None, extra: dict | None = None, **context) -> str:
        """The one line saying how to reproduce this metric's figures on data, or on the context given without an
        EvalSet (refs, nrefs, annotators, lang: metrics.signature)."""
        from peet_fast.metrics.signature import signature

        return signature(self, data, extra, **context)

    def describe(self) -> str:
        """The metric's name in sentences: label, else title, else name."""
        return self.label or self.title or self.name


def register(cls: type[Metric]) -> type[Metric]:
    """Class decorator: make cls available to get_metric(cls.name)."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    REGISTRY[cls.name] = cls
    return cls


def metric_names() -> list[str]:
    """Every metric name get_metric accepts, in registry order."""
    return list(dict.fromkeys([*MODULES, *REGISTRY]))


def configured(name: str, values: dict) -> Metric:
    """The metric called name (or a spec, metric_from_spec) with its options taken from values, named as the
    command line's flags store them (Metric.config: dest -> Config field); a value of None, and a name the metric
    does not take, is left out."""
    made = metric_from_spec(name, values)
    return get_metric(made) if isinstance(made, str) else made


def metric_class(name: str) -> type[Metric]:
    """The class registered as name (its module imported on first use); ValueError naming the known metrics."""
    if name not in REGISTRY and name in MODULES:
        importlib.import_module(MODULES[name])
    if name not in REGISTRY:
        raise ValueError(f"unknown metric {name!r}; known: {', '.join(metric_names())}")
    return REGISTRY[name]


def get_metric(name: str, **options) -> Metric:
    """A new instance of the metric called name: options are its Config's fields (checked once: InputError naming
    the field) and any other keyword its class takes (objects: a PEET model, GoToScorer's chunk_weight); ValueError
    naming the known metrics for an unknown name."""
    import inspect
    from dataclasses import fields

    cls = metric_class(name)
    names = {f.name for f in fields(cls.Config)}
    taken = set(inspect.signature(cls.__init__).parameters) - names      # objects, not options: model, chunk_weight
    settings = cls.Config.make(name, {k: v for k, v in options.items() if k not in taken})
    metric = cls(**settings.values(), **{k: v for k, v in options.items() if k not in names})
    metric.__dict__["_settings"] = settings
    return metric


def metric_from_spec(spec: str, flags: dict | None = None) -> Metric | str:
    """A command line's metric: NAME or NAME:FIELD=VALUE:... (the fields converted from text; InputError
    "NAME:FIELD" for a bad one), with the metric-specific flags' values (flags: dest -> value; Metric.config maps
    them onto fields; the spec's fields win). A bare NAME given no option, and an unknown name, come back as they
    are (refused where the metric is looked up)."""
    name, texts = spec_parts(spec)
    if name not in metric_names():
        return spec
    cls = metric_class(name)
    given = {kw: flags[dest] for dest, kw in cls.config.items() if flags and flags.get(dest) is not None}
    if not texts and not given:
        return name
    try:
        settings = cls.Config.from_texts(name, texts)
    except InputError as exc:
        raise InputError(f"{name}:{exc.path}", exc.message) from None
    return get_metric(name, **{**given, **{k: getattr(settings, k) for k in texts}})
