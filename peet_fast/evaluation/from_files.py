"""rank_files: `rank` and `report` from what their command line names (files, metric names, options), in one
descent: the inputs are read and checked (evaluation.inputs, metrics' needs), then every system is scored and ranked
(evaluation.rank.rank_systems). The command line keeps only what is its own: the annotator's options, progress and
messages, passed in as callables."""
from __future__ import annotations

import contextlib
from typing import Callable, Sequence

from peet_fast.io import InputError, lines_located


def rank_files(hyp_specs: Sequence[str], ref_paths: Sequence[str], *, names: Sequence[str] | None = None,
               src: str | None = None, metrics: Sequence[str] = ("peet",), model_path: str | None = None,
               human_path: str | None = None, human_ignore: Sequence[str] = (), human_subset: bool = False,
               bootstrap: int = 1000, seed: int = 0, annotator: Callable | None = None,
               check_texts: Callable | None = None, progress: Callable | None = None,
               notice: Callable[[str], None] | None = None):
    """(Ranking, model) of hypothesis specs (PATH or NAME=PATH; with names, paths) against references (text files,
    with src the sources; or one gold M2). annotator: a callable returning the annotator (called at once when PEET
    is among the metrics, else when a metric needs it); check_texts(columns): sees every (file, lines) read before
    scoring (untokenised-input warnings); progress(total): a context manager returning a callable(lines done);
    notice(text): one line for the user (rows of the human scores left out). Bad input: InputError."""
    from peet_fast.evaluation.inputs import read_eval_inputs, read_human_csv
    from peet_fast.evaluation.rank import MetricInputsError, metric_objects, rank_systems
    from peet_fast.formats.systems import named_systems
    from peet_fast.peet.model import load_model

    try:
        objs = metric_objects(metrics)
    except ValueError as exc:
        raise InputError("--metric", str(exc)) from None
    uses_peet = any(m.name == "peet" for m in objs)
    model = load_model(model_path) if uses_peet or model_path else None
    system_names, paths = named_systems(hyp_specs, names)
    human = None
    if human_path:
        human, skipped = read_human_csv(human_path, system_names, human_ignore, human_subset)
        if skipped and notice is not None:
            notice(f"--human-subset: {len(skipped)} system{'s' if len(skipped) > 1 else ''} of {human_path} not "
                   f"ranked, left out: {', '.join(skipped)}")
    data = read_eval_inputs(paths, ref_paths, src)
    columns = [*zip(paths, data.hyps), *data.columns]
    if check_texts is not None:
        check_texts(columns)
    located = columns if data.gold is None else columns[:len(paths)]      # an M2's lines are not its sentences
    load = annotator if annotator is not None else (lambda: None)
    meter = progress(len(data.references[0])) if progress is not None else contextlib.nullcontext(lambda n: None)
    try:
        with meter as advance, lines_located(located):
            ranking = rank_systems(load() if uses_peet else load, model, paths, data.hyps, data.references,
                                   bootstrap, seed, human, on_chunk=lambda ch: advance(ch.stop), names=system_names,
                                   metrics=objs, sources=data.sources, gold=data.gold, gold_path=data.gold_path,
                                   hints=("--src SRC (or a gold M2 as --ref)", "a gold M2 as --ref"))
    except MetricInputsError as exc:
        raise InputError("--metric", str(exc)) from None
    return ranking, model
