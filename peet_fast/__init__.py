"""peet-fast: ERRANT-exact edit extraction with a compiled core, and PEET post-editing-time scoring for GEC output.

Imports are lazy: ``import peet_fast`` loads neither spaCy, Ray, matplotlib nor pypinyin."""
from __future__ import annotations

__version__ = "0.1.0"

from peet_fast.languages import LANGS, load

_LAZY = {"Annotator": "peet_fast.en", "Edit": "peet_fast.en", "MERGE_STRATEGIES": "peet_fast.en",
         "Parser": "peet_fast.en", "load_pipeline": "peet_fast.en", "ZhAnnotator": "peet_fast.zh",
         # the Python API (peet_fast.api): the commands on lists of strings
         "score": "peet_fast.api", "m2": "peet_fast.api", "edits": "peet_fast.api", "compare": "peet_fast.api",
         "ScoreResult": "peet_fast.api", "gleu": "peet_fast.api", "evaluate": "peet_fast.api",
         "EvalResult": "peet_fast.api", "m2score": "peet_fast.api",
         "metric_names": "peet_fast.api", "MetricInfo": "peet_fast.api", "get_metric": "peet_fast.metrics.base"}
__all__ = [*_LAZY, "LANGS", "load", "__version__"]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'peet_fast' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
