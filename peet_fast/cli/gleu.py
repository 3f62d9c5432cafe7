"""`peet-fast gleu`: GLEU as cnap/gec-ranking's compute_gleu (2016 update) computes and prints it."""
from __future__ import annotations

import argparse
import os
import sys

from peet_fast.cli._common import flags_named
from peet_fast.cli._progress import progress_for
from peet_fast.io import InputError, line_count_error, no_lines, read_stdin


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "gleu", help="GLEU of hypothesis files (as compute_gleu of cnap/gec-ranking, 2016 update)",
        description="GLEU (Napoles et al. 2015, updated 2016 for several references) exactly as the official "
                    "compute_gleu computes and prints it: 'FILE SCORE' per hypothesis file (6 decimals, the mean over "
                    "--iter iterations, each drawing one reference per sentence with Python 2's random.seed(j*101) "
                    "and randint), or with -d the sentence-level and overall mean, deviation and 95% interval. "
                    "The files must have the same number of lines.")
    # compute_gleu's spellings first (-o is the hypotheses there, as here), then peet-fast's names of the roles
    p.add_argument("-s", "--source", "--src", "-src", "-orig", "--orig", dest="source", required=True, metavar="SRC",
                   help="the source sentences (tokenised)")
    p.add_argument("-r", "--reference", "--ref", "-ref", dest="reference", required=True, nargs="+", metavar="REF",
                   help="one or more reference files, line-aligned with SRC")
    p.add_argument("-o", "--hypothesis", "--hyp", "-hyp", "-cor", "--cor", dest="hypothesis", required=True,
                   nargs="+", metavar="HYP",
                   help="one or more hypothesis files, each scored separately ('-': standard input); -o is "
                        "compute_gleu's spelling (not an output file)")
    p.add_argument("-n", type=int, default=4,
                   help="compute_gleu's -n (default 4): as in the official, n-grams are always counted up to 4; "
                        "n below 4 keeps only the first n precisions of the corpus statistics")
    p.add_argument("-d", "--sentences", dest="sentences", action="store_true",
                   help="print the sentence-level scores and the overall mean, deviation and interval "
                        "(compute_gleu's -d/--debug; --debug here is peet-fast's traceback option)")
    p.add_argument("--iter", type=int, default=500, metavar="N",
                   help="iterations (reference draws) when there are several references (default 500)")
    return p


def run(args) -> int:
    from peet_fast.metrics import gleu as G

    with flags_named(args):
        G.check_options(args.n, args.iter)
    sources = G.tokens_of(G.read_gleu_lines(args.source))
    refs = [G.tokens_of(G.read_gleu_lines(r)) for r in args.reference]
    counts = [(args.source, len(sources))] + [(r, len(t)) for r, t in zip(args.reference, refs)]
    if args.hypothesis.count("-") > 1:
        raise InputError("-o", "standard input ('-') can be read once; give '-' once")
    hyps = []
    stdin_data = None
    for path in args.hypothesis:
        if path == "-":
            if stdin_data is None:
                stdin_data = read_stdin("<stdin>", refuse_nul=True, cr_ends_line=False)
            lines = G.read_gleu_lines("<stdin>", stdin_data)
        else:
            lines = G.read_gleu_lines(path)
        hyps.append(G.tokens_of(lines))
        counts.append((path, len(lines)))
    mismatch = line_count_error(counts, "the files differ in line count")      # names the file that differs
    if mismatch is not None:
        raise mismatch
    if not sources:
        raise no_lines([p for p, _ in counts])
    prepared = G.References(sources, refs)
    picks = G.held_draws(len(sources), len(refs), G.iterations_for(len(refs), args.iter))   # None: too many
    selection = None if picks is None else G.selection_matrix(picks, len(refs))
    out = []
    with progress_for(args, "scoring", total=len(hyps), unit="systems") as progress:
        for k, (path, hyp) in enumerate(zip(args.hypothesis, hyps)):
            result = G.score_system(prepared, hyp, args.n, args.iter, picks=picks, selection=selection,
                                    sentences=args.sentences)
            out.extend(result.lines(os.path.basename(path), args.sentences))
            progress(k + 1)
    sys.stdout.write("".join(line + "\n" for line in out))
    from peet_fast.cli._common import print_signatures
    from peet_fast.metrics.base import get_metric

    print_signatures([get_metric("gleu", n=args.n, iterations=args.iter).signature(refs="text", nrefs=len(refs))])
    return 0
