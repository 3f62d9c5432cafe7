"""A researcher's own meta-evaluation data (`peet-fast meta-eval --outputs ...`, ``peet_fast.meta_eval(outputs=...)``):
the systems' outputs, the references (a gold M2, whose S lines are the sources and whose annotators' corrections are
the references, or sources and reference files), and human system scores, from an Appraise ranking XML (Expected
Wins or TrueSkill of its judgments, as `human-rank` computes them) or from a `system,score` CSV (the file `rank
--human` reads, evaluation.inputs.read_human_csv). With judgments the sentence level is there too: the pairs of
outputs an annotator ranked differently, as for SEEDA and GJG15 (named ``sent``).

The systems are in the order given. At the sentence level a metric tie counts as a loss of the earlier system of a
pair (meta_eval.metric.sentence), earlier in the tie order: by default the systems' names sorted (code point order),
so that the figures do not depend on the order the outputs are given in; tie_order="outputs" takes the order given
instead (SEEDA's and GJG15's convention, for their releases given as own data in gec-metrics' order). Every output
has one line per sentence (read as meta_eval.metric.data.read_output reads the datasets' outputs). Bad input is an
InputError naming the file (and its line or ranking item), or the parameter."""
from __future__ import annotations

import os
from typing import Mapping, Sequence

from peet_fast.io import InputError, plural, shown
from peet_fast.io import arguments as A
from peet_fast.meta_eval.metric import data as D
from peet_fast.metrics.stats import MAX_SEED

HUMAN_METHODS = ("ew", "ts")
TIE_ORDERS = ("name", "outputs")      # a metric tie: a loss of the system whose name sorts first / given first


def _path(param: str, value) -> str:
    if not isinstance(value, (str, os.PathLike)):
        raise InputError(param, f"{type(value).__name__} is not a path")
    return os.fspath(value)


# load_own's parameters (and peet_fast.meta_eval's own-data keywords), options being those of OPTIONS
OPTIONS = {"human_runs": 1000, "human_ignore": (), "human_subset": False, "src_base": None, "seed": 0, "names": None,
           "tie_order": "name"}
PARAMETERS = ("outputs", "src", "references", "judgments", "human", "human_method", *OPTIONS)


