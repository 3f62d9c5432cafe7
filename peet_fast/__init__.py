"""peet-fast: ERRANT-exact edit extraction with a compiled core, and PEET post-editing-time scoring for GEC output.

The package's face: every public name is lazy (``import peet_fast`` imports none of the package's modules, so any
floor may read ``__version__``; it loads neither spaCy, Ray, matplotlib nor pypinyin). The floors, from the ground
up (docs/design.md; tests/test_imports.py keeps imports pointing down):

- ``io``, ``cache``, ``formats``: files, the parse cache, the file formats (the ground floor);
- ``languages``, ``en``, ``zh``: the language registry and the languages;
- ``metrics``: one module per metric, the registry, statistics;
- ``peet``: the PEET model; ``jobs``: sharded, resumable runs (the only place that knows Ray);
- ``evaluation``: many systems at once (rank, report, agreement, ensemble, EXCGEC); ``meta_eval``: human judgments;
- ``api``: the Python API; ``cli``: one thin module per command."""
from __future__ import annotations

__version__ = "0.1.0"

_LAZY = {"LANGS": "peet_fast.languages", "load": "peet_fast.languages",
         "Annotator": "peet_fast.en", "Edit": "peet_fast.en", "MERGE_STRATEGIES": "peet_fast.en",
         "Parser": "peet_fast.en", "load_pipeline": "peet_fast.en", "ZhAnnotator": "peet_fast.zh",
         # the Python API (peet_fast.api): the commands on lists of strings
         "score": "peet_fast.api", "m2": "peet_fast.api", "edits": "peet_fast.api", "compare": "peet_fast.api",
         "ScoreResult": "peet_fast.api", "gleu": "peet_fast.api", "evaluate": "peet_fast.api",
         "EvalResult": "peet_fast.api", "m2score": "peet_fast.api",
         "metric_names": "peet_fast.api", "MetricInfo": "peet_fast.api", "get_metric": "peet_fast.metrics.base",
         "meta_eval": "peet_fast.api"}
__all__ = [*_LAZY, "__version__"]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'peet_fast' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value          # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
