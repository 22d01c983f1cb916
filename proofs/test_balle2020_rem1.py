"""balle2020 Remark 1 (seed 004_8fba9d9eabe1335c.txt): decreasing p0 increases privacy but also the number of dummy
updates, which suggests p0 = m/n; the amplification factor is then sqrt(m)/n (reconstructed: stripped), and the
guarantee does not need the population size n.

Checks (on the reconstructed Theorem 3.2 and the exact Proposition 3.4 expectation): eps increasing in p0,
expected dummies decreasing in p0, eps at p0 = m/n scales as sqrt(m)/n (exact ratio of leading terms), and the
bound takes no argument n (independence, checked against the exact law at two population sizes).
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
from hypothesis import given
from hypothesis import strategies as st

from reference.bounds import balle2020 as B
from reference.verify import checkins_exact as X
from test_balle2020_thm3_2 import eps0_of, within


@given(st.integers(2, 10**6), st.integers(2, 10**6), st.fractions(min_value=F(1, 100), max_value=F(99, 100), max_denominator=100))
def test_remark_1_tradeoff_in_p0(n, m, p0):
    p1 = p0 + (1 - p0) / 2
    assert B.thm3_2_eps(1, m, p0, F(1, 10**6)) < B.thm3_2_eps(1, m, p1, F(1, 10**6))
    assert B.prop3_4_expected_dummies(n, m, p0) > B.prop3_4_expected_dummies(n, m, p1)


def test_remark_1_amplification_factor_sqrt_m_over_n():
    """Leading term at p0 = m/n: (m/n)(e^eps0 - 1) sqrt(2 e^eps0 L/m) = (sqrt(m)/n) (e^eps0 - 1) sqrt(2 e^eps0 L)."""
    e0, d = F(1, 2), F(1, 10**6)
    for n, m in ((10**6, 10**2), (10**6, 10**4), (10**8, 10**4)):
        v = B.thm3_2_eps(e0, m, F(m, n), d)
        lead = mpmath.sqrt(m) / n * (mpmath.exp(0.5) - 1) * mpmath.sqrt(2 * mpmath.exp(0.5) * mpmath.log(10**6))
        assert lead <= v <= lead * (1 + mpmath.mpf(10) ** -3)


def test_remark_1_population_size_not_needed():
    """The same eps (no n argument) holds for n = 1 and n = 3 clients (exact laws)."""
    E, m, p0, delta = F(2), 3, F(1), F(1, 100)
    eb = B.thm3_2_eps(eps0_of(E), m, p0, delta)
    for n in (1, 3):
        assert within(X.Pair(X.fixed_window_masses(n, m, p0, E, 1), X.fixed_window_masses(n, m, p0, E, 0)), eb, delta)
