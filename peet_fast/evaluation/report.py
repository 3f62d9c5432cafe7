"""The report stage: an HTML page with PNG plots (matplotlib, Agg backend) of a `rank` result.

DIR/index.html has one section per plot, each with exactly one image:

1. ``distribution.png`` — per-sentence predicted seconds of each system (box plots; the diamond is the mean = PEET);
2. ``contributions.png`` — each model term's contribution to a system's PEET (mean seconds per sentence: the
   intercept, and coefficient x feature for each model feature; the terms of a system sum to its PEET);
3. ``ranking.png`` — PEET with its 95 % bootstrap confidence interval, in rank order;
4. ``human.png`` — PEET and WER against the human scores (only with human scores).

Sections another package builds (evaluation.report_sections.Section; `report --meta-eval`:
meta_eval.metric.report_section) follow, each with its HTML and its images.

The ranking section's table is one layout for any metrics: per metric a group of columns under its name (its score,
95 % interval and p (vs next), and the per-system figures it carries: PEET's s/word and mean s/word), then the human
score and the sentences; ranked by PEET alone, WER (the baseline, not ranked: its score only) has a group beside it.
Ranked by other metrics (`rank --metric ...`, anything but PEET alone), the page shows them side by side: sections 1
and 2 only when PEET is among them; ``ranking.png`` has one panel per metric (its score and 95 % interval, in the
ranking's order); ``human.png`` one panel per metric (WER, the baseline, always) against the human scores. Panels
are laid out two a row (a page-wide image stays readable), scatter labels by evaluation.labels (no overlaps, inside
the panel), and table cells never wrap.

The directory is written complete or not at all: everything goes into a temporary directory beside DIR, which is
then renamed into place. An existing DIR is replaced only when it is empty or holds an earlier peet-fast report.
A DIR that is a symbolic link is written through: the directory it leads to is the one written (or replaced), the
link kept. A temporary directory a killed run left behind (named with its process id) goes at the next run.
"""
from __future__ import annotations

import html
import os
import shutil
from typing import Sequence

import numpy as np

from peet_fast.evaluation.report_sections import Section, draw_sections, signatures_html, table
from peet_fast.io import InputError, current_umask, remove_stale_temp_files, temp_dir

GENERATOR = "peet-fast report"
SECTIONS = ("distribution", "contributions", "ranking", "human")
_MARKER = f'<meta name="generator" content="{GENERATOR}">'
_table = table                  # report_sections.table: the report's tables, and the sections' other packages build


def report_target(path: str) -> str:
    """The directory a report at `path` is written to: path itself, or, for a symbolic link (a chain of them, a
    dangling one too), the path it leads to."""
    path = os.path.abspath(path)
    return os.path.realpath(path) if os.path.islink(path) else path


def check_report_dir(path: str, name: str = "out_dir") -> None:
    """Refuse, before any work, an output directory that is a file, whose parent is missing, or a non-empty directory
    that is not an earlier report (name: how the messages call it; the command line's --out). A symbolic link is
    checked as the path it leads to (report_target), a loop refused."""
    if os.path.islink(path):
        target = report_target(path)
        if os.path.islink(target):
            raise InputError(path, f"{name} is a symbolic link that leads to no path (a loop of links)")
        if not os.path.isdir(os.path.dirname(target)):
            raise InputError(path, f"{name} is a symbolic link to {target}, whose parent directory does not exist")
        path = target
    if os.path.exists(path) and not os.path.isdir(path):
        raise InputError(path, f"{name} must be a directory (it is a file)")
    if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise InputError(path, f"the parent directory of {name} does not exist")
    if os.path.isdir(path) and os.listdir(path) and not _is_report(path):
        raise InputError(path, f"exists and is not empty (and not an earlier peet-fast report); choose another {name}")


def _is_report(path: str) -> bool:
    names = os.listdir(path)
    if "index.html" not in names or any(not (n == "index.html" or n.endswith(".png")) for n in names):
        return False
    try:
        with open(os.path.join(path, "index.html"), encoding="utf-8") as fh:
            return _MARKER in fh.read(4096)
    except (OSError, UnicodeDecodeError):
        return False


