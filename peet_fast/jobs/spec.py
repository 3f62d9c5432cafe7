"""JobSpec: everything that determines a sharded job's output, and so its signature (the resume key of a job
directory); setting_differences names, in the user's words, what differs from an earlier job's recorded settings."""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field

from peet_fast import __version__
from peet_fast.en.parse import DEFAULT_MAX_LINE_TOKENS
from peet_fast.jobs.errors import Wording
from peet_fast.jobs.sizing import DEFAULT_SHARD_ROWS
from peet_fast.jobs.sources import Source


@dataclass
class JobSpec:
    """Everything that determines a job's output (and so its resume signature)."""
    kind: str                                  # "featurize" | "score"
    source: Source
    feature_set: str = "small"
    model: dict | None = None                  # score: the model's JSON
    system_names: tuple[str, ...] = ()         # score: one per hypothesis file (the first paths of a text source)
    n_refs: int = 0                            # score: the last n_refs paths are references
    spacy_model: str | None = None
    tokenise: bool = False                     # raw text: spaCy's tokenizer (-tok), not whitespace
    batch_size: int = 256
    shard_rows: int | None = DEFAULT_SHARD_ROWS    # None: chosen by run_job (jobs.sizing)
    max_line_tokens: int = DEFAULT_MAX_LINE_TOKENS   # en.parse's line limits (0: none); applied by every worker
    extra: dict = field(default_factory=dict)
    # the annotator's parse-cache options (cache, cache_dir, cache_max_size): how a worker parses, never what it
    # computes, so not part of the signature; cache_dir unset means each node's own default
    cache: dict = field(default_factory=dict)

    def signature(self) -> str:
        return hashlib.sha256(json.dumps(self.settings(), sort_keys=True, default=str).encode()).hexdigest()

    def settings(self) -> dict:
        """What the signature is the hash of: the settings that determine the output."""
        d = asdict(self)
        # the inputs' contents are checked shard by shard (Shard.digest), so fixing a bad line keeps the other shards
        d["source"] = {"kind": self.source.kind, "paths": [os.path.abspath(p) for p in self.source.paths],
                       "columns": self.source.columns}
        d["peet_fast"] = __version__
        d.pop("batch_size")        # parse batching does not change results
        d.pop("cache")             # nor does the parse cache
        if not self.tokenise:
            d.pop("tokenise")      # the signature of a pre-tokenised job is what it was before the option
        d.pop("max_line_tokens")   # nor does a limit: it refuses a line, or the result is the same
        if self.source.kind == "table":
            d["ids"] = "typed"     # the id column keeps the input's type (earlier versions: always strings)
        return d

    def recorded_settings(self) -> dict:
        """settings() as the manifest records them, for naming what differs in a later run: the model by its name
        and a hash of its JSON."""
        d = json.loads(json.dumps(self.settings(), default=str))
        if d.get("model") is not None:
            d["model"] = {"name": d["model"].get("name"),
                          "sha256": hashlib.sha256(json.dumps(d["model"], sort_keys=True).encode()).hexdigest()}
        return d


# the settings of a job as the user knows them, for the message naming what differs from an earlier job's: a setting
# given by an option is named by it ({option}: a jobs.errors.Wording field, the command line's flag where one shows it)
SETTING_NAMES = {"kind": "command", "source": "inputs", "feature_set": "{feature_set}", "tokenise": "{tokenise}",
                 "spacy_model": "{spacy_model}", "shard_rows": "{shard_rows}", "model": "{model}",
                 "system_names": "system names", "n_refs": "references", "extra": "{contributions}/{edits}",
                 "peet_fast": "peet-fast version", "ids": "id column"}


def _shown(key: str, value) -> str:
    if key == "tokenise":
        return "given" if value else "not given"
    if key == "source" and isinstance(value, dict):
        return " ".join(map(str, value.get("paths") or [])) or "?"
    if key == "model" and isinstance(value, dict):
        return f"{value.get('name')} ({str(value.get('sha256'))[:12]})"
    if key == "ids":
        return "the input's type" if value == "typed" else "strings (an earlier peet-fast)"
    if value is None:
        return "the default"
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return str(value)


def setting_differences(old: dict, new: dict) -> Wording | None:
    """'NAME: OLD there, NEW here' for each setting of `new` (JobSpec.recorded_settings) that differs in `old`, joined
    by '; ' (a Wording: a setting given by an option is named by it); None where none differs."""
    parts, values = [], {}
    for key in sorted(set(old) | set(new), key=lambda k: list(SETTING_NAMES).index(k) if k in SETTING_NAMES else 99):
        a, b = old.get(key, False if key == "tokenise" else None), new.get(key, False if key == "tokenise" else None)
        if a != b:
            k = len(parts)
            values[f"old{k}"], values[f"new{k}"] = _value(key, a), _value(key, b)
            parts.append(f"{SETTING_NAMES.get(key, _escaped(key))}: {{old{k}}} there, {{new{k}}} here")
    return Wording("; ".join(parts), **values) if parts else None


def _escaped(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _value(key: str, value) -> str | Wording:
    """A setting's value as shown (_shown); the extra outputs as the options asking for them (a Wording)."""
    if key == "extra" and isinstance(value, dict):
        return Wording(" ".join("{%s}" % k if k.isidentifier() else _escaped(k) for k in sorted(value)) or "neither")
    return _shown(key, value)
