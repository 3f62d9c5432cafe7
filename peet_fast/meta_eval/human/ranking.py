"""Human system rankings from ranking judgments, as GJG15's Table 3: each system's Expected Wins (EW.pl) or TrueSkill
score (TS.py runs, their mean mu) with its rank range and cluster from bootstrap runs (cluster.py)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from peet_fast.io import InputError
from peet_fast.meta_eval.human.clusters import cluster_numbers, range_text, rank_ranges, run_ranks
from peet_fast.meta_eval.human.expected_wins import bootstrap_expected_wins, expected_wins
from peet_fast.meta_eval.human.judgments import TIE, Judgments, read_judgments
from peet_fast.meta_eval.human.trueskill import gjg15_runs

METHODS = ("ew", "ts")
UNITS = ("pairs", "items")


@dataclass(frozen=True)
class RankedSystem:
    """score: Expected Wins on all judgments (ew) or the mean final mu of the runs (ts); sd: the standard deviation
    of the score over the bootstrap runs; rank_range: (best, worst) or None without a bootstrap."""
    name: str
    score: float
    sd: float | None
    rank_range: tuple[int, int] | None
    cluster: int | None

    @property
    def range_text(self) -> str:
        return range_text(self.rank_range)


@dataclass
class HumanRanking:
    method: str
    systems: list[RankedSystem]
    judgments: str
    items: int
    pairs: int
    ties: int
    bootstrap: int
    resample: str
    seed: int
    confidence: float
    extra: dict = field(default_factory=dict)

    def summary(self) -> dict:
        """{"method", "systems": {NAME: {"score", "rank_range", "cluster", "sd"}}, ...} (rank_range [best, worst]
        or null), systems best first."""
        return {"method": self.method, "judgments": self.judgments, "items": self.items, "pairs": self.pairs,
                "ties": self.ties, "bootstrap": self.bootstrap, "resample": self.resample, "seed": self.seed,
                "confidence": self.confidence,
                "systems": {s.name: {"score": s.score, "rank_range": None if s.rank_range is None else
                                     list(s.rank_range), "cluster": s.cluster, "sd": s.sd} for s in self.systems}}


def check_options(method: str, bootstrap: int, seed: int, resample: str, confidence: float) -> None:
    if method not in METHODS:
        raise InputError("method", f"{method!r} is not one of {', '.join(METHODS)}")
    if bootstrap < 0 or (method == "ts" and bootstrap < 1):
        raise InputError("bootstrap", "TrueSkill needs at least one run (GJG15: 1000)" if method == "ts" else
                         "must be 0 (no rank ranges) or more")
    if seed < 0:
        raise InputError("seed", "must be a non-negative integer")
    if resample not in UNITS:
        raise InputError("resample", f"{resample!r} is not one of {', '.join(UNITS)}")
    if not 0 < confidence <= 1:
        raise InputError("confidence", "must be in (0, 1]")


def judged_pairs(judgments: Judgments, systems: Sequence[str]):
    """judgments.pairs(systems), refused (InputError naming the file) when it holds no pair the annotators ranked
    apart: no pairwise judgment at all, or only ties (no system ranked above another: every figure of it would be
    undefined or a constant)."""
    pairs = judgments.pairs(systems)
    if len(pairs) == 0:
        raise InputError(judgments.path, "no pairwise judgment among the systems ranked")
    if not (pairs.outcome != TIE).any():
        raise InputError(judgments.path, f"all {len(pairs):,} pairwise judgments among the systems ranked are ties: "
                                         "no system is ranked above another")
    return pairs


def human_rank(judgments: str | os.PathLike | Judgments, method: str = "ew", bootstrap: int = 1000, seed: int = 0,
               systems: Sequence[str] | None = None, resample: str = "pairs", confidence: float = 0.95,
               ties: bool = False) -> HumanRanking:
    """The systems of an Appraise ranking file (or Judgments) ranked by Expected Wins ("ew") or TrueSkill ("ts").

    ew: scores on all pairwise judgments (EW.pl; ties: EW.pl -t); rank ranges from `bootstrap` resamples of the
    pairwise judgments (resample "pairs", EW.pl's and GJG15's) or of the ranking items ("items").
    ts: `bootstrap` runs of TS.py -n 2 -d 0 (on resampled items first with "items"); the score is the mean mu.
    systems: rank only these (the others are dropped from every item). seed fixes every random draw."""
    check_options(method, bootstrap, seed, resample, confidence)
    if not isinstance(judgments, Judgments):
        judgments = read_judgments(judgments)
    names = judgments.check_systems(systems) if systems is not None else list(judgments.systems)
    if len(names) < 2:
        raise InputError("systems", "give at least two systems to rank")
    pairs = judged_pairs(judgments, names)
    if method == "ts":
        compared = np.zeros(len(pairs.systems), dtype=bool)
        compared[pairs.first] = compared[pairs.second] = True
        never = [s for s, c in zip(pairs.systems, compared) if not c]
        if never:
            raise InputError(judgments.path, f"system {never[0]!r} is never ranked with another system: TrueSkill "
                                             "cannot rate it")
    rng = np.random.default_rng(seed)
    if method == "ew":
        full = expected_wins(pairs, ties)
        point = np.array([full[s] for s in pairs.systems])
        runs = bootstrap_expected_wins(pairs, bootstrap, rng, resample, ties) if bootstrap else None
        tiebreak = None                                   # EW.py writes a dummy 0.001 as every system's variance
    else:
        runs, tiebreak = gjg15_runs(pairs, bootstrap, seed, resample)
        point = runs.mean(axis=0)
    sd = runs.std(axis=0) if runs is not None else None
    if method == "ts":                                    # cluster.py lists by (mean mu, its std, name), reversed
        order = sorted(range(len(point)), key=lambda k: (point[k], sd[k], pairs.systems[k]), reverse=True)
    else:                                                 # EW.pl lists by score; ties here by name
        order = sorted(range(len(point)), key=lambda k: (-point[k], pairs.systems[k]))
    if runs is not None:
        ranges = rank_ranges(run_ranks(runs, tiebreak), confidence)
        listed = [ranges[k] for k in order]
        clusters = cluster_numbers(listed)
    else:
        listed, clusters = [None] * len(order), [None] * len(order)
    ranked = [RankedSystem(pairs.systems[k], float(point[k]), None if sd is None else float(sd[k]), rr, c)
              for k, rr, c in zip(order, listed, clusters)]
    return HumanRanking(method, ranked, judgments.path, len(judgments), len(pairs), int((pairs.outcome == 1).sum()),
                        bootstrap, resample, seed, confidence)