def contributions(ranking, model) -> tuple[list[str], np.ndarray]:
    """Each model term's mean contribution per sentence, per system: (term names, (S, terms) array). Terms are
    "intercept" and the model's features; row s sums to system s's PEET (up to rounding). The arithmetic is the
    model's own (Model.contributions), applied to each system's mean feature values (the model is linear)."""
    S = len(ranking.systems)
    means = {name: ranking.features[name].astype(np.float64).mean(axis=1) for name in model.features}
    per_term = model.contributions(means)
    cols = [np.full(S, float(model.intercept)), *(per_term[name] for name in model.features)]
    return ["intercept", *model.features], np.stack(cols, axis=1)


def write_report(out_dir: str, ranking, model, title: str = "peet-fast report",
                 human_file: str | None = None, extra: Sequence[Section] = ()) -> list[str]:
    """Write DIR/index.html and its PNGs atomically; returns the image file names, in section order. extra: sections
    after the report's own (Section)."""
    import matplotlib

    matplotlib.use("Agg")
    check_report_dir(out_dir)
    out_dir = report_target(out_dir)
    parent = os.path.dirname(out_dir)
    remove_stale_temp_files(parent)
    tmp = temp_dir(parent, "report")
    try:
        sections = _build(tmp, ranking, model, human_file)
        drawn = draw_sections(tmp, extra, [s[1] for s in sections], SECTIONS)
        with open(os.path.join(tmp, "index.html"), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(_page(title, ranking, model, sections, human_file, drawn))
        os.chmod(tmp, 0o777 & ~current_umask())
        _place(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return [s[1] for s in sections] + [name for _, names in drawn for name in names]


def _place(tmp: str, out_dir: str) -> None:
    """Rename the finished tmp directory to out_dir, replacing an empty directory or an earlier report."""
    if not os.path.exists(out_dir):
        os.rename(tmp, out_dir)
        return
    old = temp_dir(os.path.dirname(out_dir), "report-old")
    os.rmdir(old)
    os.rename(out_dir, old)
    try:
        os.rename(tmp, out_dir)
    except BaseException:
        os.rename(old, out_dir)
        raise
    shutil.rmtree(old, ignore_errors=True)


# --- plots -------------------------------------------------------------------------------------------------------------

def _build(tmp: str, ranking, model, human_file) -> list[tuple[str, str, str]]:
    """Make the plots; returns (section id, image file, HTML body) per section."""
    names = [s.name for s in ranking.systems]
    out = []
    if ranking.seconds is not None and model is not None:
        out.append(("distribution", _plot_distribution(tmp, names, ranking.seconds),
                    _distribution_table(ranking)))
        terms, contrib = contributions(ranking, model)
        out.append(("contributions", _plot_contributions(tmp, names, terms, contrib),
                    _contributions_table(names, terms, contrib, ranking)))
    plot = _plot_ranking if ranking.own_figures else _plot_metrics
    out.append(("ranking", plot(tmp, ranking), _ranking_table(ranking)))
    if ranking.correlation is not None:
        out.append(("human", _plot_human(tmp, ranking), _correlation_table(ranking, human_file)))
    return out


def _figure(n_systems: int, width: float = 8.0):
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, max(2.5, 0.45 * n_systems + 1.4)), dpi=110)


def _save(fig, tmp: str, name: str, layout: bool = True) -> str:
    """Write fig as tmp/name and close it (layout: tight_layout first; False where the layout is already final,
    e.g. scatter labels placed on it)."""
    import matplotlib.pyplot as plt

    if layout:
        fig.tight_layout()
    fig.savefig(os.path.join(tmp, name), format="png")
    plt.close(fig)
    return name


def _plot_distribution(tmp: str, names: Sequence[str], seconds: np.ndarray) -> str:
    fig, ax = _figure(len(names))
    pos = np.arange(len(names))[::-1]                       # the best system on top
    ax.boxplot([row for row in seconds], positions=pos, orientation="horizontal", widths=0.6, showmeans=True,
               meanprops={"marker": "D", "markerfacecolor": "tab:red", "markeredgecolor": "tab:red"},
               flierprops={"marker": ".", "markersize": 2, "alpha": 0.4})
    ax.set_yticks(pos, names)
    ax.set_xlabel("predicted post-editing time per sentence (s)")
    ax.set_title("Per-sentence predicted time (box: quartiles; diamond: mean = PEET)")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, tmp, "distribution.png")


