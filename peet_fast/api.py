"""The Python API for notebooks: the commands' own code paths on lists of strings, no files.

    import peet_fast
    res = peet_fast.score(hyps={"sysA": [...], "sysB": [...]}, refs=[[...], [...]])
    res.systems       # pandas DataFrame, ranked as `peet-fast score` prints it
    res.sentences     # pyarrow Table, the rows of `peet-fast score --out`
    text = peet_fast.m2(orig, [cor])                            # `peet-fast m2`'s M2 text
    edits = peet_fast.edits(orig, [cor])                        # the same edits as Annotation objects
    result = peet_fast.compare(hyp_m2_text, ref_m2_text)        # `peet-fast compare`'s result (.summary())
    g = peet_fast.gleu(sources, [ref_a, ref_b], hyp)            # `peet-fast gleu`: g.score, g.sentences
    ev = peet_fast.evaluate({"sysA": [...]}, refs=[[...]], src=[...], metrics=["errant", "wer"])
    ev.systems        # pandas DataFrame: one column per metric (any metric of peet_fast.metric_names())
    m2 = peet_fast.m2score(hyp_lines, "gold.m2")                 # `peet-fast m2scorer`: .precision .recall .f .stats

Every function raises ValueError (peet_fast.io.InputError, a ValueError) on bad input, naming the argument: each
argument is checked here, at the edge, by peet_fast.io.arguments (a None or a wrong type included; a generator of
sentences is read once into a list; a string where a list is expected is refused, or one item where a list of
paths or names is)."""
from __future__ import annotations

import io
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from peet_fast.io import InputError
from peet_fast.io import arguments as A

if TYPE_CHECKING:
    import pandas
    import pyarrow

    from peet_fast.languages import Annotation
    from peet_fast.peet.model import Model


@dataclass
class ScoreResult:
    """What `score` returns: `systems`, one row per system ranked by PEET (ascending) with columns rank, system,
    peet, sentences (the numbers `peet-fast score` prints and writes to --summary); `sentences`, one row per system
    and sentence (system, sentence, reference, the model's feature set, seconds, then contrib:<feature> and edits
    when asked: the columns of `peet-fast score --out`)."""
    systems: "pandas.DataFrame"
    sentences: "pyarrow.Table"


def _lines(value: Any, what: str) -> list[str]:
    return A.sentences(value, what)


def _references(value: Any, what: str) -> list:
    """A list of references (each a list of sentences), read once; a string (a file's name?) is refused."""
    if isinstance(value, (str, os.PathLike)):
        raise InputError(what, "must be a list of references (each a list of sentences), not a string or a path "
                               "(a file's lines: read them first)")
    return A.items(value, what, "a list of references (each a list of sentences)")


def _systems(value: Any, what: str) -> dict:
    value = A.mapping(value, what, "a mapping of system name to its sentences")
    for name in value:
        if not isinstance(name, str) or not name:
            raise InputError(what, f"a system's name must be a non-empty string, not {name!r}")
    return {name: A.sentences(lines, f"{what}[{name!r}]") for name, lines in value.items()}


def _loaded_model(model):
    """model (a path, a Model, or None: the published one) loaded; anything else refused naming `model`."""
    from peet_fast.peet.model import Model, load_model

    if isinstance(model, Model):
        return model
    _check_model(model)
    return load_model(None if model is None else os.fspath(model))


def _check_model(model) -> None:
    from peet_fast.peet.model import Model

    if model is not None and not isinstance(model, (str, os.PathLike, Model)):
        raise InputError("model", f"must be a model JSON file's path, a peet_fast.peet.model.Model or None, not "
                                  f"{type(model).__name__}")


def _pipeline(tokenize, spacy_model, batch_size) -> dict:
    A.boolean(tokenize, "tokenize")
    if spacy_model is not None and not isinstance(spacy_model, str):
        raise InputError("spacy_model", f"must be a spaCy pipeline's name or None, not {type(spacy_model).__name__}")
    return {"spacy_model": spacy_model, "batch_size": A.integer(batch_size, "batch_size", 1)}


