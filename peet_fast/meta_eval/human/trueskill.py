"""TrueSkill system scores from pairwise judgments: the WMT14 procedure (Sakaguchi, Post and Van Durme 2014) as GJG15
run it (grammatical/evaluation's data/scripts/wmt-trueskill/TS.py -n 2 -d 0, a thousand times, then cluster.py),
on the compiled two-player update of peet_fast._ext.trueskill (equal to the `trueskill` package's rate()).

One run of TS.py on N pairwise judgments (ties included): every system starts at mu 0, sigma 0.5; the environment
has beta = 0.5 * (N + 1) / 40, tau 0 and draw probability 0.25 (draw margin as the package computes it); N + 1
matches are played, each between the system of largest sigma and an opponent drawn with probability proportional to
exp(-|mu_a - mu_b|), the outcome being one of that pair's judgments drawn at random. A system's TrueSkill score is
the mean of its final mu over the runs, its rank range the middle 95 % of its ranks in the runs (clusters.py).
Every run is random (TS.py seeds Python 2's random from the clock), so a published TrueSkill figure is one draw of
that mean: its spread over sets of runs is what a reproduction can match (docs/meta-eval.md).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from peet_fast._ext import trueskill as _ts
from peet_fast.meta_eval.human.expected_wins import resampled_counts
from peet_fast.meta_eval.human.judgments import Pairs, pair_table


@dataclass(frozen=True)
class Environment:
    """TrueSkill constants (the `trueskill` package's TrueSkill(mu, sigma, beta, tau, draw_probability))."""
    mu: float = 0.0
    sigma: float = 0.5
    beta: float = 0.25
    tau: float = 0.0
    draw_probability: float = 0.25

    @property
    def draw_margin(self) -> float:
        """The package's calc_draw_margin(draw_probability, 2 players)."""
        return _ts.draw_margin(self.draw_probability, self.beta)


# TS.py's constants (param_sigma, param_tau, draw_rate; beta depends on the number of matches: gjg15_beta)
GJG15_SIGMA, GJG15_TAU, GJG15_DRAW = 0.5, 0.0, 0.25


def gjg15_matches(n_judgments: int) -> int:
    """TS.py -d 0: every pairwise judgment once in expectation, plus one (`num_rankings / 1 + 1`)."""
    return n_judgments + 1


def gjg15_beta(n_matches: int) -> float:
    """TS.py's `param_beta = param_sigma * (num_iter/40.0)`."""
    return GJG15_SIGMA * (n_matches / 40.0)


def rate_matches(n_players: int, first, second, drawn=None, env: Environment = Environment(),
                 mu=None, sigma=None) -> tuple[np.ndarray, np.ndarray]:
    """Ratings after the matches, played in order: match k is first[k] beating second[k] (drawn[k] true: the two
    drawing). Starts at env's mu and sigma (or the given arrays). Returns (mu, sigma) arrays, as the package's
    rate([(a,), (b,)], ranks=...) would leave them match after match (to about 1e-15: the closed form's rounding
    is not the factor graph's). The compiled update gjg15_runs plays, exposed for its test against the package.

    gec-metrics' aggregation of a metric's sentence scores (meta_eval.metric.system.trueskill_scores) runs on the
    package itself, not on this: there the figures are gec-metrics' own to the last bit, which this update would
    change by up to 2.4e-15 (measured on SEEDA-sized scores)."""
    first = np.ascontiguousarray(first, dtype=np.int64)
    second = np.ascontiguousarray(second, dtype=np.int64)
    drawn = np.zeros(len(first), dtype=np.int8) if drawn is None else np.ascontiguousarray(drawn, dtype=np.int8)
    m = np.full(n_players, env.mu, dtype=np.float64) if mu is None else np.array(mu, dtype=np.float64)
    s2 = (np.full(n_players, env.sigma ** 2) if sigma is None else np.asarray(sigma, dtype=np.float64) ** 2).copy()
    _ts.rate_matches(m, s2, first, second, drawn, env.beta, env.tau, env.draw_margin)
    return m, np.sqrt(s2)


def gjg15_runs(pairs: Pairs, runs: int, seed: int = 0, unit: str = "pairs") -> tuple[np.ndarray, np.ndarray]:
    """(mu, sigma^2), each (runs, systems): `runs` runs of TS.py -n 2 -d 0 on the pairwise judgments. unit "pairs":
    every run on all of them (GJG15's recipe: a run's own random matches are its resample); "items": every run on
    a bootstrap resample of the ranking items first (expected_wins.resampled_counts). seed fixes every random draw."""
    n = len(pairs.systems)
    if unit == "pairs":
        counts = pairs.counts()[None]
    else:
        counts = resampled_counts(pairs, runs, np.random.default_rng(seed), unit)
    totals = counts.sum(axis=(1, 2))
    matches = np.broadcast_to(totals + 1, (runs,)).astype(np.int64)
    beta = GJG15_SIGMA * (matches / 40.0)
    margin = np.array([_ts.draw_margin(GJG15_DRAW, b) for b in beta], dtype=np.float64)
    return _ts.gjg15_runs(np.ascontiguousarray(counts, dtype=np.int64), pair_table(n), matches,
                          np.ascontiguousarray(beta, dtype=np.float64), margin, 0.0, GJG15_SIGMA, GJG15_TAU,
                          int(seed) & 0xFFFFFFFFFFFFFFFF)