def _plot_contributions(tmp: str, names: Sequence[str], terms: Sequence[str], contrib: np.ndarray) -> str:
    import matplotlib.pyplot as plt

    fig, ax = _figure(len(names), width=9.0)
    pos = np.arange(len(names))[::-1]
    colours = plt.get_cmap("tab10")
    right = np.zeros(len(names))
    left = np.zeros(len(names))
    for t, term in enumerate(terms):
        v = contrib[:, t]
        start = np.where(v >= 0, right, left)
        ax.barh(pos, v, left=start, height=0.6, color=colours(t % 10), label=term)
        right = np.where(v >= 0, right + v, right)
        left = np.where(v < 0, left + v, left)
    ax.scatter(contrib.sum(axis=1), pos, marker="D", color="black", zorder=3, label="PEET (sum)")
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(pos, names)
    ax.set_xlabel("contribution to PEET (mean seconds per sentence)")
    ax.set_title("Contribution of each model term (negative terms to the left)")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize="small")
    return _save(fig, tmp, "contributions.png")


def _plot_ranking(tmp: str, ranking) -> str:
    systems = ranking.systems
    fig, ax = _figure(len(systems))
    pos = np.arange(len(systems))[::-1]
    peet = np.array([s.peet for s in systems])
    err = np.array([[s.peet - s.ci_low for s in systems], [s.ci_high - s.peet for s in systems]])
    ax.errorbar(peet, pos, xerr=np.clip(err, 0, None), fmt="o", capsize=4, color="tab:blue")
    ax.set_yticks(pos, [f"{k}. {s.name}" for k, s in enumerate(systems, 1)])
    ax.set_xlabel("PEET (s): mean predicted post-editing time per sentence; lower is better")
    ax.set_title(f"Ranking with 95 % bootstrap confidence intervals ({ranking.resamples} resamples)")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, tmp, "ranking.png")


def _correlated(ranking) -> list[tuple[str, str, bool]]:
    """(key, label, higher is better) of each metric in ranking.correlation, in its order."""
    out = []
    for key in ranking.correlation:
        if key == "systems":
            continue
        info = ranking.metrics.get(key)
        if info is not None and not ranking.own_figures:
            out.append((key, info.title, info.higher_is_better))
        else:
            out.append((key, ranking.labels().get(key, (key, key))[0], False))
    return out


def _metric_value(ranking, s, key: str) -> float:
    """A system's figure that ranking.correlation correlates: its score by that metric (a ranked one or the
    baseline, metrics.base.BASELINE, always among RankedSystem.metrics)."""
    return s.metrics[key].score


def _grid(n: int) -> tuple[int, int]:
    """(rows, columns) of n panels: at most two side by side, so that a page-wide image stays readable."""
    cols = min(2, n)
    return (n + cols - 1) // cols, cols


def _plot_metrics(tmp: str, ranking) -> str:
    """One panel per ranked metric: its score and 95 % interval per system, in the ranking's order; two panels a
    row, the system names on each row's first."""
    import matplotlib.pyplot as plt

    systems = ranking.systems
    infos = list(ranking.metrics.values())
    rows, cols = _grid(len(infos))
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols + 1.5, rows * max(2.5, 0.32 * len(systems) + 1.2)),
                             dpi=110, squeeze=False)
    pos = np.arange(len(systems))[::-1]
    names = [f"{k}. {s.name}" for k, s in enumerate(systems, 1)]
    for j, (ax, m) in enumerate(zip(axes.flat, infos)):
        score = np.array([s.metrics[m.name].score for s in systems])
        low = np.array([s.metrics[m.name].ci_low for s in systems])
        high = np.array([s.metrics[m.name].ci_high for s in systems])
        ax.errorbar(score, pos, xerr=np.clip(np.stack([score - low, high - score]), 0, None), fmt="o", capsize=4,
                    color=f"C{j % 10}")
        ax.set_yticks(pos, names if j % cols == 0 else [""] * len(pos))
        ax.set_xlabel(f"{m.title} ({'higher' if m.higher_is_better else 'lower'} is better)")
        ax.grid(axis="x", alpha=0.3)
    for ax in axes.flat[len(infos):]:
        ax.remove()
    fig.suptitle(f"Ranking by {infos[0].label}, with 95 % bootstrap confidence intervals ({ranking.resamples} "
                 f"paired resamples)")
    return _save(fig, tmp, "ranking.png")


def _plot_human(tmp: str, ranking) -> str:
    fig, _ = human_figure(ranking)
    return _save(fig, tmp, "human.png", layout=False)


