"""balle2020 Theorem 4.1 (random check-ins with averaged updates, Algorithm 2) (seed 004_8fba9d9eabe1335c.txt;
statement stripped, no proof described: catalog id balle2020_thm4_1_eps, provenance "derived").

Statement (our words; our derivation, unverifiable against the stripped display).  With p0 = 1 and non-colluding
clients, Algorithm 2 (all checked-in clients' noisy gradients averaged per step, empty steps skipped) is
(eps, delta)-DP with eps = Theorem 5.1's bound for n clients: the per-step counts are data-independent and, given
them, the outputs are a post-processing of the shuffled outputs.  The seed's "similar to Algorithm 1 with an
additional factor" is consistent: the bound is ~ e^(1.5 eps0) times Theorem 3.2's at m = n for large eps0.

Ground truth: the exact law of the per-step (count, sum of randomized bits) sequence (dynamic program and brute
force), for every number of ones among the others: its privacy curve is below the shuffled histogram's and below
the bound.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from reference.bounds import balle2020 as B
from reference.verify import checkins_exact as X
from test_balle2020_thm3_2 import eps0_of, within


@pytest.mark.parametrize("n,m", [(2, 2), (3, 2), (3, 3), (4, 2)])
def test_theorem_4_1_dominates_exact_algorithm2(n, m):
    E = F(2)
    for k in range(n):
        d1, d0 = X.averaged_distribution(n, m, E, 1, k), X.averaged_distribution(n, m, E, 0, k)
        if n <= 3:
            bits = [1] + [1] * k + [0] * (n - 1 - k)
            assert X.averaged_distribution_bruteforce(n, m, E, bits) == d1
        alg2 = X.pair_from_dists(d1, d0)
        shuf = X.shuffle_masses(n, E, k)
        for eps in (F(0), F(1, 4), F(1, 2)):
            assert X.privacy_delta(alg2, eps) <= X.privacy_delta(shuf, eps, direction="lower") * (1 + mpmath.mpf(10) ** -30) + mpmath.mpf(10) ** -40
        for delta in (F(1, 10), F(1, 1000)):
            assert within(alg2, B.thm4_1_eps(eps0_of(E), n, delta), delta)


def test_theorem_4_1_additional_factor_over_algorithm_1():
    """Ratio Theorem 4.1 / Theorem 3.2 (m = n, p0 = 1): e^(eps0) asymptotically in n; > 1 always (a price)."""
    for e0 in (F(1, 10), F(1), F(3)):
        for n in (10**4, 10**8):
            r = B.thm4_1_eps(e0, n, F(1, 10**6)) / B.thm3_2_eps(e0, n, 1, F(1, 10**6))
            assert r > 1
            e = mpmath.exp(mpmath.mpf(e0.numerator) / e0.denominator)
            if n == 10**8:
                assert abs(r - e) <= e * mpmath.mpf("0.01") * e  # -> e^eps0 as n grows (leading terms)


def test_theorem_4_1_approximate_clause():
    e0, n, d, d1 = F(1, 20), 10**6, F(1, 10**6), F(1, 10**12)
    assert B.thm4_1_approx_eps(e0, n, d) == B.thm5_1_eps(8 * e0, n, d)
    assert B.thm4_1_approx_delta(e0, 0, n, d, d1) == B.thm5_1_approx_delta(e0, 0, n, d, d1)
