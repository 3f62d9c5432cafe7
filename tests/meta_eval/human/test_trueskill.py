"""TrueSkill (issue 29, point 1): the compiled two-player update against the `trueskill` package (PyPI, 0.4.5) on the
same matches; GJG15's TS.py run (transcribed here on the package, fed the same random numbers) against the compiled
run; and the published TrueSkill scores (GJG15 Table 3c, SEEDA's TS_*.txt), which are means of random runs: ours
must lie within what that randomness allows."""
from __future__ import annotations

import csv
import math

import numpy as np
import pytest
from conftest import FIXTURES, SHARED_CORPORA
from hypothesis import given, settings
from hypothesis import strategies as st

from peet_fast._ext import trueskill as compiled
from peet_fast.meta_eval.human.ranking import human_rank
from peet_fast.meta_eval.human.judgments import pair_table, read_judgments
from peet_fast.meta_eval.human.trueskill import Environment, gjg15_beta, gjg15_matches, gjg15_runs, rate_matches

trueskill = pytest.importorskip("trueskill")

SYNTHETIC = FIXTURES / "human_rank" / "synthetic.xml"
JUDGMENTS = SHARED_CORPORA / "judgments"
HUMAN = SHARED_CORPORA / "conll14" / "human"
SEEDA_SYSTEMS = ("BART BERT-fuse GECToR-BERT GECToR-ens GPT-3.5 INPUT LM-Critic PIE REF-F REF-M Riken-Tohoku T5 "
                 "TemplateGEC TransGEC UEDIN-MS").split()
shared = pytest.mark.skipif(not JUDGMENTS.is_dir(), reason="../shared/corpora/judgments not present")


def package_env(env: Environment):
    return trueskill.TrueSkill(mu=env.mu, sigma=env.sigma, beta=env.beta, tau=env.tau,
                               draw_probability=env.draw_probability)


@pytest.mark.parametrize("p, beta", [(0.25, 0.25), (0.1, 4.1666), (0.25, 1363.7375), (0.6, 0.01)])
def test_draw_margin_and_normal_functions_are_the_packages(p, beta):
    env = trueskill.TrueSkill(mu=0, sigma=0.5, beta=beta, tau=0, draw_probability=p)
    assert compiled.draw_margin(p, beta) == pytest.approx(trueskill.calc_draw_margin(p, 2, env), rel=1e-13)
    for x in (-7.5, -1.3, -1e-3, 0.0, 0.4, 2.2, 6.0):
        assert compiled.normal_cdf(x) == pytest.approx(env.cdf(x), rel=1e-13, abs=1e-300)
    for q in (0.01, 0.3, 0.5, 0.625, 0.9):
        assert compiled.normal_ppf(q) == pytest.approx(env.ppf(q), rel=1e-12, abs=1e-15)


matches = st.integers(2, 6).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, n - 1), st.booleans()), max_size=30)))
environments = st.builds(Environment, mu=st.floats(-5, 30), sigma=st.floats(0.1, 8), beta=st.floats(0.05, 5),
                         tau=st.floats(0, 0.3), draw_probability=st.floats(0.02, 0.7))


@settings(max_examples=150, deadline=None)
@given(matches, environments)
def test_the_update_equals_the_packages_rate_on_the_same_matches(game, env):
    n, plays = game
    first = [a for a, _, _ in plays]
    second = [(a + d) % n for a, d, _ in plays]           # never a itself
    drawn = [d for _, _, d in plays]
    ts = package_env(env)
    ratings = [ts.create_rating() for _ in range(n)]
    failed_at = None
    for k, (a, b, d) in enumerate(zip(first, second, drawn)):
        try:
            (ra,), (rb,) = ts.rate([(ratings[a],), (ratings[b],)], ranks=[0, 0] if d else [0, 1])
        except FloatingPointError:
            failed_at = k
            break
        ratings[a], ratings[b] = ra, rb
    if failed_at is not None:
        with pytest.raises(FloatingPointError, match=f"match {failed_at}:"):
            rate_matches(n, first, second, drawn, env)
        return
    mu, sigma = rate_matches(n, first, second, drawn, env)
    for k in range(n):
        assert mu[k] == pytest.approx(ratings[k].mu, rel=1e-9, abs=1e-9)
        assert sigma[k] == pytest.approx(ratings[k].sigma, rel=1e-9, abs=1e-12)


def test_a_win_the_package_cannot_rate_is_refused_alike():
    env = Environment(mu=0, sigma=8, beta=0.05, tau=0, draw_probability=0.1)
    ts = package_env(env)
    weak, strong = ts.create_rating(mu=-300), ts.create_rating(mu=300)      # cdf underflows: w = 0
    with pytest.raises(FloatingPointError):
        ts.rate([(weak,), (strong,)], ranks=[0, 1])
    with pytest.raises(FloatingPointError, match="match 0:"):
        rate_matches(2, [0], [1], None, env, mu=[-300, 300], sigma=[8, 8])


# --- TS.py's run, transcribed on the package, fed the compiled run's random numbers ---------------------------------

M64 = (1 << 64) - 1


