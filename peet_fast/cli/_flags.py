"""How the library's words become the command line's: the library names its parameters (an InputError about
`window` has the path "window"; a message refers to an option in backticks as its keyword, `spacy_model` or
`max_line_tokens=N`), the command line names its flags (--window, --spacy-model, --max-line-tokens N).

flags_named maps an InputError's parameter within a block (each command its own table); flag_worded words a whole
error line as the command line prints it (every command: the annotator's options, whose errors surface wherever the
annotator loads, and the systems' --hyp and --names)."""
from __future__ import annotations

import contextlib
import re

from peet_fast.cache import DEFAULT_MAX_SIZE
from peet_fast.en.parse import DEFAULT_MAX_LINE_TOKENS
from peet_fast.io import InputError

# command-line flags that set annotator options: dest -> (flag, annotator option, the flag's default, converter)
ANNOTATOR_FLAGS = {
    "spacy_model": ("--spacy-model", "spacy_model", None, None),
    "batch_size": ("--batch-size", "batch_size", 256, None), "tok": ("-tok", "tokenise", False, None),
    "lev": ("-lev", "lev", False, None),
    "merge": ("-merge", "merge", "rules", None), "cilin": ("--cilin", "cilin", None, None),
    "confusion": ("--confusion", "confusion", None, None), "no_t2s": ("--no-t2s", "t2s", False, lambda v: not v),
    "segmented": ("--segmented", "segmented", False, None), "strategy": ("--strategy", "strategy", "all", None),
    "max_line_tokens": ("--max-line-tokens", "max_line_tokens", DEFAULT_MAX_LINE_TOKENS, None),
    "no_cache": ("--no-cache", "cache", False, lambda v: not v), "cache_dir": ("--cache-dir", "cache_dir", None, None),
    "cache_max_size": ("--cache-max-size", "cache_max_size", DEFAULT_MAX_SIZE, None),
}
# formats.systems' parameters (hypothesis specs and their names)
SYSTEM_FLAGS = {"hyps": "--hyp", "names": "--names"}

# a message's option in backticks -> the flag: `name` (or `name=VALUE`, the flag then VALUE) for a flag that takes
# the option's value, `name=False` for a --no- flag that turns a boolean option off
OPTION_WORDS = {**{option: flag for flag, option, _, convert in ANNOTATOR_FLAGS.values() if convert is None},
                **{f"{option}=False": flag for flag, option, _, convert in ANNOTATOR_FLAGS.values()
                   if convert is not None},
                **SYSTEM_FLAGS, "outputs": "--outputs"}
# the annotator's options an error names as its path (zh.resources: `cilin`, `t2s`), wherever the annotator loads
OPTION_PATHS = {"cilin": "--cilin", "t2s": "--no-t2s"}
_QUOTED = re.compile(r"`([A-Za-z_]\w*)(?:=([^`\s]*))?`")


def _flag(match: re.Match) -> str:
    whole, name, value = match.group(0)[1:-1], match.group(1), match.group(2)
    if whole in OPTION_WORDS:
        return OPTION_WORDS[whole]
    if value is not None and name in OPTION_WORDS:
        return f"{OPTION_WORDS[name]} {value}"
    return match.group(0)


def flag_worded(exc: Exception, text: str | None = None) -> str:
    """The error's line (text, default str(exc)) in the command line's words: an InputError whose path is an
    annotator option its message speaks of (OPTION_PATHS) names the flag, and every option in backticks becomes its
    flag (OPTION_WORDS)."""
    text = str(exc) if text is None else text
    if type(exc) is InputError and exc.line is None and exc.path in OPTION_PATHS and "`" in exc.message:
        text = f"{OPTION_PATHS[exc.path]}: {exc.message}"
    return _QUOTED.sub(_flag, text)


def parser_flags(parser) -> dict:
    """The command line's words for the library's, derived from a command's parser: {dest: the option's first name}
    of every option (args.flags of every command: cli.build_parser sets it); a library parameter named as the dest
    names the flag with no table of its own."""
    return {a.dest: a.option_strings[0] for a in parser._actions if a.option_strings and a.dest != "help"}


def metrics_given(specs, values: dict | None = None, flags: dict | None = None) -> list:
    """--metric's metrics: each NAME or NAME:FIELD=VALUE:... (docs/commands.md), the metric-specific flags' values
    (values: dest -> value) set on the metrics taking them (metrics.base.metric_from_spec); a bad field is refused
    as `--metric NAME:FIELD: ...`, and a value given (flags: its dest -> the flag) when no metric named takes it."""
    from peet_fast.metrics.base import metric_class, metric_from_spec, metric_names
    from peet_fast.metrics.config import spec_parts

    names = [n for n in (spec_parts(s)[0] for s in specs) if n in metric_names()]
    for option, flag in (flags or {}).items():
        if (values or {}).get(option) is not None and not any(option in metric_class(n).config for n in names):
            takers = [n for n in metric_names() if option in metric_class(n).config]
            raise InputError(flag, f"needs --metric {' or '.join(takers)}")
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
def flags_named(flags: dict):
    """Within the block, an InputError naming a library parameter (flags: parameter -> its flag) names the flag
    instead: the library speaks of its parameters, the command line of its flags."""
    try:
        yield
    except InputError as exc:
        if type(exc) is InputError and exc.line is None and exc.path in flags:
            raise InputError(flags[exc.path], exc.message) from None
        raise