def human_figure(ranking):
    """The "vs human" scatter plots, one panel per correlated metric, two a row: the figure, laid out, and per
    panel its label annotations (evaluation.labels: no overlaps, inside the panel; the systems' common name prefix
    left out, as the figure's title says)."""
    import matplotlib.pyplot as plt

    from peet_fast.evaluation.labels import common_prefix, place_labels

    have = [s for s in ranking.systems if s.human is not None]
    panels = _correlated(ranking)
    rows, cols = _grid(len(panels))
    fig, axes = plt.subplots(rows, cols, figsize=(5.6 * cols, 4.6 * rows + 0.3), dpi=110, squeeze=False)
    prefix = common_prefix([s.name for s in have])
    points = []
    for ax, (key, label, higher) in zip(axes.flat, panels):
        xy = [(_metric_value(ranking, s, key), s.human, s.name[len(prefix):]) for s in have]
        xy = [p for p in xy if np.isfinite(p[0]) and np.isfinite(p[1])]
        points.append((ax, xy))
        ax.scatter([p[0] for p in xy], [p[1] for p in xy], s=36, color="tab:blue", zorder=3)
        ax.margins(0.12)
        c = ranking.correlation[key]
        ax.set_title(f"{label} vs human: Spearman {_fmt(c['spearman'])}, Pearson {_fmt(c['pearson'])}",
                     fontsize="medium")
        ax.set_xlabel(f"{label} ({'higher' if higher else 'lower'} is better)")
        ax.set_ylabel("human score (higher is better)")
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(panels):]:
        ax.remove()
    if prefix:
        fig.suptitle(f"Labels: the system names without their common prefix '{prefix}'", fontsize="small")
    fig.tight_layout()
    placed = []
    for ax, xy in points:
        ax.set_xlim(ax.get_xlim())              # the limits are final before the labels are placed in pixels
        ax.set_ylim(ax.get_ylim())
        placed.append(place_labels(ax, [p[0] for p in xy], [p[1] for p in xy], [p[2] for p in xy]))
    return fig, placed


# --- HTML ----------------------------------------------------------------------------------------------------------------

