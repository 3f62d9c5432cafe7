"""The report's page reads at page width (issue 27): the "vs human" panels in a grid of at most two columns, scatter
labels that overlap neither each other nor any marker and stay inside their panel (the text boxes measured with
matplotlib's own renderer, as the PNG is drawn), and system names that do not wrap in the tables."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from peet_fast.evaluation.labels import common_prefix, place_labels

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


def boxes(fig, texts):
    """Each label's text box (an Annotation's own extent includes its leader line)."""
    from matplotlib.text import Text

    renderer = fig.canvas.get_renderer()
    return [Text.get_window_extent(t, renderer) for t in texts]


def assert_readable(ax, texts, xs, ys, marker_size=36.0):
    """No two label boxes overlap, none overlaps a marker, every one lies inside the panel."""
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    got = boxes(fig, texts)
    for t, b in zip(texts, got):
        assert frame.x0 <= b.x0 and b.x1 <= frame.x1 and frame.y0 <= b.y0 and b.y1 <= frame.y1, \
            (t.get_text(), b, frame)
    for (i, a), (j, b) in itertools.combinations(enumerate(got), 2):
        assert not a.overlaps(b), (texts[i].get_text(), texts[j].get_text(), a, b)
    half = np.sqrt(marker_size) / 2 * fig.dpi / 72
    for x, y in ax.transData.transform(np.column_stack([xs, ys])):
        for t, b in zip(texts, got):
            assert not (b.x0 < x + half and x - half < b.x1 and b.y0 < y + half and y - half < b.y1), \
                (t.get_text(), (x, y), b)


CONLL = {"AMU": (0.320, 0.628), "RAC": (0.2672, 0.566), "CAMB": (0.3733, 0.561), "CUUI": (0.3175, 0.550),
         "POST": (0.3071, 0.539), "UFC": (0.0784, 0.513), "PKU": (0.2564, 0.506), "UMC": (0.2531, 0.495),
         "IITB": (0.0495, 0.485), "SJTU": (0.1524, 0.463), "INPUT": (0.0, 0.456), "NTHU": (0.2936, 0.437),
         "IPN": (0.0768, 0.300)}


@pytest.mark.parametrize("seed", [None, 0, 1, 2, 3])
def test_labels_are_laid_out_without_overlap_inside_the_panel(seed):
    """The CoNLL-14 systems' M2 against human scores (CAMB, CUUI, RAC, POST crowd together), and random clusters of
    13 points with long names, some on the panel's edge."""
    import matplotlib.pyplot as plt

    if seed is None:
        names = list(CONLL)
        xs, ys = (np.array(v) for v in zip(*CONLL.values()))
    else:
        rng = np.random.default_rng(seed)
        centres = rng.uniform(0, 1, size=(3, 2))
        pts = centres[rng.integers(0, 3, size=13)] + rng.normal(0, 0.02, size=(13, 2))
        xs, ys = pts[:, 0], pts[:, 1]
        xs[0], ys[0] = xs.max(), ys.max()                     # a corner point
        names = [f"system-{k}-" + "x" * int(rng.integers(1, 9)) for k in range(13)]
    fig, ax = plt.subplots(figsize=(5.6, 4.6), dpi=110)
    ax.scatter(xs, ys, s=36)
    ax.set_title("a title")
    fig.tight_layout()
    texts = place_labels(ax, xs, ys, names)
    fig.canvas.draw()
    assert [t.get_text() for t in texts] == names
    assert_readable(ax, texts, xs, ys)
    plt.close(fig)


def test_common_prefix():
    assert common_prefix(["conll14-task-AMU", "conll14-task-CAMB", "conll14-task-INPUT"]) == "conll14-task-"
    assert common_prefix(["conll14-task-A", "conll14-taskB"]) == "conll14-"
    assert common_prefix(["sys-a", "sys-"]) == ""                     # a name would be left empty
    assert common_prefix(["abc", "abd"]) == "" and common_prefix(["one"]) == ""


def _columns(fig) -> int:
    return len({round(ax.get_position().x0, 3) for ax in fig.axes})


def test_the_human_figure_of_a_ranking_is_readable():
    """13 systems with human scores (a synthetic PEET ranking): the PEET and WER panels side by side, every label
    readable; the system names' common prefix is left out of the labels and said in the figure's title."""
    from peet_fast.evaluation import report as rp
    from tests.evaluation.test_report import synthetic_ranking

    ranking, _ = synthetic_ranking({f"sys-{k}": float((k * 7) % 13) for k in range(13)}, n_systems=13, n=60)
    fig, placed = rp.human_figure(ranking)
    fig.canvas.draw()
    assert len(fig.axes) == 2 and _columns(fig) == 2
    assert fig._suptitle.get_text() == "Labels: the system names without their common prefix 'sys-'"
    for ax, texts in zip(fig.axes, placed):
        assert sorted(t.get_text() for t in texts) == sorted(str(k) for k in range(13))
        xs, ys = np.array([t.xy for t in texts]).T
        assert_readable(ax, texts, xs, ys)


def test_conll14_report_with_human_scores_reads_at_page_width(shared_corpora, tmp_path, monkeypatch):
    """`report` on the 13 CoNLL-14 systems with --metric m2 gleu wer --human gjg_EW.csv: the three "vs human"
    panels two a row (the PNG at most two panels wide), every label readable, and tables whose cells do not wrap."""
    from peet_fast.cli import main
    from peet_fast.evaluation import report as rp

    c = shared_corpora / "conll14"
    made = []
    real = rp.human_figure

    def recording(ranking):
        made.append(real(ranking))
        return made[-1]

    monkeypatch.setattr(rp, "human_figure", recording)
    systems = sorted((c / "systems").glob("conll14-task-*.txt"))
    assert len(systems) == 13
    out = tmp_path / "report"
    assert main(["report", "--hyp", *map(str, systems), "--ref", str(c / "official-2014.combined.m2"), "--metric",
                 "m2", "gleu", "wer", "--human", str(c / "human" / "gjg_EW.csv"), "--bootstrap", "200", "--out",
                 str(out), "--quiet"]) == 0
    (fig, placed), = made
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)                         # the report closed it (pyplot drops a closed figure's canvas)
    fig.canvas.draw()
    assert len(fig.axes) == 3 and _columns(fig) == 2
    for ax, texts in zip(fig.axes, placed):
        assert len(texts) == 13 and "AMU" in [t.get_text() for t in texts]
        xs, ys = np.array([t.xy for t in texts]).T
        assert_readable(ax, texts, xs, ys)
    from tests.evaluation.test_report import png_size

    assert png_size(out / "human.png")[0] <= 2 * 5.6 * 110 + 1
    page = (out / "index.html").read_text("utf-8")
    assert "td{white-space:nowrap}" in page
    assert '<td class="l">conll14-task-AMU</td>' in page
    assert page.count("<table>") == page.count('<div class="table"><table>')
