"""The signature of a metric figure (as sacrebleu's ``BLEU|nrefs:1|case:mixed|...|version:2.x``): one line that says
how to reproduce it, e.g.

    m2|beta:0.5|max_unchanged_words:2|ignore_whitespace_casing:no|refs:m2|nrefs:2|tok:given|nlp:none|version:0.1.0

Fields, in order (docs/metrics.md, "Signatures"): the metric's name; every field of its Config (Metric.Config) as
``field:value`` (yes/no for a switch, none for no value, numbers as Python's ``g`` format, a tuple joined by commas
or ``-`` when empty, a file by the first 8 hex digits of the SHA-256 of its bytes, never by its name); what the
metric adds (Metric.signed: PEET's model); ``refs`` (text: reference sentences; m2: a gold M2, one reference per
annotator); ``nrefs`` (how many); ``tok`` (given: the text's own tokens; spacy: tokenised by the pipeline, -tok);
``nlp`` (the language pipeline and its version, with spaCy's major.minor: ``en_core_web_sm-3.8.0+spacy-3.8``; ``none``
for a metric that parses nothing); ``version`` (peet-fast's). A meta-evaluation adds its dataset, system set, human
method and a digest of the judgments (meta_fields). Nothing in it depends on where files are or when it ran."""
from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import os
from dataclasses import fields

from peet_fast import __version__
from peet_fast.metrics.config import kind_of


def digest(data: bytes) -> str:
    """The first 8 hex digits of data's SHA-256."""
    return hashlib.sha256(data).hexdigest()[:8]


def _file_digest(path) -> str:
    """A file's digest, read in blocks by the input layer ("unread" where it cannot be read)."""
    from peet_fast.io import InputError
    from peet_fast.io.read import read_blocks

    sha = hashlib.sha256()
    try:
        for block in read_blocks(path, 1 << 20, 1 << 62, "file signed"):
            sha.update(block)
    except InputError:
        return "unread"
    return sha.hexdigest()[:8]


def _value(kind: str, value) -> str:
    if value is None:
        return "none"
    if kind == "path":
        return _file_digest(value) if isinstance(value, (str, os.PathLike)) else digest(repr(value).encode())
    if kind == "paths":
        parts = [_file_digest(v) if isinstance(v, (str, os.PathLike)) else digest("\n".join(v).encode())
                 for v in value]
        return ",".join(parts) or "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return format(value, "g")
    if isinstance(value, (tuple, list)):
        return ",".join(_value("", v) for v in value) or "-"
    return str(value)


def config_fields(metric) -> dict:
    """{field: signed value} of the metric's Config (Metric.settings)."""
    settings = metric.settings
    return {f.name: _value(kind_of(f), getattr(settings, f.name)) for f in fields(settings)}


@functools.lru_cache(maxsize=None)
def _version(distribution_of: str) -> str | None:
    """The installed version of the distribution providing the module named (its own name first: a pipeline
    package's distribution is named as its module), or None."""
    try:
        return importlib.metadata.version(distribution_of)
    except importlib.metadata.PackageNotFoundError:
        pass
    for name in importlib.metadata.packages_distributions().get(distribution_of) or ():
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


@functools.lru_cache(maxsize=None)
def pipeline(lang: str = "en", spacy_model: str | None = None) -> str:
    """The language pipeline as a signature names it: English, the spaCy pipeline package and its version with
    spaCy's major.minor (``en_core_web_sm-3.8.0+spacy-3.8``); Chinese, ChERRANT's (compiled here: ``cherrant``).
    Reads installed packages' versions only; loads nothing."""
    if lang != "en":
        return "cherrant"
    from peet_fast.en.parse import DEFAULT_MODELS

    name = spacy_model or next((n for n in DEFAULT_MODELS if importlib.util.find_spec(n) is not None),
                               DEFAULT_MODELS[0])
    shown = os.path.basename(os.path.normpath(name)) if os.sep in str(name) else name
    version = _version(name) if os.sep not in str(name) else None
    spacy = _version("spacy")
    return f"{shown}-{version or 'unknown'}+spacy-{'.'.join(spacy.split('.')[:2]) if spacy else 'none'}"