def load_own(outputs: Mapping[str, str], gold: str | None = None, src: str | None = None,
             references: Sequence[str] = (), judgments: str | None = None, human: str | None = None,
             human_method: str = "ew", **options) -> D.Dataset:
    """The Dataset (name "own") of outputs ({system: path}, in the systems' order), with the sources and references
    of `gold` (an M2) or of `src` and `references` (text files), the judgments at `judgments` (an Appraise ranking
    XML; src_base as human-rank's: None guesses) and the human system scores: `human` (a system,score CSV; its
    rows naming no output are an error unless in human_ignore or human_subset) or, without it, those of the
    judgments by human_method ("ew": Expected Wins; "ts": TrueSkill, the mean mu of human_runs runs from seed).
    tie_order: "name" (default) or "outputs", the sentence level's tie order (see the module docstring).
    names: how the CSV's messages name human_subset and human_ignore (a command line's flags). options: those
    of OPTIONS (their defaults there)."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise TypeError(f"load_own() got an unexpected keyword argument {unknown[0]!r}")
    options = {**OPTIONS, **options}
    references = A.items(references, "references", "a list of reference files")     # a path alone: one reference
    options["human_ignore"] = [str(v) for v in A.items(options["human_ignore"], "human_ignore", "a list of names")]
    A.boolean(options["human_subset"], "human_subset")
    A.integer(options["seed"], "seed", 0, MAX_SEED)
    if options["src_base"] not in (None, 0, 1) or isinstance(options["src_base"], bool):
        raise InputError("src_base", f"must be 0, 1 or None (guessed), not {options['src_base']!r}")
    runs = options["human_runs"]
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= 100_000:
        raise InputError("human_runs", f"{runs!r}: TrueSkill takes 1 to 100,000 runs (GJG15: 1000)")
    if not isinstance(outputs, Mapping) or not outputs:
        raise InputError("outputs", "give the systems' outputs: {system: path}")
    systems = [str(n) for n in outputs]
    paths = {str(n): _path("outputs", p) for n, p in outputs.items()}
    if len(systems) < 3:
        raise InputError("outputs", f"a correlation needs at least 3 systems; {len(systems)} given")
    if options["tie_order"] not in TIE_ORDERS:
        raise InputError("tie_order", f"{options['tie_order']!r} is not one of {', '.join(TIE_ORDERS)}")
    if human_method not in HUMAN_METHODS:
        raise InputError("human_method", f"{human_method!r} is not one of {', '.join(HUMAN_METHODS)}")
    if judgments is None and human is None:
        raise InputError("human", "give the human judgments, or human system scores (a system,score CSV), or both")
    blocks = None
    if gold is not None:
        if src is not None or references:
            raise InputError("gold", "give either a gold M2 or src and references, not both")
        gold = _path("gold", gold)
        if not os.path.isfile(gold):
            raise InputError(gold, "no such file (the gold M2)")
        blocks, refs = D._gold(gold)
        sources = [" ".join(b.source) for b in blocks]
        where = f"the gold M2 {gold} has {len(blocks)} sentence blocks"
    else:
        if src is None or not references:
            raise InputError("references", "give a gold M2, or src and references (reference files)")
        src = _path("src", src)
        sources = D.read_output(src) if os.path.isfile(src) else _missing(src, "the sources")
        refs = []
        for r in references:
            r = _path("references", r)
            lines = D.read_output(r) if os.path.isfile(r) else _missing(r, "a reference")
            if len(lines) != len(sources):
                raise InputError(r, f"has {plural(len(lines), 'line')} but the sources {src} have {len(sources)}")
            refs.append(lines)
        where = f"the sources {src} have {len(sources)}"
    n = len(sources)
    hyps = {}
    for name in systems:
        hyps[name] = D.read_output(paths[name])
        if len(hyps[name]) != n:
            raise InputError(paths[name], f"has {plural(len(hyps[name]), 'line')} (system {shown(name)!r}) but "
                                          f"{where}")
    rankings = None
    if judgments is not None:
        from peet_fast.meta_eval.human.judgments import read_judgments

        judgments = _path("judgments", judgments)
        rankings = read_judgments(D._bounded(judgments), options["src_base"], n, systems)
        from peet_fast.meta_eval.human.ranking import judged_pairs

        judged_pairs(rankings, [s for s in systems if s in rankings.systems])      # no untied pair: refused
    scores = {}
    if human is not None:
        from peet_fast.evaluation.inputs import read_human_csv

        human = _path("human", human)
        got = read_human_csv(human, systems, options["human_ignore"], options["human_subset"], options["names"]).scores
        missing = [s for s in systems if s not in got]
        if missing:
            raise InputError(human, f"no score for the system{'s' if len(missing) > 1 else ''} "
                                    f"{', '.join(map(repr, missing))} (every output needs a human score)")
        scores["human"] = {s: got[s] for s in systems}
    else:
        from peet_fast.meta_eval.human.ranking import human_rank

        unjudged = [s for s in systems if s not in rankings.systems]
        if unjudged:
            raise InputError(judgments, f"ranks no output of system {shown(unjudged[0])!r}: it has no human score "
                                        "(give human scores as a CSV, or leave its output out)")
        ranked = human_rank(rankings, human_method, 0 if human_method == "ew" else options["human_runs"],
                            options["seed"], sorted(systems))               # TrueSkill's draws: whatever the order
        scores[human_method] = {s.name: s.score for s in ranked.systems}
        scores[human_method] = {s: scores[human_method][s] for s in systems}
    lines = list(range(n))
    judged = {} if rankings is None else {"sent": rankings.restricted({i: i for i in lines}, systems)}
    return D.Dataset("own", "own", systems, lines, list(sources), refs, hyps, scores, judged,
                     None if blocks is None else list(blocks), gold,
                     sorted(systems) if options["tie_order"] == "name" else list(systems))


def _missing(path: str, what: str):
    raise InputError(path, f"no such file ({what})")