def _fmt(x, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return "–"
    return f"{x:.{digits}f}"


def _distribution_table(ranking) -> str:
    rows = []
    for s, row in zip(ranking.systems, ranking.seconds):
        q1, med, q3 = np.quantile(row, [0.25, 0.5, 0.75])
        rows.append([s.name, _fmt(s.peet), _fmt(med), _fmt(q1), _fmt(q3), _fmt(row.max())])
    return _table(["system", "mean (PEET)", "median", "25 %", "75 %", "max"], rows)


def _contributions_table(names, terms, contrib, ranking) -> str:
    rows = [[n, *(_fmt(v) for v in contrib[k]), _fmt(s.peet)] for k, (n, s) in enumerate(zip(names, ranking.systems))]
    return _table(["system", *terms, "PEET"], rows)


def _table_metrics(ranking) -> list:
    """The metrics (MetricInfo) the ranking table shows, as rank prints them (cli.rank.ranking_columns): the ranked
    ones, in their order, and beside one alone with figures of its own (Ranking.own_figures) the baseline."""
    infos = list(ranking.metrics.values())
    return infos + [ranking.baseline] if ranking.own_figures else infos


def _metric_columns(ranking, m) -> list[tuple[str, object]]:
    """(sub-header, cell of a MetricScore) of one metric's group: its score; its 95 % interval and p (vs next)
    where it is ranked (the baseline beside the ranking has neither); then the figures it carries (MetricInfo.shown_figures)."""
    digits = 3 if m.fmt.endswith("3f") else 4
    cols = [("score", lambda f: _fmt(f.score, digits))]
    if m.name in ranking.metrics:
        cols += [("95 % CI", lambda f: f"[{_fmt(f.ci_low, digits)}, {_fmt(f.ci_high, digits)}]"),
                 ("p (vs next)", lambda f: _fmt(f.p_next))]
    carried = set().union(*(s.metrics[m.name].figures for s in ranking.systems))
    cols += [(head, lambda f, k=k: _fmt(f.figures.get(k), 4)) for k, (head, _) in m.shown_figures.items()
             if k in carried]
    return cols


def _ranking_table(ranking) -> str:
    """The ranking, one row per system: rank and name, then under each shown metric's name (_table_metrics) its
    group of columns (_metric_columns), then the human score and the sentences; below it, what the columns mean."""
    infos = _table_metrics(ranking)
    groups = [(m, _metric_columns(ranking, m)) for m in infos]
    heads = [[("rank", 1, 2), ("system", 1, 2), *((m.title, len(cols), 1) for m, cols in groups), ("human", 1, 2),
              ("sentences", 1, 2)],
             [(head, 1, 1) for _, cols in groups for head, _ in cols]]
    rows = [[k, s.name, *(cell(s.metrics[m.name]) for m, cols in groups for _, cell in cols), _fmt(s.human),
             s.sentences] for k, s in enumerate(ranking.systems, 1)]
    directions = ", ".join(f"{m.title}: {'higher' if m.higher_is_better else 'lower'} is better" for m in infos)
    beside = [m.title for m in infos if m.name not in ranking.metrics]
    if beside:
        directions += f" ({', '.join(beside)} computed beside the ranking: no interval or p-value)"
    text = (f"<p>Ranked by {html.escape(infos[0].label)}. {html.escape(directions)}. p (vs next): share of the "
            f"paired resamples in which a system is not strictly better than the next one by that metric.</p>")
    notes = [f"{head}: {meaning}" for m in infos for head, meaning in m.shown_figures.values()
             if any(head == h[0] for h in heads[1])]
    text += f"<p>{'; '.join(notes)}.</p>" if notes else ""
    return _table([], rows, left=(0, 1), head_rows=heads) + text


def _correlation_table(ranking, human_file) -> str:
    c = ranking.correlation
    panels = _correlated(ranking)
    rows = [[key if ranking.own_figures else label, _fmt(c[key]["spearman"]), _fmt(c[key]["pearson"])]
            for key, label, _ in panels]
    src = f" from {html.escape(human_file)}" if human_file else ""
    if ranking.own_figures:
        note = ("PEET and WER are lower-is-better and human scores higher-is-better, so a metric that agrees with "
                "the humans correlates negatively.")
    else:
        note = ("Human scores are higher-is-better: a lower-is-better metric that agrees with the humans "
                "correlates negatively, a higher-is-better one positively.")
    note += (" Sign: raw, the metrics' own scores correlated (peet-fast meta-eval instead negates a lower-is-better "
             "metric's scores first, so that positive is agreement there).")
    return (f"<p>Over the {c['systems']} systems with a human score{src}. {note}</p>"
            + _table(["metric", "Spearman", "Pearson"], rows))


_TITLES = {
    "distribution": "Per-sentence predicted time",
    "contributions": "Contribution of each model term to PEET",
    "ranking": "Ranking with 95 % confidence intervals",
    "human": "PEET and WER vs human scores",
}

_CSS = ("body{font-family:sans-serif;max-width:80em;margin:1em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .4em;text-align:right}"
        "td{white-space:nowrap}th{vertical-align:bottom}th[colspan]{text-align:center}"
        "div.table{overflow-x:auto;max-width:100%;font-size:.88em}"
        ".l{text-align:left}img{max-width:100%}")


def _page(title: str, ranking, model, sections, human_file, extra=()) -> str:
    e = html.escape
    what = f"Model: {e(model.name)} ({e(model.feature_set)} features). " if model is not None else ""
    if not ranking.own_figures:
        what += "Metrics: " + e(", ".join(m.label for m in ranking.metrics.values())) + ". "
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">', _MARKER,
             f"<title>{e(title)}</title><style>{_CSS}</style></head><body>", f"<h1>{e(title)}</h1>",
             f"<p>{what}{len(ranking.systems)} systems, "
             f"{ranking.wer.shape[1]} sentences; bootstrap: {ranking.resamples} paired resamples, seed "
             f"{ranking.seed}. p (vs next): share of resamples in which a system is not strictly better than the "
             f"next one in the ranking.</p>"]
    titles = dict(_TITLES)
    if not ranking.own_figures:
        titles.update(ranking="Ranking by each metric with 95 % confidence intervals", human="Metrics vs human scores")
    for sid, img, body in sections:
        parts.append(f'<section id="{sid}"><h2>{e(titles[sid])}</h2>'
                     f'<img src="{e(img)}" alt="{e(titles[sid])}">{body}</section>')
    for sec, images in extra:
        parts.append(f'<section id="{e(sec.sid)}"><h2>{e(sec.title)}</h2>{sec.body}'
                     + "".join(f'<img src="{e(img)}" alt="{e(sec.title)}: {e(img)}">' for img in images)
                     + "</section>")
    parts += [signatures_html(m.signature for m in ranking.metrics.values()), "</body></html>\n"]
    return "\n".join(parts)