def _aligned(named: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """The texts, each a list of strings, all of one length (at least 1)."""
    texts = {what: _lines(v, what) for what, v in named.items()}
    counts = {len(t) for t in texts.values()}
    if len(counts) > 1:
        detail = ", ".join(f"{what}: {len(t)}" for what, t in texts.items())
        raise InputError(next(iter(texts)), f"the texts differ in length ({detail})")
    if counts == {0}:
        raise InputError(next(iter(texts)), "no sentences")
    return texts


def _annotators(lang: str, tokenize: bool, options: dict):
    """The annotator's memoised factory (peet_fast.languages.Annotators) for these options."""
    from peet_fast.languages import Annotators

    if tokenize:
        if lang != "en":
            raise InputError("tokenize", f"is for English only (lang {lang!r} tokenises itself)")
        options = {**options, "tokenise": True}
    return Annotators(lang, options)


def _annotator(lang: str, tokenize: bool, options: dict):
    return _annotators(lang, tokenize, options)()


def score(hyps: Mapping[str, Sequence[str]], refs: Sequence[Sequence[str]], *, tokenize: bool = False,
          model: "str | Model | None" = None, contributions: bool = False, edits: bool = False,
          spacy_model: str | None = None, batch_size: int = 256) -> ScoreResult:
    """PEET of each system: `hyps` maps a system's name to its outputs (MO), `refs` is a list of references (TRG),
    each line-aligned with every system. tokenize: run spaCy's tokenizer on raw text (as `m2 -tok`) instead of
    splitting on whitespace. model: a model JSON file, a peet_fast.peet.model.Model, or None for the published model.
    contributions / edits: add the contrib:<feature> columns / the edits column (`score --contributions`,
    `--edits`). The same computation as `peet-fast score` (its in-process path)."""
    from peet_fast.jobs.tasks import SentenceOutput, score_in_process
    from peet_fast.peet.scoring import rank

    hyps, refs = _systems(hyps, "hyps"), _references(refs, "refs")
    if not hyps or not refs:
        raise InputError("hyps" if not hyps else "refs", "give at least one system and one reference")
    pipeline = _pipeline(tokenize, spacy_model, batch_size)
    A.boolean(contributions, "contributions")
    A.boolean(edits, "edits")
    texts = _aligned({**{f"hyps[{n!r}]": h for n, h in hyps.items()},
                      **{f"refs[{k}]": r for k, r in enumerate(refs)}})
    lines = list(texts.values())
    names = list(hyps)
    loaded = _loaded_model(model)
    annotator = _annotator("en", tokenize, pipeline)
    tables: list = []
    ranked = rank(score_in_process(annotator, loaded, names, lines[:len(names)], lines[len(names):],
                                   SentenceOutput(contributions=contributions, edits=edits, on_table=tables.append)))
    return ScoreResult(_systems_frame(ranked), _concat(tables))


def _systems_frame(ranked) -> "pandas.DataFrame":
    import pandas as pd

    return pd.DataFrame({"rank": range(1, len(ranked) + 1), "system": [s.name for s in ranked],
                         "peet": [s.peet for s in ranked], "sentences": [s.sentences for s in ranked]})


def _concat(tables: list) -> "pyarrow.Table":
    import pyarrow as pa

    return pa.concat_tables(tables)


def _targets(cors: Sequence, orig: Sequence[str], what: str = "orig") -> tuple[list[str], list[list[str]]]:
    """cors as corrected "files" (one list of sentences per corrected version; a plain list of strings is one),
    checked against orig; returns (orig, per sentence its targets), each read once (a generator too)."""
    orig = _lines(orig, what)
    if isinstance(cors, str):
        raise InputError("cors", "must be a list of corrected texts (or one: a list of strings), not a string")
    cors = A.items(cors, "cors", "a list of corrected texts (or one: a list of strings)")
    files = [cors] if cors and isinstance(cors[0], str) else cors
    if not files:
        raise InputError("cors", "give at least one corrected text")
    texts = _aligned({what: orig, **{f"cors[{k}]": c for k, c in enumerate(files)}})
    return orig, [list(t) for t in zip(*list(texts.values())[1:])]


def _language(lang, tokenize) -> None:
    if not isinstance(lang, str):
        raise InputError("lang", f"must be a language's code ('en', 'zh'), not {type(lang).__name__}")
    A.boolean(tokenize, "tokenize")


def m2(orig: Sequence[str], cors: Sequence[Sequence[str]] | Sequence[str], *, lang: str = "en",
       tokenize: bool = False, **options: Any) -> str:
    """The M2 text `peet-fast m2` writes for `orig` against each corrected text in `cors` (a list of corrected
    versions, each line-aligned with orig; a plain list of strings is one version, annotator id 0). lang: "en"
    (errant_parallel) or "zh" (ChERRANT); tokenize: spaCy's tokenizer on raw English text (`-tok`); options: the
    language annotator's own (peet_fast.load: lev, merge, spacy_model; zh: cilin, confusion, t2s, strategy, ...)."""
    _language(lang, tokenize)
    orig, targets = _targets(cors, orig)
    annotator = _annotator(lang, tokenize, options)
    out = io.StringIO()
    annotator.write_m2(out, orig, targets)
    return out.getvalue()


def edits(orig: Sequence[str], cors: Sequence[Sequence[str]] | Sequence[str], *, lang: str = "en",
          tokenize: bool = False, **options: Any) -> "list[list[Annotation]]":
    """The edits behind `m2` (same arguments): per orig sentence, per corrected version, an Annotation (source and
    target tokens, kind "edits"/"noop", alignments: lists of SpanEdit(start, end, type, cor) as the M2 A lines).
    These are errant's Annotator.annotate edits for every pair: a blank orig line's are its insertions (`m2` writes
    a noop block there, errant_parallel no block), and a correction keeps its tokens (``a |``) where errant_compare
    reads the A line back as ``a `` (peet_fast.formats.m2.read_back; `compare` scores what is read back)."""
    _language(lang, tokenize)
    orig, targets = _targets(cors, orig)
    annotator = _annotator(lang, tokenize, options)
    n = len(targets[0])
    flat = annotator.annotate_pairs([o for _ in range(n) for o in orig], [t[j] for j in range(n) for t in targets])
    return [[flat[j * len(orig) + k] for j in range(n)] for k in range(len(orig))]


def compare(hyp: str | Sequence[str], ref: str | Sequence[Sequence[str]], *, src: Sequence[str] | None = None,
            lang: str = "en", metric: str = "errant", mode: str = "cs", beta: float = 0.5, single: bool = False,
            multi: bool = False, filt: Sequence[str] = (), alignments: str = "pool", cleme_mode: str = "dependent",
            cleme_weighted: bool = False, tokenize: bool = False, **options: Any):
    """`peet-fast compare` on strings. Without src: hyp and ref are M2 texts (one string each, e.g. from `m2`).
    With src (a list of source sentences): hyp is a list of corrected sentences and ref a list of references (each
    a list of sentences line-aligned with src; a plain list of strings is one), annotated as `m2` does (tokenize and
    options as for `m2`). metric "errant": errant_compare / ChERRANT span P/R/F (mode cs/cse/ds/dt, single, multi,
    filt, alignments), returns a metrics.span.CompareResult; "cleme": CLEME (cleme_mode dependent/independent,
    cleme_weighted), returns a metrics.cleme.ClemeResult. Either has .summary() (the --summary figures);
    metrics.span.format_results / metrics.cleme.format_cleme give the printed report."""
    from peet_fast.metrics import inputs as C
    from peet_fast.metrics.base import Comparison, configured, metric_class, metric_names

    edit_metrics = [n for n in metric_names() if metric_class(n).scores_edits]
    if metric not in edit_metrics:
        raise InputError("metric", f"must be {' or '.join(map(repr, edit_metrics))}, not {metric!r}")
    if cleme_mode not in ("dependent", "independent"):
        raise InputError("cleme_mode", f"must be 'dependent' or 'independent', not {cleme_mode!r}")
    _language(lang, tokenize)
    beta = A.number(beta, "beta", 0.0)
    filt = [str(f) for f in A.items(filt, "filt", "a list of error types")]
    for flag, value in (("single", single), ("multi", multi), ("cleme_weighted", cleme_weighted)):
        A.boolean(value, flag)
    scorer = configured(metric, {"mode": mode, "beta": beta, "single": single, "multi": multi, "filt": filt,
                                 "alignments": alignments, "cleme_mode": cleme_mode, "cleme_weighted": cleme_weighted})
    if src is None:
        if not isinstance(hyp, str) or not isinstance(ref, str):
            raise InputError("hyp", "without src, hyp and ref are M2 texts (one string each)")
        from peet_fast.formats.m2 import parse_m2, split_lines

        blocks = C.check_m2_pair(parse_m2(split_lines(hyp), "<hyp>"), parse_m2(split_lines(ref), "<ref>"),
                                 "<hyp>", "<ref>")
        given = Comparison(blocks, lang=lang)
    else:
        hyp_t = _lines(hyp, "hyp")
        src, refs_t = _targets(ref, src, "src")
        _aligned({"src": src, "hyp": hyp_t})
        given = Comparison(None, sources=src, hyp=hyp_t, refs=refs_t, lang=lang,
                           annotator=_annotators(lang, tokenize, options))
    return scorer.compare(given).result


@dataclass
class EvalResult:
    """What `evaluate` returns: `systems`, one row per system (in the order given) with a column per metric, its
    corpus score; `stats`, per metric per system the per-sentence statistics (metrics.base.Metric.sentence_stats:
    corpus_score(stats) is the figure); `metrics`, the Metric instances by name (their title, higher_is_better,
    corpus_score, bootstrap)."""
    systems: "pandas.DataFrame"
    stats: dict
    metrics: dict


def evaluate(hyps: Mapping[str, Sequence[str]], refs: Sequence[Sequence[str]] | None = None, *,
             src: Sequence[str] | None = None, gold: str | None = None, metrics: Sequence[str] = ("peet",),
             model: "str | Model | None" = None, tokenize: bool = False, spacy_model: str | None = None,
             batch_size: int = 256) -> EvalResult:
    """Every metric asked for (names of the registry, peet_fast.metric_names(): peet, wer, errant, ...) of every
    system, as `peet-fast rank --metric ...` computes them. hyps: system name -> its sentences. Either refs (a list
    of references, each line-aligned with the systems; src: the source sentences, for the metrics that need them)
    or gold: a gold M2 file's text (a string holding a newline) or its path, as m2score takes it, which supplies
    the sources and one reference per annotator (its corrected sentences; the metrics that read M2, such as m2,
    read it as is). model: the PEET model (file, Model, or None for the published one)."""
    from peet_fast.metrics.base import EvalSet, Metric
    from peet_fast.evaluation.inputs import EvalInputs
    from peet_fast.evaluation.rank import check_metric_inputs, metric_objects

    hyps = _systems(hyps, "hyps")
    if not hyps:
        raise InputError("hyps", "give at least one system")
    refs = None if refs is None else _references(refs, "refs")
    src = None if src is None else _lines(src, "src")
    pipeline = _pipeline(tokenize, spacy_model, batch_size)
    _check_model(model)
    metrics = A.items(metrics, "metrics", "a metric's name or a list of them (peet_fast.metric_names())")
    if not all(isinstance(m, (str, Metric)) for m in metrics):
        raise InputError("metrics", "must be metric names (peet_fast.metric_names()) or Metric instances")
    try:
        objs = metric_objects(metrics)
    except ValueError as exc:
        raise InputError("metrics", str(exc)) from None
    blocks = gold_path = gold_text = None
    if gold is not None:
        from peet_fast.formats.m2 import parse_m2, read_m2

        if refs is not None or src is not None:
            raise InputError("gold", "supplies the sources and references; leave out refs and src")
        if isinstance(gold, str) and "\n" in gold:           # M2 text, as m2score takes it
            gold_text = gold.removeprefix("\ufeff")
            blocks = parse_m2(gold_text.splitlines(), "<gold>")
        elif isinstance(gold, (str, os.PathLike)):
            gold_path = os.fspath(gold)
            blocks = read_m2(gold_path)
        else:
            raise InputError("gold", "must be a gold M2 file's text (a string holding a newline) or its path")
        if not blocks:
            raise InputError("gold", "no sentence blocks")
        made = EvalSet.from_gold(blocks, gold_path)
        refs, src = made.references, made.sources
    if not refs:
        raise InputError("refs", "give at least one reference (or a gold M2 text as gold)")
    named = {**{f"hyps[{n!r}]": h for n, h in hyps.items()}, **{f"refs[{k}]": r for k, r in enumerate(refs)}}
    if src is not None:
        named["src"] = src
    texts = list(_aligned(named).values())
    names = list(hyps)
    hyp_t, refs_t = texts[:len(names)], texts[len(names):len(names) + len(refs)]
    loaded = None
    if any(m.needs_model for m in objs):
        loaded = _loaded_model(model)
    annotator = _annotators("en", tokenize, pipeline)
    given = EvalInputs(hyp_t, refs_t, None if src is None else list(src), blocks, gold_path, [])
    data = EvalSet.from_files(given, annotator,
                              {"model": loaded, "lang": "en", **({"gold_text": gold_text} if gold_text else {})})
    try:
        check_metric_inputs(objs, data, src_hint="src (or a gold M2 text as gold)", gold_hint="a gold M2 text as gold")
    except ValueError as exc:
        raise InputError("metrics", str(exc)) from None
    stats = {m.name: dict(zip(names, m.system_stats(hyp_t, data))) for m in objs}
    import pandas as pd

    frame = pd.DataFrame({"system": names, **{m.name: [m.corpus_score(stats[m.name][n]) for n in names]
                                               for m in objs}})
    return EvalResult(frame, stats, {m.name: m for m in objs})
@dataclass(frozen=True)
class MetricInfo:
    """A metric of the registry as metric_names() lists it: its name, column title, direction and what it needs
    from the test set: "sources" (the source sentences), "gold" (a gold M2), "annotator" (a language's edit
    annotator, peet_fast.load: loaded when the metric is used)."""
    name: str
    title: str
    higher_is_better: bool
    needs: tuple


def metric_names() -> dict[str, MetricInfo]:
    """Every metric `rank --metric`, `compare --metric` and evaluate() take, in registry order: {name: MetricInfo}
    (iterating it, or `in`, gives the names). Imports each metric's module (not its heavy dependencies)."""
    from peet_fast.metrics.base import get_metric
    from peet_fast.metrics.base import metric_names as names

    out = {}
    for name in names():
        m = get_metric(name)
        needs = tuple(k for k, flag in (("sources", m.needs_sources), ("gold", m.needs_gold),
                                         ("annotator", m.needs_annotator)) if flag)
        out[name] = MetricInfo(name, m.title or name, m.higher_is_better, needs)
    return out


def gleu(sources: Sequence[str], references: Sequence[Sequence[str]] | Sequence[str],
         hypotheses: Sequence[str] | Mapping[str, Sequence[str]], *, n: int = 4, iterations: int = 500):
    """GLEU as `peet-fast gleu` (compute_gleu of cnap/gec-ranking, 2016 update) computes it. sources: the source
    sentences; references: a list of reference sets, each line-aligned with sources (a plain list of strings is one
    reference); hypotheses: one system's sentences, or a mapping of system name to sentences. n, iterations:
    compute_gleu's -n and --iter. Returns a metrics.gleu.GleuResult (a dict of them by name for a mapping):
    .score is the corpus GLEU compute_gleu prints ('%f'), .std/.low/.high its -d overall figures, .iterations each
    iteration's corpus GLEU, .sentences an (n, 4) array of each sentence's mean, deviation and 95% interval over
    the references (-d's sentence lines)."""
    from peet_fast.metrics import gleu as G

    G.check_options(n, iterations)
    sources = _lines(sources, "sources")
    references = _references(references, "references")
    refs = [references] if references and isinstance(references[0], str) else references
    if not refs:
        raise InputError("references", "give at least one reference")
    systems = (_systems(hypotheses, "hypotheses") if isinstance(hypotheses, Mapping)
               else {"hypotheses": _lines(hypotheses, "hypotheses")})
    if not systems:
        raise InputError("hypotheses", "give at least one system")
    named = {"sources": sources, **{f"references[{k}]": r for k, r in enumerate(refs)}}
    named.update({("hypotheses" if not isinstance(hypotheses, Mapping) else f"hypotheses[{name!r}]"): h
                  for name, h in systems.items()})
    refs = list(_aligned(named).values())[1:1 + len(refs)]
    prepared = G.References(G.tokens_of(sources), [G.tokens_of(r) for r in refs])
    picks = G.held_draws(prepared.n, prepared.n_refs, G.iterations_for(prepared.n_refs, iterations))
    selection = None if picks is None else G.selection_matrix(picks, prepared.n_refs)
    results = {name: G.score_system(prepared, G.tokens_of(h), n, iterations, picks=picks, selection=selection)
               for name, h in systems.items()}
    return results if isinstance(hypotheses, Mapping) else results["hypotheses"]
def m2score(hyp_lines: Sequence[str], gold: "str | os.PathLike", beta: float = 0.5, max_unchanged_words: int = 2,
            ignore_whitespace_casing: bool = False):
    """MaxMatch (M2) scores as the official NUS m2scorer 3.2 (`peet-fast m2scorer`): hyp_lines, one tokenised
    sentence per gold sentence; gold, a gold M2 file's path or its text (a string holding a newline). Returns a
    peet_fast.metrics.m2.M2Result: .precision, .recall, .f (F_beta, unrounded), .stats (per sentence the chosen
    annotator's tp, fp, fn; int array (n, 3)) and .annotators (the annotator chosen per sentence)."""
    from peet_fast.metrics.m2 import m2score as _m2score

    hyp_lines = _lines(hyp_lines, "hyp_lines")
    if not isinstance(gold, (str, os.PathLike)):
        raise InputError("gold", f"must be a gold M2 file's path or its text, not {type(gold).__name__}")
    A.integer(max_unchanged_words, "max_unchanged_words", 0)
    A.boolean(ignore_whitespace_casing, "ignore_whitespace_casing")
    return _m2score(hyp_lines, gold, beta=beta, max_unchanged_words=max_unchanged_words,
                    ignore_whitespace_casing=ignore_whitespace_casing)


def meta_eval(data: str | None = None, root: str | None = None, gold: str | None = None,
              system_set: str | None = None, *, model=None, spacy_model: str | None = None, batch_size: int = 256,
              share: bool = True, **own):
    """A meta-evaluation dataset as gec-metrics' MetaEvalSEEDA / MetaEvalGJG offer it: data "seeda" or "gjg15",
    root a clone of its repository (tmu-nlp/SEEDA; grammatical/evaluation), gold the CoNLL-14 gold M2's path (the
    references: its two annotators), system_set SEEDA's "base" (default), "+INPUT", "+REF-F_GPT-3.5" ("+fluency") or
    "all". Or a researcher's own data, by keyword instead of data and root: outputs ({system: path}), the references
    from gold (an M2) or from src and references (files), human (a system,score CSV) and/or judgments (an Appraise
    ranking XML), human_method, human_runs, seed, human_ignore, human_subset, src_base, tie_order
    (meta_eval.metric.own.load_own). Returns a peet_fast.meta_eval.metric.evaluator.MetaEval: .systems, .sources,
    .references, .hypotheses (system -> its sentences), .human, and corr_system(metric, aggregation=...),
    corr_sentence(metric), window_analysis(metric, window), pairwise_analysis(metric), compare(a, b),
    summary(metrics), each metric a registry name, a Metric, or plain scores ({system: score}; {system: [one per
    sentence]}), higher is better. Bad values (a missing or None gold, NaN or None scores, a negative bootstrap)
    raise InputError (a ValueError) naming the parameter and, for scores, the system
    (peet_fast.meta_eval.metric.scores)."""
    from peet_fast.meta_eval.metric.evaluator import meta_eval as _meta_eval

    return _meta_eval(data, root, gold, system_set, model=model, spacy_model=spacy_model, batch_size=batch_size,
                      share=share, **own)