class Stream:
    """The compiled run's random numbers: xoshiro256** seeded by splitmix64 from (seed, run)."""

    def __init__(self, seed: int, run: int):
        x = (seed * 0xD1B54A32D192ED03 + run) & M64
        self.s = []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M64
            z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            self.s.append(z ^ (z >> 31))

    def random(self) -> float:
        s = self.s
        rotl = lambda v, k: ((v << k) | (v >> (64 - k))) & M64
        result = (rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return (result >> 11) * 2.0 ** -53


def ts_py_run(systems, judgments, stream):
    """TS.py -n 2 -d 0 (grammatical/evaluation's data/scripts/wmt-trueskill) on the package: `judgments` maps a
    sorted pair of systems to its list of (rank1, rank2); random draws from `stream`."""
    n_matches = sum(len(v) for v in judgments.values()) + 1
    beta = 0.5 * (n_matches / 40.0)
    env = trueskill.TrueSkill(mu=0.0, sigma=0.5, beta=beta, tau=0.0, draw_probability=0.25)
    rating = {s: env.create_rating() for s in systems}
    for _ in range(n_matches):
        # next_comparison.get: the largest sigma (ties: the last name), an opponent by exp(-|mu_a - mu_b|)
        a = sorted(((r.sigma ** 2, s) for s, r in rating.items()), reverse=True)[0][1]
        others = [s for s in systems if s != a and judgments.get(tuple(sorted((a, s))))]
        weights = [1.0 / math.exp(abs(rating[a].mu - rating[s].mu)) for s in others]
        target, acc, b = stream.random() * sum(weights), 0.0, others[-1]
        for s, w in zip(others, weights):
            acc += w
            if target < acc:
                b = s
                break
        pair = tuple(sorted((a, b)))
        obs = judgments[pair]
        ranks = obs[int(stream.random() * len(obs))]           # random.choice
        (r1,), (r2,) = env.rate([(rating[pair[0]],), (rating[pair[1]],)], ranks=ranks)
        rating[pair[0]], rating[pair[1]] = r1, r2
    return rating


def test_the_compiled_run_is_ts_py_on_the_package():
    pairs = read_judgments(SYNTHETIC).pairs()
    counts = pairs.counts()
    table = pair_table(len(pairs.systems))
    judgments = {}
    for i, a in enumerate(pairs.systems):
        for j, b in enumerate(pairs.systems):
            if i < j:
                c = counts[table[i, j]]
                # in the order the compiled run picks them: first's wins, ties, second's wins
                judgments[(a, b)] = [(1, 2)] * c[0] + [(1, 1)] * c[1] + [(2, 1)] * c[2]
    mu, s2 = gjg15_runs(pairs, 3, seed=11)
    assert gjg15_matches(len(pairs)) == len(pairs) + 1 and gjg15_beta(41) == 0.5 * 41 / 40
    for run in range(3):
        theirs = ts_py_run(pairs.systems, judgments, Stream(11, run))
        for k, s in enumerate(pairs.systems):
            assert mu[run, k] == pytest.approx(theirs[s].mu, abs=1e-9)
            assert s2[run, k] == pytest.approx(theirs[s].sigma ** 2, rel=1e-9)
    assert len({tuple(np.round(r, 12)) for r in mu}) == 3             # three different runs


# --- the published figures: means of 1,000 random runs ---------------------------------------------------------------

def within_randomness(ranking, published: dict[str, float], runs: int = 1000) -> list[str]:
    """Systems whose score is further from the published figure than 4 standard errors of the difference of two
    independent means of `runs` runs (each estimated by ours) plus the published rounding (0.0005)."""
    off = []
    for s in ranking.systems:
        allowed = 4 * math.sqrt(2) * s.sd / math.sqrt(runs) + 0.0005
        if abs(s.score - published[s.name]) > allowed:
            off.append(f"{s.name}: {s.score:.4f} vs {published[s.name]:.3f} (allowed {allowed:.4f})")
    return off


@shared
@pytest.mark.slow
def test_gjg15_trueskill_within_randomness_of_table_3():
    ranking = human_rank(JUDGMENTS / "gjg15" / "data" / "judgments.xml", "ts", bootstrap=1000, seed=0)
    rows = {r["system"].removeprefix("conll14-task-"): r for r in csv.DictReader(open(HUMAN / "gjg_TS.csv"))}
    assert within_randomness(ranking, {s: float(r["score"]) for s, r in rows.items()}) == []
    for s in ranking.systems:                                     # the ranges are quantiles of random runs too
        best, _, worst = rows[s.name]["range"].partition("-")
        assert abs(s.rank_range[0] - int(best)) <= 1 and abs(s.rank_range[1] - int(worst or best)) <= 1, s


@shared
@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sent", "edit"])
def test_seeda_trueskill_within_randomness_of_the_published(kind):
    seeda = JUDGMENTS / "seeda"
    ranking = human_rank(seeda / "data" / f"judgments_{kind}.xml", "ts", bootstrap=1000, seed=0)
    published = [float(x) for x in (seeda / "scores" / "human" / f"TS_{kind}.txt").read_text().split()]
    assert within_randomness(ranking, dict(zip(SEEDA_SYSTEMS, published))) == []
