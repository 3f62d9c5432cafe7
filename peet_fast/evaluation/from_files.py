"""rank_files: `rank` and `report` from what their command line names (files, metric names, options), in one
descent: the inputs are read and checked (evaluation.inputs, metrics' needs), then every system is scored and ranked
(evaluation.rank.rank_systems). The command line keeps only what is its own: the annotator's options, progress and
messages, passed in as callables."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Callable, Sequence

from peet_fast.io import InputError, lines_located
from peet_fast.languages import Annotators


@dataclass
class RankRequest:
    """What a rank/report command line names, as plain values: hypothesis specs (PATH or NAME=PATH; with names,
    paths), references (text files, with src the sources; or one gold M2), the metrics (registry names or Metric
    instances), the PEET model file (None: the published model), the human scores CSV with the rows to ignore and
    whether the ranked systems are a subset of its systems, and the bootstrap's resamples and seed."""
    hyps: Sequence[str]
    refs: Sequence[str]
    names: Sequence[str] | None = None
    src: str | None = None
    metrics: Sequence = ("peet",)
    model: str | None = None
    human: str | None = None
    human_ignore: Sequence[str] = ()
    human_subset: bool = False
    bootstrap: int = 1000
    seed: int = 0


@dataclass
class RankHooks:
    """What the caller keeps for itself: check_texts(columns) sees every (file, lines) read before scoring
    (untokenised-input warnings); progress(total) is a context manager returning a callable(lines done); notice(text)
    shows one line to the user (rows of the human scores left out); hints: how the caller names the sources and the
    gold M2 in a metric's refusal (check_metric_inputs); names: how the messages name the request's fields."""
    check_texts: Callable | None = None
    progress: Callable | None = None
    notice: Callable[[str], None] | None = None
    hints: tuple = ("src (or a gold M2 as the reference)", "a gold M2 as the reference")
    names: dict | None = None       # how messages name the references, sources, ... (evaluation.inputs.NAMES)


def rank_files(request: RankRequest, annotators: Annotators | None = None, hooks: RankHooks | None = None):
    """(Ranking, model) of a RankRequest. annotators: the annotator's memoised factory (called at once when PEET is
    among the metrics, else when a metric needs it). Bad input: InputError naming the file or the request's field
    (metrics)."""
    from peet_fast.evaluation.inputs import read_eval_inputs, read_human_csv
    from peet_fast.evaluation.rank import MetricInputsError, RankOptions, metric_objects, rank_systems
    from peet_fast.formats.systems import named_systems
    from peet_fast.metrics.base import EvalSet
    from peet_fast.peet.model import load_model

    req, hooks = request, hooks if hooks is not None else RankHooks()
    try:
        objs = metric_objects(req.metrics)
    except ValueError as exc:
        raise InputError("metrics", str(exc)) from None
    uses_peet = any(m.needs_model for m in objs)
    model = load_model(req.model) if uses_peet or req.model else None
    system_names, paths = named_systems(req.hyps, req.names)
    human = None
    if req.human:
        human, skipped = read_human_csv(req.human, system_names, req.human_ignore, req.human_subset, hooks.names)
        if skipped and hooks.notice is not None:
            hooks.notice(f"{len(skipped)} system{'s' if len(skipped) > 1 else ''} of {req.human} "
                         f"not ranked, left out: {', '.join(skipped)}")
    data = read_eval_inputs(paths, req.refs, req.src, hooks.names)
    columns = [*zip(paths, data.hyps), *data.columns]
    if hooks.check_texts is not None:
        hooks.check_texts(columns)
    located = columns if data.gold is None else columns[:len(paths)]      # an M2's lines are not its sentences
    if annotators is None:
        annotators = Annotators.given(None)
    if uses_peet:
        annotators()
    n = len(data.references[0])
    meter = hooks.progress(n) if hooks.progress is not None else contextlib.nullcontext(lambda n: None)
    try:
        with meter as advance, lines_located(located), _phases(advance, annotators if uses_peet else None, n) as rows:
            test_set = EvalSet.from_files(data, annotators,
                                          {"model": model, "on_chunk": lambda ch: rows.advance(ch.stop), "lang": "en"})
            options = RankOptions(req.bootstrap, req.seed, human, system_names, hints=hooks.hints,
                                  on_phase=rows.phase)
            ranking = rank_systems(test_set, paths, data.hyps, objs, options)
    except MetricInputsError as exc:
        raise InputError("metrics", str(exc)) from None
    return ranking, model


@contextlib.contextmanager
def _phases(advance, annotators, lines: int):
    """The progress of a ranking, as `score` shows it: PEET's lines done (jobs.worker.RowMeter: per chunk, and inside
    a chunk its share of the sentences parsed) through advance(lines); where advance has stage(name, total, unit,
    parse) (cli._progress.Progress), each metric and the bootstrap are a stage of their own, in order."""
    from peet_fast.jobs.worker import RowMeter
    from peet_fast.peet.scoring import DEFAULT_CHUNK

    meter = RowMeter(annotators() if annotators is not None else None, lines, DEFAULT_CHUNK, lambda rows: None)
    stage = getattr(advance, "stage", None)

    def phase(metric) -> None:
        counts_lines = metric is not None and metric.needs_model        # PEET: lines scored, as `score` counts
        if stage is not None:
            stage("bootstrap" if metric is None else metric.name, lines if counts_lines else None,
                  "lines", not counts_lines)
        meter.report = advance if counts_lines else (lambda rows: None)

    meter.phase = phase
    with meter:
        yield meter
