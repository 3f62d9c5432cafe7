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


def _compiled(package_dir: str) -> bool:
    """Whether a peet_fast directory holds its compiled kernels (_ext/*.so): a source checkout that was never built
    (or a copy of one, as `ray job submit --working-dir` uploads it: .gitignore leaves the .so files out) does not."""
    import importlib.machinery
    import os

    try:
        names = os.listdir(os.path.join(package_dir, "_ext"))
    except OSError:
        return True                   # not a layout this check knows: leave the import as it is
    return any(n.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) for n in names)


def _use_the_compiled_copy() -> None:
    """Where this peet_fast is a source copy without its compiled kernels and another peet_fast on the import path
    has them (the installed one), this import becomes that one (issue 41): `ray job submit --working-dir CHECKOUT`
    puts the uploaded copy first on every job process's path, where it used to shadow the installed package with an
    ImportError traceback. Silent inside a Ray job's uploaded working directory (the documented behaviour); one line
    on stderr elsewhere (an unbuilt checkout as the current directory). Nothing happens where no such copy exists."""
    import importlib.machinery
    import importlib.util
    import os
    import sys

    here = os.path.dirname(os.path.realpath(__file__))
    if _compiled(here):
        return
    parent = os.path.dirname(here)
    path = [p for p in sys.path if os.path.realpath(p or os.curdir) != parent]
    finders = [lambda: importlib.machinery.PathFinder.find_spec(__name__, path)]
    finders += [(lambda f=f: f.find_spec(__name__, None)) for f in sys.meta_path
                if f is not importlib.machinery.PathFinder and hasattr(f, "find_spec")]
    for find in finders:
        try:
            spec = find()
        except Exception:            # a foreign finder's trouble is no reason to fail this import
            continue
        origin = getattr(spec, "origin", None)
        if not origin or os.path.dirname(os.path.realpath(origin)) == here:
            continue
        if not _compiled(os.path.dirname(origin)):
            continue
        if "runtime_resources" not in here.split(os.sep):
            print(f"peet_fast: {here} has no compiled kernels (a source checkout never built); using the installed "
                  f"peet_fast at {os.path.dirname(origin)}", file=sys.stderr)
        module = importlib.util.module_from_spec(spec)
        sys.modules[__name__] = module          # what `import peet_fast` returns (the import system re-reads it)
        spec.loader.exec_module(module)
        return


_use_the_compiled_copy()
