"""balle2020 Theorem 4.2 (utility of Algorithm 2) (seed 004_8fba9d9eabe1335c.txt; bounds stripped; our explicit
derivation: catalog ids balle2020_thm4_2_convex, balle2020_thm4_2_smooth).

Statement (our words; derived).  Given the per-step counts K_j (T = #{K_j > 0} non-skipped steps), averaged noisy
gradients have second moment <= L^2 + d sigma^2/K_j, so projected SGD with eta = R/sqrt(sum_j (L^2 + d sigma^2/K_j))
has expected excess risk <= R sqrt(sum_{K_j>0} (L^2 + d sigma^2/K_j)) / T (convex case); for beta-smooth losses
<= beta R^2/T + R sqrt(2 sum_j (L^2 + d sigma^2)/K_j)/T.

Checks: the convex bound is the minimum over eta of (R^2 + eta^2 sum G_j^2)/(2 eta T) (numeric second route);
averaging more clients per step never increases the bound (more data per step helps, the seed's comparison text).
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.bounds import balle2020 as B


@given(st.lists(st.integers(0, 20), min_size=1, max_size=30).filter(lambda c: any(c)),
       st.fractions(min_value=F(1, 10), max_value=10, max_denominator=10), st.integers(1, 50),
       st.fractions(min_value=0, max_value=5, max_denominator=10))
@settings(deadline=None, max_examples=15)
def test_theorem_4_2_convex_bound_is_the_optimised_inequality(counts, L, d, sigma):
    R = F(1)
    T = sum(1 for k in counts if k)
    S = sum(L * L + d * sigma * sigma / k for k in counts if k)
    Sm = mpmath.mpf(S.numerator) / S.denominator
    f = lambda eta: (1 + eta ** 2 * Sm) / (2 * eta * T)
    v = B.thm4_2_convex(L, R, d, sigma, counts)
    eta = B.thm4_2_learning_rate_convex(L, R, d, sigma, counts)
    assert f(eta) <= v * (1 + mpmath.mpf(10) ** -40)
    for t in ("0.5", "0.9", "1.1", "2"):
        assert f(eta * mpmath.mpf(t)) >= v * (1 - mpmath.mpf(10) ** -40)


@given(st.lists(st.integers(1, 20), min_size=1, max_size=20), st.integers(0, 19))
def test_theorem_4_2_more_clients_per_step_never_hurts(counts, i):
    i %= len(counts)
    more = list(counts)
    more[i] += 1
    assert B.thm4_2_convex(1, 1, 10, 1, more) <= B.thm4_2_convex(1, 1, 10, 1, counts)
    assert B.thm4_2_smooth(1, 1, 10, 1, 1, more) <= B.thm4_2_smooth(1, 1, 10, 1, 1, counts)
