# cython: language_level=3
"""TrueSkill for two-player matches, computed as the `trueskill` package (0.4.5, its default backend) computes them,
and the WMT/GJG15 run of TS.py (grammatical/evaluation, from Sakaguchi et al.'s wmt-trueskill) in compiled code.

The package's rate() builds a factor graph per match; for one player against one it comes down to the closed form
used here (Herbrich et al. 2007): with c^2 = s_a^2 + s_b^2 + 2 beta^2 (the variances after the dynamic tau),
t = (mu_a - mu_b) / c and e = draw_margin / c,
    mu_a += s_a^2 / c * v(t, e),  mu_b -= s_b^2 / c * v(t, e),
    s_a^2 *= 1 - s_a^2 / c^2 * w(t, e),  s_b^2 *= 1 - s_b^2 / c^2 * w(t, e),
a the winner (or, for a draw, the first of the two). v and w, the normal cdf, pdf and inverse cdf are the package's
own: its cdf is built on the Chebyshev fit of erfc of Numerical Recipes (fractional error under 1.2e-7), not on an
exact erfc, and TS.py ran with it, so the same approximation is used here (tests/meta_eval: equal to the package's
rate() to 1e-9 on random match sequences). Where the package raises FloatingPointError (w of a win outside (0, 1),
a draw whose probability underflows to 0), so does this module.
"""
from libc.math cimport exp, fabs, log, sqrt
from libc.stdint cimport int8_t, int64_t, uint64_t

import numpy as np

cdef double SQRT2 = 1.4142135623730951
cdef double INV_SQRT_2PI = 0.3989422804014327     # 1 / sqrt(2 pi)


cdef inline double erfc_nr(double x) noexcept nogil:
    """erfc by Numerical Recipes' Chebyshev fit (the trueskill package's fallback backend)."""
    cdef double z = fabs(x)
    cdef double t = 1.0 / (1.0 + z / 2.0)
    cdef double r = t * exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
    return 2.0 - r if x < 0 else r


cdef inline double cdf(double x) noexcept nogil:
    return 0.5 * erfc_nr(-x / SQRT2)


cdef inline double pdf(double x) noexcept nogil:
    return INV_SQRT_2PI * exp(-(x * x) / 2.0)


cdef double erfcinv_nr(double y) noexcept nogil:
    """The inverse of erfc_nr: a rational first guess refined by two Halley-like steps, as the package does."""
    cdef double t, x, err
    cdef bint lower
    cdef int k
    if y >= 2:
        return -100.0
    if y <= 0:
        return 100.0
    lower = y < 1
    if not lower:
        y = 2 - y
    t = sqrt(-2 * log(y / 2.0))
    x = -0.70711 * ((2.30753 + t * 0.27061) / (1.0 + t * (0.99229 + t * 0.04481)) - t)
    for k in range(2):
        err = erfc_nr(x) - y
        x += err / (1.12837916709551257 * exp(-(x * x)) - x * err)
    return x if lower else -x


def normal_cdf(double x):
    """The package's normal cdf (for tests)."""
    return cdf(x)


def normal_ppf(double p):
    """The package's inverse normal cdf."""
    return -SQRT2 * erfcinv_nr(2 * p)


def draw_margin(double draw_probability, double beta, int size=2):
    """The package's calc_draw_margin: the performance difference under which a match of `size` players is a draw."""
    return -SQRT2 * erfcinv_nr(2 * ((draw_probability + 1) / 2.0)) * sqrt(size) * beta


cdef inline int rate_pair(double* mu, double* s2, Py_ssize_t a, Py_ssize_t b, bint drawn,
                          double beta2, double tau2, double margin) noexcept nogil:
    """One match, a beating b (drawn: a and b drawing, a first): mu and s2 (variances) updated in place.
    Returns 0, or 1 where the package raises FloatingPointError (nothing is updated then)."""
    cdef double sa = s2[a] + tau2
    cdef double sb = s2[b] + tau2
    cdef double c2 = sa + sb + 2.0 * beta2
    cdef double c = sqrt(c2)
    cdef double t = (mu[a] - mu[b]) / c
    cdef double e = margin / c
    cdef double x, denom, v, w, abs_t, lo, hi, sign
    if not drawn:
        x = t - e
        denom = cdf(x)
        v = pdf(x) / denom if denom != 0 else -x
        w = v * (v + x)
        if not (0 < w < 1):
            return 1
    else:
        abs_t = fabs(t)
        hi = e - abs_t
        lo = -e - abs_t
        denom = cdf(hi) - cdf(lo)
        if denom == 0:
            return 1
        v = (pdf(lo) - pdf(hi)) / denom          # v of |t| (w's), then v of t (the mean's) by its sign
        w = v * v + (hi * pdf(hi) - lo * pdf(lo)) / denom
        sign = -1.0 if t < 0 else 1.0
        v = v * sign
    mu[a] += sa / c * v
    mu[b] -= sb / c * v
    s2[a] = sa * (1.0 - sa / c2 * w)
    s2[b] = sb * (1.0 - sb / c2 * w)
    return 0


