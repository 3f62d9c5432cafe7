"""Run errant's own errant_parallel (errant.commands.parallel_to_m2) as the oracle, with a given spaCy pipeline.

errant.load("en") insists on the package name en_core_web_sm; here it gets the same pipeline under the name that is
installed. Also errant_compare (errant's compare_m2, in this process) and totals (the figures of a compare report).
Usage: python tests/errant_oracle.py [--spacy-model NAME] -orig ... -cor ... -out ... [errant flags]"""
import contextlib
import io
import re
import sys
from pathlib import Path

import errant
import spacy
from errant.commands import parallel_to_m2


def run(argv, model=None):
    from peet_fast.en.parse import default_model_name

    model = model or default_model_name()
    real_load = errant.load

    def load(lang, nlp=None):
        return real_load(lang, nlp or spacy.load(model, disable=["ner"]))

    saved = sys.argv
    errant.load = load
    sys.argv = ["errant_parallel", *argv]
    try:
        parallel_to_m2.main()
    finally:
        errant.load = real_load
        sys.argv = saved


def errant_compare(hyp: Path, ref: Path, *flags: str) -> str:
    """errant_compare's stdout for these arguments (errant.commands.compare_m2.main, in this process)."""
    from errant.commands import compare_m2

    saved = sys.argv
    sys.argv = ["errant_compare", "-hyp", str(hyp), "-ref", str(ref), *flags]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            compare_m2.main()
    finally:
        sys.argv = saved
    return out.getvalue()


def totals(report: str) -> tuple:
    """(TP, FP, FN, P, R, F) from the last figures line of a compare report."""
    line = [ln for ln in report.splitlines() if re.match(r"^\d+\t", ln)][-1]
    tp, fp, fn, p, r, f = line.split("\t")
    return int(tp), int(fp), int(fn), float(p), float(r), float(f)


if __name__ == "__main__":
    args = sys.argv[1:]
    model = None
    if args[:1] == ["--spacy-model"]:
        model, args = args[1], args[2:]
    run(args, model)