def context_fields(metric, refs: str, nrefs: int, annotators=None, lang: str = "en") -> dict:
    """The fields of the test set and the pipeline: refs ("text" or "m2"), nrefs, tok, nlp (annotators: the
    peet_fast.languages.Annotators the metric annotates with, whose language and options say the pipeline; None:
    nothing is parsed, as for edits given in M2)."""
    options = getattr(annotators, "options", {}) or {}
    lang = getattr(annotators, "lang", None) or lang
    parses = (metric.needs_annotator or metric.parses) and annotators is not None
    return {"refs": refs, "nrefs": str(nrefs), "tok": "spacy" if parses and options.get("tokenise") else "given",
            "nlp": pipeline(lang, options.get("spacy_model")) if parses else "none"}


def signature(metric, data=None, extra: dict | None = None, **context) -> str:
    """The one-line signature of the metric's figures on data (an EvalSet: its gold M2 or text references, their
    number, its annotator and language), or without one on the context given (context_fields: refs, nrefs,
    annotators, lang); extra: fields added before ``version`` (a meta-evaluation's, meta_fields)."""
    if data is not None:
        context = {"refs": "m2" if data.gold is not None else "text", "nrefs": len(data.references or ()),
                   "annotators": data.annotator, "lang": data.options.get("lang", "en")}
    parts = {**config_fields(metric), **metric.signed(data), **context_fields(metric, **context), **(extra or {}),
             "version": __version__}
    return "|".join([metric.name, *(f"{k}:{v}" for k, v in parts.items())])


def meta_fields(dataset: str | None, system_set: str | None, human: str | None, judgments: bytes | None) -> dict:
    """A meta-evaluation's fields: the dataset (own: the user's), the system set, the human method, a digest of the
    judgments (the human scores or rankings as read)."""
    return {"data": dataset or "own", "set": system_set or "all", "human": human or "scores",
            "judgments": digest(judgments) if judgments is not None else "none"}


def versions() -> str:
    """What `peet-fast --version` prints: peet-fast's version and the versions it signs with."""
    return f"peet-fast {__version__} (nlp: {pipeline('en')}; signatures: docs/metrics.md)"


def meta_signature(metric, data, dataset) -> str:
    """The signature of a meta-evaluation's figures of the metric on data (the EvalSet scored) from dataset (a
    meta_eval Dataset: its name, system set, human methods and the digest of its human scores and judgments)."""
    human = sorted((k, sorted(v.items())) for k, v in dataset.human.items())
    judged = repr([human, sorted((k, list(v)) for k, v in dataset.judgments.items())]).encode()
    return metric.signature(data, meta_fields(dataset.name, dataset.system_set, "+".join(dataset.human) or None,
                                              judged))


def job_signature(kind: str, feature_set: str, model: dict | None, nrefs: int, spacy_model: str | None,
                  tokenise: bool) -> str:
    """The signature a sharded job's part files record (Parquet key "peet_fast.signature"): a score job's PEET
    figures (model: the first 8 hex digits of the SHA-256 of its JSON, keys sorted, as PEET.signed), or a featurize
    job's features (their set); then tok, nlp and version as for a metric."""
    import json

    if kind == "score":
        head = ["peet", f"model:{digest(json.dumps(model, sort_keys=True).encode()) if model else 'published'}",
                "refs:text", f"nrefs:{nrefs}"]
    else:
        head = ["features", f"feature_set:{feature_set}"]
    return "|".join([*head, f"tok:{'spacy' if tokenise else 'given'}", f"nlp:{pipeline('en', spacy_model)}",
                     f"version:{__version__}"])


def plain_signature(name: str, values: dict) -> str:
    """A signature of figures that are not a registry metric's (human-rank's human ranking, from its options and
    a file's digest): name, each field as a Config field is signed, then version."""
    return "|".join([name, *(f"{k}:{_value('', v)}" for k, v in values.items()), f"version:{__version__}"])


def file_digest(path) -> str:
    """The first 8 hex digits of the SHA-256 of a file's bytes ("unread" where it cannot be read)."""
    return _file_digest(path)
