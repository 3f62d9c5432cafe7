"""`peet-fast report`: an HTML page with plots of a ranking."""
from __future__ import annotations

import argparse
import sys

from peet_fast.cli._common import add_io_option, plural
from peet_fast.cli.rank import add_rank_inputs, print_ranking, rank_inputs, ranking_from_args
from peet_fast.io import check_not_input


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "report", help="an HTML page with plots of a `rank` result",
        description="Rank the systems as `rank` does and write DIR/index.html with PNG plots (matplotlib): the "
                    "distribution of per-sentence predicted time per system, the contribution of each model term "
                    "to PEET, the ranking with 95 % confidence intervals, and (with --human) PEET and WER against "
                    "the human scores. DIR is written complete or not at all; an existing DIR must be empty or an "
                    "earlier report, which is replaced.")
    add_rank_inputs(p)
    add_io_option(p, "out", required=True, metavar="DIR", help="the report directory (index.html + *.png)")
    p.add_argument("--title", default="peet-fast report", help="the page title")
    return p


def run(args) -> int:
    import os

    from peet_fast.evaluation.report import check_report_dir, write_report

    check_not_input(args.out, rank_inputs(args))
    check_report_dir(args.out, "--out")
    ranking, model = ranking_from_args(args)
    images = write_report(args.out, ranking, model, args.title, args.human)
    print_ranking(ranking, model)
    print(f"peet-fast report: wrote {os.path.join(args.out, 'index.html')} and {plural(len(images), 'plot')}",
          file=sys.stderr)
    return 0