def rate_matches(double[::1] mu, double[::1] sigma2, const int64_t[::1] first, const int64_t[::1] second,
                 const int8_t[::1] drawn, double beta, double tau, double margin):
    """Play matches in order, updating mu and sigma2 (variances) in place: match k is first[k] beating second[k]
    (drawn[k]: the two drawing). Raises FloatingPointError (naming the match) where the package would."""
    cdef Py_ssize_t k, n = first.shape[0], m = mu.shape[0]
    if second.shape[0] != n or drawn.shape[0] != n or sigma2.shape[0] != m:
        raise ValueError("first, second and drawn must have one entry per match; mu and sigma2 one per player")
    for k in range(n):
        if not (0 <= first[k] < m and 0 <= second[k] < m) or first[k] == second[k]:
            raise ValueError(f"match {k}: players {first[k]} and {second[k]} (of {m})")
    cdef double beta2 = beta * beta, tau2 = tau * tau
    cdef int status = 0
    with nogil:
        for k in range(n):
            status = rate_pair(&mu[0], &sigma2[0], first[k], second[k], drawn[k] != 0, beta2, tau2, margin)
            if status:
                break
    if status:
        raise FloatingPointError(f"match {k}: cannot calculate correctly (as the trueskill package's default backend)")


# --- the GJG15 / WMT14 run (TS.py -n 2 -d 0) ------------------------------------------------------------------------

