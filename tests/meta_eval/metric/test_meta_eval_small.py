"""Issue 35 point 5: window plots never repeat a metric's look; a wrong --gold is named in its own error."""
from __future__ import annotations

import pytest

from peet_fast.io import InputError
from peet_fast.meta_eval.metric import plots


def test_styles_never_repeat():
    for n in (1, 11, 12, 100):
        got = plots.styles(n)
        assert len(set(got)) == n
    # the first ten differ in colour and marker both; the 11th (cleme2 after peet in the registry) not like the 1st
    first = plots.styles(11)
    assert len({c for c, _ in first[:10]}) == 10 and len({m for _, m in first[:10]}) == 10
    assert first[10][1] != first[0][1]
    with pytest.raises(ValueError):
        plots.styles(101)


def test_window_plot_lines_distinct():
    pytest.importorskip("matplotlib")
    rows = [{"from": k + 1, "to": k + 4, "pearson": 0.1 * k, "spearman": -0.1 * k} for k in range(3)]
    summary = {"window_size": 4, "metrics": {f"m{k}": {"window": {"ew": rows}, "higher_is_better": k != 3}
                                             for k in range(12)}}
    fig = plots.window_figure(summary, "ew")
    lines = fig.axes[0].get_lines()
    assert lines[6].get_label() == "m3 (-) Pearson"                 # a negated metric says so
    pearson = [(ln.get_color(), ln.get_marker()) for ln in lines if ln.get_label().endswith("Pearson")]
    assert len(pearson) == 12 and len(set(pearson)) == 12
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_short_gold_is_named(shared_corpora, tmp_path):
    """A gold M2 of 3 blocks: the error names the gold (was: judgments_sent.xml, 'src-id 12 is past ...')."""
    from peet_fast.meta_eval.metric import data as D

    gold = tmp_path / "short.m2"
    gold.write_text("S A b .\nA 0 1|||R:NOUN|||a|||REQUIRED|||-NONE-|||0\n\nS C .\n\nS D .\n\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        D.load("seeda", str(shared_corpora / "judgments" / "seeda"), str(gold), "base")
    assert str(gold) in str(err.value) and "CoNLL-14" in str(err.value)
    assert "judgments_sent.xml" in str(err.value)       # and what it was checked against
