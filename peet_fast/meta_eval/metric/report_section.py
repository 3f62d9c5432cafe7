"""`report --meta-eval`: the meta-evaluation section of a report (evaluation.report.Section) from a meta-evaluation
summary (MetaEval.summary): the system-level table (Pearson r and Spearman rho of each metric with each human
ranking, signed as `meta-eval` prints them) and the window plots `meta-eval --plot` draws (plots.window_figure), one
per human ranking."""
from __future__ import annotations

import html

from peet_fast.evaluation.report import table
from peet_fast.evaluation.report_sections import Section
from peet_fast.meta_eval.metric.plots import TITLES, window_figure

SID = "meta-eval"
SIGN = ("Sign: as peet-fast meta-eval prints them, a lower-is-better metric's scores (sign -) negated first, so "
        "a positive figure is agreement with the humans, whatever the metric's direction. This differs from the "
        "raw-sign correlations of the report's human-score section, if any.")


def _signed(x) -> str:
    return "-" if x is None else f"{x:+.3f}"


def report_section(summary: dict) -> Section:
    """The section of a summary holding the system level (and, with a window size, the windows)."""
    e = html.escape
    metrics = summary["metrics"]
    humans = list(next(iter(metrics.values()))["system"])
    heads = [[("metric", 1, 2), ("sign", 1, 2), *((TITLES.get(h, h), 2, 1) for h in humans)],
             [cell for _ in humans for cell in (("Pearson r", 1, 1), ("Spearman ρ", 1, 1))]]
    rows = [[name, "+" if m["higher_is_better"] else "-",
             *(v for h in humans for v in (_signed(m["system"][h]["pearson"]), _signed(m["system"][h]["spearman"])))]
            for name, m in metrics.items()]
    what = "own data" if summary["data"] == "own" else f"{summary['data']} {summary['system_set']}"
    window = summary.get("window_size")
    body = (f"<p>{e(what)}: {len(summary['systems'])} systems, {summary['sentences']} sentences; a metric's system "
            f"score: {e(summary['aggregation'])}. System level: the correlation of each metric's system scores with "
            f"each human ranking's.</p><p><b>{e(SIGN)}</b></p>" + table([], rows, left=(0,), head_rows=heads))
    figures = []
    if window:
        body += (f"<p>Windows: the same correlations over each {window} systems adjacent in a human ranking, "
                 f"against the rank the window starts at (Pearson solid, Spearman dashed; a lower-is-better metric "
                 f"marked (-), its sign flipped as above).</p>")
        figures = [(f"meta-eval-window-{h}.png", lambda h=h: window_figure(summary, h)) for h in humans]
    return Section(SID, f"Meta-evaluation: {what}", body, figures)
