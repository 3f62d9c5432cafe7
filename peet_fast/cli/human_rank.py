"""`peet-fast human-rank`: system scores and rank clusters from human ranking judgments (Appraise XML), as GJG15's
Table 3: Expected Wins (EW.pl) or TrueSkill (TS.py runs), rank ranges from a bootstrap (cluster.py)."""
from __future__ import annotations

import argparse
import sys

from peet_fast.cli._outputs import add_output_option
from peet_fast.io import check_output, shown, write_json


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "human-rank", help="human system scores (Expected Wins or TrueSkill) with rank clusters, from Appraise "
                           "ranking judgments (SEEDA, GJG15)",
        description="Rank the systems of an Appraise ranking XML file (SEEDA's data/judgments_{sent,edit}.xml, "
                    "GJG15's data/judgments.xml) as GJG15's Table 3: each system's score, the range of ranks of "
                    "the middle --confidence share of --bootstrap runs, and the clusters of systems whose ranges "
                    "do not overlap later systems' (cluster.py). --method ew: Expected Wins on all pairwise "
                    "judgments, as GJG15's EW.pl (ties left out), ranges from resamples of the pairwise judgments. "
                    "--method ts: TrueSkill as GJG15 and WMT14 (TS.py -n 2 -d 0: mu 0, sigma 0.5, beta = sigma * "
                    "(judgments + 1) / 40, tau 0, draw probability 0.25), the score the mean mu of --bootstrap "
                    "runs, each run random (fixed by --seed). docs/meta-eval.md says which figures equal the "
                    "published ones and how close the random ones come.")
    p.add_argument("judgments", metavar="JUDGMENTS.xml", help="an Appraise ranking XML file")
    p.add_argument("--method", choices=["ew", "ts"], default="ew",
                   help="ew: Expected Wins (default); ts: TrueSkill")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap resamples (ew; 0: scores only) or TrueSkill runs (ts) for the rank ranges "
                        "(default 1000, as GJG15)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0): same seed, same "
                                                                    "ranges and TrueSkill scores")
    p.add_argument("--systems", nargs="+", metavar="NAME",
                   help="rank only these systems (the others are left out of every ranking item)")
    p.add_argument("--resample", choices=["pairs", "items"], default="pairs",
                   help="what the bootstrap draws with replacement: pairwise judgments (default; EW.pl's and "
                        "GJG15's: TS.py's matches draw judgments) or whole ranking items (each with all of its "
                        "pairwise judgments)")
    p.add_argument("--confidence", type=float, default=0.95, metavar="C",
                   help="share of runs the rank ranges cover (default 0.95, cluster.py's -i)")
    p.add_argument("--outputs", metavar="DIR",
                   help="the systems' outputs (NAME.txt or NAME files: SEEDA's outputs/all, GJG15's "
                        "original/official_submissions): check that every judged system has one and every src-id "
                        "is one of their lines")
    p.add_argument("--src-base", type=int, choices=[0, 1], default=None,
                   help="src-id counts lines from 1 (SEEDA's release) or 0 (GJG15's, Appraise's); default: 1 where "
                        "every ranking item's doc-id is INPUT (as in SEEDA's release), else 0")
    add_output_option(p, "--summary", metavar="FILE.json",
                   help='write {"method", "systems": {NAME: {"score", "rank_range", "cluster", "sd"}}, ...} as JSON')
    return p


def print_ranking(ranking) -> None:
    systems = ranking.systems
    names = [shown(s.name) for s in systems]
    width = max(len("system"), *(len(n) for n in names))
    rwidth = max(len("range"), *(len(s.range_text) for s in systems))
    print(f"{'#':>2}  {'score':>6}  {'range':<{rwidth}}  system")
    previous = None
    for s, name in zip(systems, names):
        if previous is not None and s.cluster != previous:
            print("-" * (2 + 2 + 6 + 2 + rwidth + 2 + width))
        number = "" if s.cluster is None or s.cluster == previous else str(s.cluster)
        score = 0.0 if round(s.score, 3) == 0 else s.score         # no "-0.000"
        print(f"{number:>2}  {score:>6.3f}  {s.range_text:<{rwidth}}  {name}".rstrip())
        previous = s.cluster
    what = {"ew": "Expected Wins (EW.pl)", "ts": f"TrueSkill (mean mu of {ranking.bootstrap} TS.py runs)"}
    if ranking.bootstrap:
        unit = "pairwise judgments" if ranking.resample == "pairs" else "ranking items"
        runs = (f"{ranking.bootstrap} bootstrap resamples of the {unit}" if ranking.method == "ew" else
                f"the runs" + (" (each on resampled ranking items)" if ranking.resample == "items" else ""))
        ranges = f"; rank ranges: the middle {ranking.confidence:.0%} of {runs}, seed {ranking.seed}"
    else:
        ranges = "; no rank ranges (--bootstrap 0)"
    print(f"{what[ranking.method]} of {len(systems)} systems from {ranking.items} ranking items, {ranking.pairs} "
          f"pairwise judgments ({ranking.ties} ties){ranges}", file=sys.stderr)


def run(args) -> int:
    from peet_fast.meta_eval.human.ranking import check_options, human_rank
    from peet_fast.meta_eval.human.judgments import read_judgments, read_judgments_with_outputs

    check_output(args.summary, [args.judgments])
    from peet_fast.cli._common import flags_named
    from peet_fast.metrics.stats import check_bootstrap, check_seed

    with flags_named(args):        # the library's parameters (InputError("systems", ...)) as the flags
        check_options(args.method, args.bootstrap, args.seed, args.resample, args.confidence)
    check_bootstrap(args.bootstrap, 0, "--bootstrap", unit="TrueSkill runs" if args.method == "ts" else "resamples")
    check_seed(args.seed, "--seed")
    if args.outputs:
        judgments, _ = read_judgments_with_outputs(args.judgments, args.outputs, args.src_base)
    else:
        judgments = read_judgments(args.judgments, args.src_base)
    from peet_fast.cli._progress import progress_for

    with flags_named(args), progress_for(args, f"ranking ({args.method})"):
        ranking = human_rank(judgments, args.method, args.bootstrap, args.seed, args.systems, args.resample,
                             args.confidence)
    from peet_fast.cli._common import print_signatures
    from peet_fast.metrics.signature import file_digest, plain_signature

    signature = plain_signature("human", {"method": args.method, "bootstrap": args.bootstrap, "seed": args.seed,
                                          "resample": args.resample, "confidence": args.confidence,
                                          "judgments": file_digest(args.judgments)})
    if args.summary:
        write_json(args.summary, {**ranking.summary(), "signature": signature})
    print_ranking(ranking)
    print_signatures([signature])
    return 0