cdef inline uint64_t splitmix64(uint64_t* x) noexcept nogil:
    x[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t xoshiro(uint64_t* s) noexcept nogil:
    """xoshiro256** (Blackman and Vigna)."""
    cdef uint64_t result = rotl(s[1] * 5, 7) * 9
    cdef uint64_t t = s[1] << 17
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = rotl(s[3], 45)
    return result


cdef inline double uniform(uint64_t* s) noexcept nogil:
    return <double>(xoshiro(s) >> 11) * (1.0 / 9007199254740992.0)


def gjg15_runs(const int64_t[:, :, ::1] counts, const int64_t[:, ::1] pair_index, const int64_t[::1] n_matches,
               const double[::1] beta, const double[::1] margin, double mu0, double sigma0, double tau,
               uint64_t seed):
    """Runs of TS.py's loop (`-n 2 -d 0`), one per row of the result; returns (mu, sigma2), each (runs, systems).

    counts[r or 0, p] = (first wins, draws, second wins) of pair p (first = the pair's lower system index), the
    pairwise judgments of run r (a single row: the same for every run); pair_index[i, j] = p for i != j (-1: the two
    were never compared). Each run starts every system at (mu0, sigma0) and plays n_matches[r] matches with beta[r]
    and margin[r] (draw margin): the system of largest variance (among equal ones the last, as TS.py's reversed sort
    by (variance, name) picks it: systems are given in name order) meets one drawn with probability proportional to
    exp(-|mu_a - mu_k|) among those it was compared with; the outcome is one of that pair's judgments drawn uniformly
    (random.choice); the match is rated as trueskill.rate does. A system compared with nobody in a run does not play
    (TS.py would loop for ever). The weights are products of exp(mu) and exp(-mu) kept per system (4 exp a match
    instead of one per candidate; equal to TS.py's 1/exp(|mu_a - mu_k|) to rounding). Random numbers: xoshiro256**,
    run r seeded from (seed, r), so a run is the same whatever the number of runs."""
    cdef Py_ssize_t runs = n_matches.shape[0], n = pair_index.shape[0], P = counts.shape[1]
    if counts.shape[0] not in (1, runs) or counts.shape[2] != 3 or pair_index.shape[1] != n:
        raise ValueError("counts must be (1 or runs, pairs, 3) and pair_index (systems, systems)")
    if beta.shape[0] != runs or margin.shape[0] != runs:
        raise ValueError("beta and margin need one value per run")
    mu_out = np.empty((runs, n), dtype=np.float64)
    s2_out = np.empty((runs, n), dtype=np.float64)
    cdef double[:, ::1] MU = mu_out, S2 = s2_out
    cdef double[::1] weight = np.empty(n, dtype=np.float64)
    cdef double[::1] up = np.empty(n, dtype=np.float64)          # exp(mu_k)
    cdef double[::1] down = np.empty(n, dtype=np.float64)        # exp(-mu_k)
    cdef int64_t[:, ::1] opponents = np.empty((n, n), dtype=np.int64)   # per system, those it was compared with
    cdef int64_t[::1] n_opp = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] judged = np.empty(P, dtype=np.int64)              # judgments per pair in this run
    cdef uint64_t state[4]
    cdef uint64_t sm
    cdef Py_ssize_t r, i, j, k, a, b, p, nc, row
    cdef int64_t m, pick, c0, c1
    cdef double best, acc, target, beta2, tau2 = tau * tau, mu_a, up_a, down_a
    cdef double* mu
    cdef double* s2
    cdef int status = 0
    for i in range(n):
        for j in range(n):
            p = pair_index[i, j]
            if i != j and p >= P:
                raise ValueError(f"pair_index[{i}, {j}] = {p}: only {P} pairs")
    with nogil:
        for r in range(runs):
            row = r if counts.shape[0] > 1 else 0
            sm = seed * 0xD1B54A32D192ED03ULL + <uint64_t>r
            for k in range(4):
                state[k] = splitmix64(&sm)
            mu = &MU[r, 0]
            s2 = &S2[r, 0]
            beta2 = beta[r] * beta[r]
            for p in range(P):
                judged[p] = counts[row, p, 0] + counts[row, p, 1] + counts[row, p, 2]
            for i in range(n):
                mu[i] = mu0
                s2[i] = sigma0 * sigma0
                up[i] = exp(mu0)
                down[i] = exp(-mu0)
                n_opp[i] = 0
                for j in range(n):
                    p = pair_index[i, j]
                    if i != j and p >= 0 and judged[p] > 0:
                        opponents[i, n_opp[i]] = j
                        n_opp[i] += 1
            for m in range(n_matches[r]):
                a = -1
                best = -1.0
                for i in range(n):
                    if n_opp[i] and s2[i] >= best:
                        best = s2[i]
                        a = i
                if a < 0:
                    break
                # weights 1 / exp(|mu_a - mu_k|) = exp(mu_k - mu_a) or exp(mu_a - mu_k), from exp(+-mu) kept per system
                mu_a = mu[a]
                up_a = up[a]
                down_a = down[a]
                nc = n_opp[a]
                acc = 0.0
                for k in range(nc):
                    j = opponents[a, k]
                    acc += up[j] * down_a if mu[j] <= mu_a else up_a * down[j]
                    weight[k] = acc
                target = uniform(state) * acc
                b = opponents[a, nc - 1]
                for k in range(nc):
                    if target < weight[k]:
                        b = opponents[a, k]
                        break
                p = pair_index[a, b]
                c0 = counts[row, p, 0]
                c1 = counts[row, p, 1]
                pick = <int64_t>(uniform(state) * judged[p])
                i = a if a < b else b                     # the pair's first (lower index) and second system
                j = b if a < b else a
                if pick < c0:
                    status = rate_pair(mu, s2, i, j, False, beta2, tau2, margin[r])
                elif pick < c0 + c1:
                    status = rate_pair(mu, s2, i, j, True, beta2, tau2, margin[r])
                else:
                    status = rate_pair(mu, s2, j, i, False, beta2, tau2, margin[r])
                if status:
                    break
                up[a] = exp(mu[a])
                down[a] = 1.0 / up[a]
                up[b] = exp(mu[b])
                down[b] = 1.0 / up[b]
            if status:
                break
    if status:
        raise FloatingPointError(f"run {r}: cannot calculate correctly (as the trueskill package's default backend)")
    return mu_out, s2_out
