"""rogers2016 (seed 003_05a378efbd63455f.txt) Lemma 6.3 (anti-concentration).

For the walk M_t = sum_{i<=t} (xi_i - mu) of eqs. (14)-(15) (P[xi = 1] = gamma in [1/2, 1), mu = 2 gamma - 1,
sigma^2 = 1 - mu^2) there is a constant C such that for delta in (0, O(1)) and n > Omega(log(1/delta)((1 + mu)/sigma)^2),
    P[exists t in [n]: M_t >= C sigma sqrt(t log(log(n)/delta))] >= delta.

The statement is existential and asymptotic; the test exhibits C = 1/2 with the exact crossing probability
(reference.bounds.rogers2016.crossing_probability_exact, a Fraction) for gamma in {1/2, 3/5, 2/3, 3/4}, delta down to 1e-3 and
n up to 400, with n >= 4 log(1/delta)((1+mu)/sigma)^2.  Second route: an independent 40-digit DP over the walk's
positions with float thresholds (checked against the exact value).  The proof's first display is an erratum
(ledger R16-LEM6-3-PROOF-EQ: the "=" is only "<="); the statement is not refuted.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import rogers2016 as R


def crossing_dp(g: F, C: F, d: F, n: int):
    """Independent route: P[exists t <= n: M_t >= C sigma sqrt(t log(log n/delta))] by a DP at 40 digits."""
    with mpmath.workdps(40):
        G = mpmath.mpf(g.numerator) / g.denominator
        mu, D = 2 * G - 1, mpmath.mpf(d.numerator) / d.denominator
        sig = mpmath.sqrt(1 - mu * mu)
        ell = mpmath.log(mpmath.log(n) / D)
        w = {0: mpmath.mpf(1)}  # number of +1's -> probability (not yet crossed)
        crossed = mpmath.mpf(0)
        for t in range(1, n + 1):
            nw = {}
            for j, p in w.items():
                nw[j + 1] = nw.get(j + 1, 0) + p * G
                nw[j] = nw.get(j, 0) + p * (1 - G)
            thr = mpmath.mpf(C.numerator) / C.denominator * sig * mpmath.sqrt(t * ell)
            w = {}
            for j, p in nw.items():
                if 2 * j - t - t * mu >= thr:
                    crossed += p
                else:
                    w[j] = p
        return crossed


@given(st.sampled_from([F(1, 2), F(3, 5), F(2, 3), F(3, 4)]), st.sampled_from([F(1, 5), F(1, 20), F(1, 1000)]),
       st.integers(0, 3))
@example(F(3, 4), F(1, 1000), 0)
def test_crossing_probability_is_at_least_delta_with_C_one_half(g, d, j):
    """Lemma 6.3 with C = 1/2: P[exists t <= n: M_t >= (1/2) sigma sqrt(t log(log n/delta))] >= delta (exact Fraction)."""
    mu = 2 * g - 1
    n0 = math.ceil(4 * math.log(1 / d) * float((1 + mu) ** 2 / (1 - mu * mu)))
    n = max(n0, 3) + 97 * j
    p = R.crossing_probability_exact(g, F(1, 2), d, n)
    assert p >= d


def test_exact_value_against_independent_dp():
    """The exact crossing probability equals the 40-digit DP (no threshold within 1e-30 of a lattice point here)."""
    for g, d, n in ((F(1, 2), F(1, 10), 60), (F(2, 3), F(1, 20), 45)):
        ex = R.crossing_probability_exact(g, F(1, 2), d, n)
        with mpmath.workdps(40):
            assert abs(mpmath.mpf(ex.numerator) / ex.denominator - crossing_dp(g, F(1, 2), d, n)) < mpmath.mpf(10) ** -30
