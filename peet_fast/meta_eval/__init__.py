"""Meta-evaluation, in two subpackages:

- ``peet_fast.meta_eval.human``: **human rankings**. The one Appraise ranking-XML reader (human.judgments: ranking
  items, their pairwise judgments), Expected Wins (human.expected_wins), TrueSkill (human.trueskill), bootstrap rank
  ranges and clusters (human.clusters) and the systems ranked from judgments (human.ranking: `peet-fast human-rank`).
  Imports io, _ext and formats only.
- ``peet_fast.meta_eval.metric``: **metric meta-evaluation**. The datasets (metric.data: SEEDA, GJG15; metric.own:
  a researcher's own outputs, judgments and human scores), a metric's
  system-, window- and sentence-level agreement with the humans (metric.system, metric.sentence), their intervals
  and tests (metric.significance), the evaluator behind `peet-fast meta-eval` and ``peet_fast.meta_eval(...)``
  (metric.evaluator) and its plots (metric.plots). Reads its judgments through human.judgments.

May import metrics, evaluation, peet, jobs, io and formats; never cli/api."""

import sys as _sys
import types as _types


class _Package(_types.ModuleType):
    """The package is also peet_fast.meta_eval(...), the API function (the import system puts the package where
    peet_fast's lazy attribute of that name would be)."""

    def __call__(self, *args, **kwargs):
        from peet_fast.meta_eval.metric.evaluator import meta_eval

        return meta_eval(*args, **kwargs)


_sys.modules[__name__].__class__ = _Package
