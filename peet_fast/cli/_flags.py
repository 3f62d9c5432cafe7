"""How the library's words become the command line's: the library names its parameters (an InputError about
`window` has the path "window"; a message refers to an option in backticks as its keyword, `spacy_model` or
`max_line_tokens=N`; a jobs.errors.Wording names them as fields), the command line names its flags (--window,
--spacy-model, --max-line-tokens N).

Words (args.flags of every command) is the one vocabulary: derived from the command's parser, with PARAMETERS for the
parameters not spelt as their option's dest. flags_named maps an InputError's parameter within a block; flag_worded
words a whole error line as the command line prints it (the annotator's options, whose errors surface wherever the
annotator loads, and every option in backticks)."""
from __future__ import annotations

import contextlib
import functools
import re
from typing import Mapping

from peet_fast.io import InputError

# The one table of the option vocabulary: a library parameter -> the options (their dests) that give it on a command
# line, where the two are not spelt alike (the first one a command has; a dest named as the parameter comes before
# them). "!" before a dest: an option that turns the parameter off (--no-t2s gives t2s=False). No flag is written
# here: a command's flags are its parser's (Words).
PARAMETERS = {
    "tokenise": ("tok",), "t2s": ("!no_t2s",), "cache": ("!no_cache",),
    "hyps": ("hyp",), "outputs": ("hyp",), "references": ("ref",), "metrics": ("metric",), "source_mode": ("source",),
    "out_dir": ("out",), "feature_set": ("features",), "iterations": ("iter",),
    "data": ("meta_eval",), "root": ("data", "meta_eval"), "gold": ("meta_eval_gold",),
    "system_set": ("meta_eval_set",), "window": ("meta_eval_window",), "judgments": ("meta_eval_judgments",),
    "human_method": ("meta_eval_human_method",),
    "gotoscorer_weight_file": ("gotoscorer_weights",), "gotoscorer_no_weight": ("gotoscorer_weights",),
}
_QUOTED = re.compile(r"`([A-Za-z_]\w*)(?:=([^`\s]*))?`")


class Words(Mapping):
    """A command line's words for the library's, derived from its parser: words[name] is the flag giving `name` (a
    library parameter, PARAMETERS, or an option's dest) on this command line, e.g. words["tokenise"] == "-tok";
    `defaults` holds each dest's default. args.flags of every command (cli.build_parser sets it)."""

    def __init__(self, flags: Mapping[str, str], defaults: Mapping | None = None):
        self.flags = dict(flags)
        self.defaults = dict(defaults or {})

    @classmethod
    def of(cls, parser) -> "Words":
        flags, defaults = {}, {}
        for a in parser._actions:            # a dest several options set (compare's --mode, -dt, ...): the first
            if a.option_strings and a.dest != "help" and a.dest not in flags:
                flags[a.dest], defaults[a.dest] = a.option_strings[0], a.default
        return cls(flags, defaults)

    def dest(self, name: str) -> tuple[str, bool] | None:
        """(the dest of the option giving `name` here, whether that option turns it off), or None: none does."""
        for dest in (name, *PARAMETERS.get(name, ())):
            if dest.lstrip("!") in self.flags:
                return dest.lstrip("!"), dest.startswith("!")
        return None

    def __getitem__(self, name: str) -> str:
        found = self.dest(name)
        if found is None:
            raise KeyError(name)
        return self.flags[found[0]]

    def __iter__(self):
        return iter(dict.fromkeys(n for n in (*self.flags, *PARAMETERS) if self.dest(n)))

    def __len__(self) -> int:
        return sum(1 for _ in self)


@functools.lru_cache(maxsize=None)
def annotator_parameters() -> tuple[str, ...]:
    """Every language annotator's options (languages: each language's OPTIONS), in one order."""
    from peet_fast.languages import LANGS, language

    return tuple(sorted(set().union(*(language(code).OPTIONS for code in LANGS))))


def _flag(match: re.Match, words: Words) -> str:
    name, value = match.group(1), match.group(2)
    found = words.dest(name)
    if found is None:
        return match.group(0)
    flag, off = words.flags[found[0]], found[1]
    if off:                                  # `t2s=False`: the flag turning it off; `t2s` alone stays
        return flag if value == "False" else match.group(0)
    return flag if value is None else f"{flag} {value}"


def flag_worded(exc: Exception, words: Words, text: str | None = None) -> str:
    """The error's line (text, default str(exc)) in the command line's words (words: the command's): an InputError
    whose path is an annotator option its message speaks of names the flag, and every option in backticks
    (`name`, `name=VALUE`, `name=False` for an option a --no- flag turns off) becomes its flag."""
    text = str(exc) if text is None else text
    if type(exc) is InputError and exc.line is None and "`" in exc.message and exc.path in words \
            and exc.path in annotator_parameters():
        text = f"{words[exc.path]}: {exc.message}"
    return _QUOTED.sub(lambda m: _flag(m, words), text)


def metrics_given(specs, values: dict | None = None, flags: Mapping | None = None) -> list:
    """--metric's metrics: each NAME or NAME:FIELD=VALUE:... (docs/commands.md), the metric-specific flags' values
    (values: Config field -> value) set on the metrics taking them (metrics.base.metric_from_spec); a bad field is
    refused as `--metric NAME:FIELD: ...`; with flags (the command's Words), every value given (values: the metric
    options of the command line, and nothing else) is refused, naming its flag, where no metric named takes it."""
    from peet_fast.metrics.base import metric_class, metric_from_spec, metric_names
    from peet_fast.metrics.config import spec_parts

    names = [n for n in (spec_parts(s)[0] for s in specs) if n in metric_names()]
    for option, value in (values or {}).items() if flags is not None else ():
        if value is not None and not any(option in metric_class(n).config for n in names):
            takers = [n for n in metric_names() if option in metric_class(n).config]
            raise InputError(flags.get(option, option), f"needs --metric {' or '.join(takers)}")
    out = []
    for spec in specs:
        try:
            out.append(metric_from_spec(spec, values))
        except InputError as exc:
            if ":" not in str(exc.path):
                raise
            raise InputError(f"--metric {exc.path}", exc.message) from None
    return out


@contextlib.contextmanager
def flags_named(args):
    """Within the block, an InputError naming a library parameter names its flag instead (args.flags: the command's
    Words): the library speaks of its parameters, the command line of its flags. A path given on this command line
    is a file, not a parameter, whatever its name (`--ref ref`: "ref: ..." stays)."""
    try:
        yield
    except InputError as exc:
        flags = args.flags
        if type(exc) is InputError and exc.line is None and exc.path in flags and exc.path not in _given(args):
            raise InputError(flags[exc.path], exc.message) from None
        raise


def _given(args) -> set[str]:
    """The texts given as option values on this command line (a file's name among them)."""
    out = set()
    for value in vars(args).values():
        for v in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(v, str):
                out.add(v)
    return out
