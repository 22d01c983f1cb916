"""balle2020 Remark 3 (seed 004_8fba9d9eabe1335c.txt): as [stripped], Theorem 3.5 achieves the optimal population
risk trade-off [8, 7] (reconstructed: the optimal DP-SCO rate is of order R L (1/sqrt(n) + sqrt(d)/(eps n))).

Check (our reading): with m = n, p0 = 1 and the Gaussian noise calibrated so that each step's randomizer has a
fixed local privacy, Theorem 3.5's explicit bound (given the expected number of real steps) decreases like
1/sqrt(n) (the non-private statistical rate), i.e. eps-independent terms dominate as n grows.
"""
from __future__ import annotations

import mpmath

from reference.bounds import balle2020 as B


def test_remark_3_rate_in_n():
    L, R, d, sigma = 1, 1, 10, 2
    vals = [B.thm3_5_expected_excess_risk(L, R, d, sigma, n, n, 1) * mpmath.sqrt(n) for n in (10**4, 10**6, 10**8)]
    assert max(vals) / min(vals) <= 1.01
    # the expected number of real steps is n (1 - (1 - 1/n)^n) >= n (1 - 1/e)
    assert B.prop3_4_expected_dummies(10**6, 10**6, 1) <= 10**6 / mpmath.e
