"""`meta-eval --plot DIR`: PNG figures of a meta-evaluation summary (matplotlib, Agg backend).

- ``window-HUMAN.png``: per metric, Pearson (solid) and Spearman (dashed) of each window against the rank the
  window starts at (needs --window);
- ``pairwise-METRIC-JUDG.png``: the accuracy of each cell (better rank, worse rank) of the pairwise analysis;
- ``scatter-METRIC-HUMAN.png``: each system's (oriented) metric score against its human score, every point
  labelled with its system; labels are placed so that no two of them (nor a label and a point) overlap
  (:func:`place_labels`: candidate positions around the point, nearest first, checked on the rendered text's
  bounding boxes)."""
from __future__ import annotations

import os
import re
from typing import Sequence

TITLES = {"ew_sent": "EW (SEEDA-S)", "ew_edit": "EW (SEEDA-E)", "ts_sent": "TrueSkill (SEEDA-S)",
          "ts_edit": "TrueSkill (SEEDA-E)", "ew": "Expected Wins", "ts": "TrueSkill"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", name)


def _overlaps(a, b, pad: float = 1.0) -> bool:
    return not (a.x1 + pad <= b.x0 or b.x1 + pad <= a.x0 or a.y1 + pad <= b.y0 or b.y1 + pad <= a.y0)


def place_labels(ax, xs: Sequence[float], ys: Sequence[float], labels: Sequence[str], fontsize: float = 8) -> list:
    """Annotate each point (xs[k], ys[k]) with labels[k] where its text box overlaps no label placed before it, no
    point marker and stays inside the axes: offsets in points tried on growing rings of 8 directions; a label with
    no free place gets the last candidate (and a leader line). Returns the Annotation objects."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    axes_box = ax.get_window_extent(renderer)
    pts = ax.transData.transform(list(zip(xs, ys)))
    marker = 4.0 * fig.dpi / 72.0                       # half a marker's size, in pixels
    point_boxes = [(px - marker, py - marker, px + marker, py + marker) for px, py in pts]
    placed: list = []
    out = []
    directions = [(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1)]
    for k, text in enumerate(labels):
        chosen = None
        for ring in (6, 12, 20, 30, 42, 56):
            for dx, dy in directions:
                ann = ax.annotate(text, (xs[k], ys[k]), xytext=(dx * ring, dy * ring), textcoords="offset points",
                                  fontsize=fontsize, ha="left" if dx > 0 else "right" if dx < 0 else "center",
                                  va="bottom" if dy > 0 else "top" if dy < 0 else "center")
                box = ann.get_window_extent(renderer)
                inside = (box.x0 >= axes_box.x0 and box.x1 <= axes_box.x1 and box.y0 >= axes_box.y0
                          and box.y1 <= axes_box.y1)
                free = inside and not any(_overlaps(box, b) for b in placed) and not any(
                    not (box.x1 <= x0 or x1 <= box.x0 or box.y1 <= y0 or y1 <= box.y0)
                    for x0, y0, x1, y1 in point_boxes)
                if free:
                    chosen = (ann, box)
                    break
                ann.remove()
            if chosen:
                break
        if chosen is None:
            ann = ax.annotate(text, (xs[k], ys[k]), xytext=(0, 60), textcoords="offset points", fontsize=fontsize,
                              ha="center", arrowprops={"arrowstyle": "-", "lw": 0.5})
            chosen = (ann, ann.get_window_extent(renderer))
        placed.append(chosen[1])
        out.append(chosen[0])
    return out


def scatter(summary: dict, metric: str, human: str, human_scores: dict):
    """The figure of metric vs human system scores (labels placed by place_labels)."""
    plt = _pyplot()
    systems = summary["systems"]
    m = summary["metrics"][metric]["system_scores"]
    xs = [human_scores[s] for s in systems]
    ys = [m[s] for s in systems]
    fig, ax = plt.subplots(figsize=(7, 5.5))
    ax.scatter(xs, ys, s=16, zorder=3)
    span_x = (max(xs) - min(xs)) or 1.0
    span_y = (max(ys) - min(ys)) or 1.0
    ax.set_xlim(min(xs) - 0.25 * span_x, max(xs) + 0.25 * span_x)
    ax.set_ylim(min(ys) - 0.25 * span_y, max(ys) + 0.25 * span_y)
    corr = summary["metrics"][metric].get("system", {}).get(human, {})
    r = corr.get("pearson")
    ax.set_title(f"{metric} vs {TITLES.get(human, human)}" + (f" (r = {r:.3f})" if r is not None else ""))
    ax.set_xlabel(f"human: {TITLES.get(human, human)}")
    sign = "" if summary["metrics"][metric]["higher_is_better"] else " (sign flipped: higher is better)"
    ax.set_ylabel(f"{metric}{sign}")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    place_labels(ax, xs, ys, systems)
    return fig


MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "<")


def styles(n: int) -> list[tuple[str, str]]:
    """n distinct (colour, marker) pairs: matplotlib's 10 default colours, and a marker that changes with the colour
    and again each 10 metrics, so that no two of up to 100 metrics look alike (more: refused)."""
    if n > 100:
        raise ValueError(f"{n} metrics in one window plot; at most 100 are told apart")
    return [(f"C{k % 10}", MARKERS[(k % 10 + k // 10) % 10]) for k in range(n)]


def window_figure(summary: dict, human: str):
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8.5, 4.5))
    metrics = summary["metrics"]
    for (name, m), (color, marker) in zip(metrics.items(), styles(len(metrics))):
        rows = m["window"][human]
        x = [r["from"] for r in rows]
        name = name if m.get("higher_is_better", True) else f"{name} (-)"      # negated: lower is better
        ax.plot(x, [r["pearson"] if r["pearson"] is not None else float("nan") for r in rows], color=color,
                marker=marker, label=f"{name} Pearson")
        ax.plot(x, [r["spearman"] if r["spearman"] is not None else float("nan") for r in rows], color=color,
                linestyle="--", marker=marker, markerfacecolor="none", label=f"{name} Spearman")
    ax.set_xticks(x)
    ax.set_xlabel(f"window start (human rank; {summary['window_size']} systems per window)")
    ax.set_ylabel("correlation")
    ax.set_ylim(-1.05, 1.05)
    ax.set_title(f"window analysis: {TITLES.get(human, human)}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))       # outside the lines
    fig.tight_layout()
    return fig


def heatmap(summary: dict, metric: str, judgments: str):
    plt = _pyplot()
    import numpy as np

    cells = summary["metrics"][metric]["pairwise"][judgments]
    top = max(max(c["ranks"]) for c in cells)
    grid = np.full((top, top), np.nan)
    for c in cells:
        a, b = c["ranks"]
        grid[a - 1, b - 1] = c["accuracy"]
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    im = ax.imshow(grid, cmap="coolwarm", vmin=0.0, vmax=1.0)
    for c in cells:
        a, b = c["ranks"]
        ax.text(b - 1, a - 1, f"{c['accuracy']:.2f}\n({c['pairs']})", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(top), [str(i + 1) for i in range(top)])
    ax.set_yticks(range(top), [str(i + 1) for i in range(top)])
    ax.set_xlabel("worse output's human rank")
    ax.set_ylabel("better output's human rank")
    ax.set_title(f"{metric}: pairwise accuracy ({judgments})")
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    return fig


def write_plots(summary: dict, directory: str, human_scores: dict | None = None, inputs: Sequence = ()) -> list[str]:
    """Every figure of the summary as PNG files in directory (created); returns their paths. human_scores:
    {HUMAN: {system: score}} for the scatter plots (None: taken from the summary's "human"); inputs: files no plot
    may replace (peet_fast.io.check_output). Each file is written atomically."""
    plt = _pyplot()
    os.makedirs(directory, exist_ok=True)
    human_scores = human_scores or summary.get("human") or {}
    written = []

    def save(fig, name):
        from peet_fast.io import atomic_write, check_output

        path = os.path.join(directory, _safe(name) + ".png")
        check_output(path, inputs)
        with atomic_write(path, "wb", encoding=None) as fh:
            fig.savefig(fh, format="png", dpi=100)
        plt.close(fig)
        written.append(path)

    metrics = summary["metrics"]
    if summary.get("window_size") and metrics:
        for human in next(iter(metrics.values()))["window"]:
            save(window_figure(summary, human), f"window-{human}")
    for name, m in metrics.items():
        for judg in m.get("pairwise", {}):
            save(heatmap(summary, name, judg), f"pairwise-{name}-{judg}")
        for human, scores in human_scores.items():
            save(scatter(summary, name, human, scores), f"scatter-{name}-{human}")
    return written
