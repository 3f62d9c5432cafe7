"""Meta-evaluation: human system rankings from annotators' judgments (Expected Wins, TrueSkill, bootstrap rank
clusters) and metrics' system-, window- and sentence-level agreement with them (SEEDA, GJG15). May import metrics,
evaluation, peet, jobs, io and formats; never cli/api."""

import sys as _sys
import types as _types


class _Package(_types.ModuleType):
    """The package is also peet_fast.meta_eval(...), the API function (the import system puts the package where
    peet_fast's lazy attribute of that name would be)."""

    def __call__(self, *args, **kwargs):
        from peet_fast.meta_eval.evaluator import meta_eval

        return meta_eval(*args, **kwargs)


_sys.modules[__name__].__class__ = _Package
