"""The language registry and the interface every language's annotator implements.

A language is a package (``peet_fast/en/``, ``peet_fast/zh/``) plus one entry in REGISTRY. The package's face
defines ``load(**options)``, which returns its annotator; ``OPTIONS``, the names of those options; ``SPAN_RULES``,
the keyword options span-based scoring takes for it (see peet_fast.metrics.span); and ``ENSEMBLE_OPTIONS``, the
annotator options the ensemble needs (e.g. no conversion of the outputs). Consumers (``m2``, ``compare``, ``ensemble``, ``excgec``) receive an
annotator and never branch on the language:

- ``annotator.annotate_pairs(origs, cors, alternatives=True)`` -> one Annotation per pair: the source tokens as an
  M2 ``S`` line writes them, the target tokens, a kind ("edits", "noop" or "NA": a target the language marks as not
  annotatable) and the alignments, each a list of SpanEdit (one alignment, or every minimum-cost alternative when
  the language has several and ``alternatives`` is true). A noop / NA pair has one alignment holding one edit
  ``(-1, -1, kind, "-NONE-")``.
- ``annotator.write_m2(out, sources, targets, progress=None, name=...)`` writes the language's M2 layout for each
  source line and its targets (a list per line); returns the number of blocks.
- ``annotator.relaxed(edit, source_tokens)``: whether an edit is one the ensemble keeps with fewer votes (word order
  and spelling edits).
- ``annotator.joiner``: the string that joins tokens back into text ("" or " "); ``annotator.scheme``: a short
  name of its annotation scheme for messages.
- ``annotator.skips_blank_sources``: whether the language's official pipeline drops a blank source line (errant_parallel
  writes no block for it, so errant_compare never scores it); the one-step scorers (``compare --src``,
  ``agreement``) then leave such lines out too (peet_fast.metrics.inputs.scored_lines).

Imports are lazy: nothing here loads a language until it is asked for."""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import NamedTuple, Protocol, Sequence, TextIO

REGISTRY = {"en": "peet_fast.en", "zh": "peet_fast.zh"}
LANGS = tuple(REGISTRY)


class SpanEdit(NamedTuple):
    """One edit as an M2 ``A`` line has it: source tokens [start, end) -> cor (the correction tokens joined by single
    spaces; ``-NONE-`` for a deletion where the language writes it so), with its error type."""
    start: int
    end: int
    type: str
    cor: str


class Annotation(NamedTuple):
    """The edits of one (orig, cor) pair; see the module docstring."""
    source: list
    target: list
    kind: str
    alignments: list


class Annotator(Protocol):
    lang: str
    joiner: str
    scheme: str
    skips_blank_sources: bool

    def annotate_pairs(self, origs: Sequence[str], cors: Sequence[str], *,
                       alternatives: bool = True) -> list[Annotation]: ...

    def write_m2(self, out: TextIO, sources: Sequence[str], targets: Sequence[Sequence[str]], *, progress=None,
                 name: str = "<input>") -> int: ...

    def relaxed(self, edit: SpanEdit, source_tokens: Sequence[str]) -> bool: ...


def language(lang: str) -> ModuleType:
    """The package of a registered language (imported on first use); ValueError for an unknown code."""
    module = REGISTRY.get(lang)
    if module is None:
        raise ValueError(f"unknown language {lang!r}; choose from {', '.join(LANGS)}")
    return importlib.import_module(module)


def load(lang: str = "en", **options) -> Annotator:
    """The annotator of a language: ``load("en", tokenise=True)``, ``load("zh", cilin=..., confusion=...)``. The
    options are the language annotator's own (see peet_fast.en.Annotator and peet_fast.zh.ZhAnnotator)."""
    return language(lang).load(**options)


def span_rules(lang: str) -> dict:
    """The span-scoring rules of a language (fields of peet_fast.metrics.span.SpanOptions)."""
    return dict(language(lang).SPAN_RULES)


class Annotators:
    """The one way an annotator travels: a memoised factory, handed down as an object. ``Annotators("en",
    {"batch_size": 64})`` is called where the annotator is needed (``annotators()``) and loads it on the first call
    only. With ``shared=True`` every shared factory of the same language and options in the process uses one annotator
    (one spaCy pipeline for every dataset or API call; options holding a callable are never shared).

    ``Annotators.given(annotator)`` hands down an annotator already loaded; ``Annotators.refusing(error)`` is a
    factory whose options were refused: it raises ``error`` when the annotator is first asked for (a run that never
    needs an annotator never sees it)."""
    _shared: dict = {}

    def __init__(self, lang: str = "en", options: dict | None = None, *, shared: bool = False):
        self.lang, self.options, self.shared = lang, dict(options or {}), shared
        self._loaded = None
        self._ready = False
        self._error: Exception | None = None

    @classmethod
    def given(cls, annotator: Annotator) -> "Annotators":
        made = cls(getattr(annotator, "lang", "en"))
        made._loaded, made._ready = annotator, True
        return made

    @classmethod
    def refusing(cls, error: Exception) -> "Annotators":
        made = cls()
        made._error = error
        return made

    def with_options(self, **options) -> "Annotators":
        """A new factory of the same language with these options added (a refusing one stays refusing)."""
        made = Annotators(self.lang, {**self.options, **options}, shared=self.shared)
        made._error = self._error
        return made

    def _key(self):
        if not self.shared or any(callable(v) for v in self.options.values()):
            return None
        key = (self.lang, tuple(sorted(self.options.items())))
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def __call__(self) -> Annotator:
        if self._error is not None:
            raise self._error
        if not self._ready:
            key = self._key()
            if key is not None and key in Annotators._shared:
                self._loaded = Annotators._shared[key]
            else:
                self._loaded = load(self.lang, **self.options)
                if key is not None:
                    Annotators._shared[key] = self._loaded
            self._ready = True
        return self._loaded
