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

import contextlib
import contextvars
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


# Entries a PairMemo holds at most, over all its tables (cleared when full: a memo never outgrows this, however many
# distinct pairs pass through: about 2 KB each, 55 MB at most; a meta-evaluation of SEEDA holds 6,200 entries,
# GJG15 16,600).
PAIR_MEMO_ENTRIES = 25_000


class PairMemo:
    """A bounded memo of annotated (orig, cor) pairs, shared by the metrics of one run (a meta-evaluation's dataset:
    errant, senterrant, gotoscorer and cleme all annotate the same SRC -> hypothesis pairs). It is active only inside
    ``remembering(memo)`` and lives as long as its owner keeps it (meta_eval's MetaEval: dropped with it). Per
    annotator object (its options decide the edits) a copy of the pair's Annotation; ``recall`` hands out a fresh
    copy, so that no caller sees another's lists. Other owners keep tables of their own in it (``table(owner)``,
    ``put``: the M2 lattice's edit sequences of a (hypothesis, source) pair, which m2 and sentm2 both need). Holds
    at most ``max_entries`` entries over all its tables: cleared when full."""

    def __init__(self, max_entries: int = PAIR_MEMO_ENTRIES):
        self.max_entries = max_entries
        self._tables: dict[int, tuple[object, dict]] = {}   # id(annotator) -> (annotator, {(orig, cor): entry})
        self.size = 0
        self.hits = 0

    def table(self, annotator) -> dict:
        """The memo of one annotator (kept with it, so that its id names it while the memo lives)."""
        got = self._tables.get(id(annotator))
        if got is None or got[0] is not annotator:
            got = self._tables[id(annotator)] = (annotator, {})
        return got[1]

    def put(self, table: dict, key, value) -> None:
        """table[key] = value, clearing every table first when the memo is full."""
        if self.size >= self.max_entries:
            for _, t in self._tables.values():
                t.clear()
            self.size = 0
        if key not in table:
            self.size += 1
        table[key] = value

    def store(self, table: dict, key: tuple, ann: "Annotation") -> None:
        self.put(table, key, _copied(ann))

    @staticmethod
    def recall(entry: "Annotation") -> "Annotation":
        return _copied(entry)


def _copied(ann: "Annotation") -> "Annotation":
    """A copy of an Annotation sharing no list with it (its tuples and edits are immutable: kept; each list's type
    is kept too, so that a recalled Annotation equals the one annotated, type for type)."""
    def copy(x):
        return x if isinstance(x, tuple) else list(x)

    return Annotation(copy(ann.source), copy(ann.target), ann.kind,
                      type(ann.alignments)(copy(a) for a in ann.alignments))


_PAIR_MEMO: contextvars.ContextVar = contextvars.ContextVar("peet_fast_pair_memo", default=None)


@contextlib.contextmanager
def remembering(memo: PairMemo | None):
    """Inside: the annotators (English and Chinese, through recalled_pairs) recall pairs they annotated before from
    ``memo`` (None: none). Results are the same with and without it."""
    token = _PAIR_MEMO.set(memo)
    try:
        yield memo
    finally:
        _PAIR_MEMO.reset(token)


def pair_memo() -> PairMemo | None:
    """The PairMemo active here (remembering), or None."""
    return _PAIR_MEMO.get()


def recalled_pairs(owner, origs: Sequence[str], cors: Sequence[str], annotate, variant=None) -> list:
    """``annotate(origs, cors)`` (one Annotation per pair, each depending on that pair alone), with the pairs the
    active PairMemo (remembering) holds for ``owner`` recalled instead of annotated again: each distinct pair not
    held is annotated once (a pair given twice in one batch too), in one call, and stored. ``variant`` (a
    hashable: e.g. the alignment strategy) joins the key where the owner annotates a pair in more than one way.
    Without an active memo: ``annotate(origs, cors)``. The one memo code of every language's annotate_pairs."""
    memo = pair_memo()
    if memo is None:
        return annotate(origs, cors)
    table = memo.table(owner)           # pairs annotated before in this run
    keys = [(o, c) if variant is None else (o, c, variant) for o, c in zip(origs, cors)]
    out: list = [None] * len(keys)
    todo: dict = {}                     # key -> its first index
    for k, key in enumerate(keys):
        entry = table.get(key)
        if entry is not None:
            out[k] = memo.recall(entry)
            memo.hits += 1
        elif key not in todo:
            todo[key] = k
    if todo:
        firsts = list(todo.values())
        for k, ann in zip(firsts, annotate([origs[k] for k in firsts], [cors[k] for k in firsts])):
            out[k] = ann
            memo.store(table, keys[k], ann)
        for k, key in enumerate(keys):
            if out[k] is None:
                out[k] = memo.recall(out[todo[key]])
    return out


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
