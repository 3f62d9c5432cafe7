"""One Expected Wins (issue 34): human.expected_wins.expected_wins_of holds EW.pl's convention (human rankings) and
gec-metrics' run_expected_wins convention (a metric's sentence scores, metric.system.aggregate(..., "ew")); the
latter is checked here against a transcription of gec-metrics' loop, to the last bit."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from peet_fast.meta_eval.human.expected_wins import expected_wins_of
from peet_fast.meta_eval.metric import system as SY


def gec_metrics_loop(wins) -> list[float]:
    """gec-metrics' run_expected_wins on a win-count matrix: for each system, the sum over the others of its share
    of their comparisons (0.5 where they were never compared), in index order, divided by S - 1."""
    w = np.asarray(wins, dtype=np.float64).tolist()
    out = []
    for a in range(len(w)):
        acc = 0.0
        for b in range(len(w)):
            if a != b:
                total = w[a][b] + w[b][a]
                acc += w[a][b] / total if total else 0.5
        out.append(acc / max(len(w) - 1, 1))
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9).flatmap(lambda s: st.lists(st.lists(st.integers(0, 7), min_size=s, max_size=s),
                                                        min_size=s, max_size=s)))
def test_all_opponents_is_gec_metrics_to_the_last_bit(rows):
    wins = np.array(rows, dtype=np.int64)
    np.fill_diagonal(wins, 0)
    assert expected_wins_of(wins, "all").tolist() == gec_metrics_loop(wins)
    stacked = expected_wins_of(np.stack([wins, wins.T]), "all")          # several matrices at once
    assert stacked[1].tolist() == gec_metrics_loop(wins.T)
    assert SY.expected_wins(wins).tolist() == gec_metrics_loop(wins)


def test_the_two_conventions_by_hand():
    # A beat B twice, B beat A once; A and C never compared; B beat C once, C never beat B
    wins = np.array([[0, 2, 0], [1, 0, 1], [0, 0, 0]])
    # EW.pl: over the opponents a system beat: A {B}: 2/3; B {A, C}: (1/3 + 1) / 2; C none: 0
    assert expected_wins_of(wins, "beaten") == pytest.approx([2 / 3, 2 / 3, 0.0], abs=1e-15)
    # gec-metrics: over every other system, never compared = 0.5: A (2/3 + 0.5) / 2; B (1/3 + 1) / 2; C (0.5 + 0) / 2
    assert expected_wins_of(wins, "all") == pytest.approx([(2 / 3 + 0.5) / 2, 2 / 3, 0.25], abs=1e-15)
    with pytest.raises(ValueError, match="opponents must be one of beaten, all"):
        expected_wins_of(wins, "some")
