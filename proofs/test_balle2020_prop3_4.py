"""balle2020 Proposition 3.4 (dummy updates, fixed window) (seed 004_8fba9d9eabe1335c.txt; formula stripped).

Statement (our words; reconstruction: catalog ids balle2020_prop3_4_expected_dummies / _bound).  The expected
number of dummy updates of Algorithm 1 is m (1 - p0/m)^n <= m e^(-p0 n/m); for p0 = m/n it is at most m/e (the
seed's surviving "For [..] we get at most [..] expected dummy updates").

Route: the expectation by brute force over all (m+1)^n check-in patterns with Fractions (naive sum).
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import mpmath
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import balle2020 as B


def brute_dummies(n, m, p0):
    tot = F(0)
    for pat in itertools.product(range(-1, m), repeat=n):
        w = math.prod(((1 - p0) if s < 0 else p0 / m) for s in pat)
        tot += w * sum(1 for j in range(m) if j not in pat)
    return tot


@given(st.integers(1, 4), st.integers(1, 4), st.fractions(min_value=F(1, 10), max_value=1, max_denominator=10))
@example(4, 4, F(1))
def test_proposition_3_4_expectation_by_enumeration(n, m, p0):
    ex = brute_dummies(n, m, p0)
    v = B.prop3_4_expected_dummies(n, m, p0)
    assert abs(v - mpmath.mpf(ex.numerator) / ex.denominator) <= mpmath.mpf(10) ** -45 * (1 + v)
    assert B.prop3_4_bound(n, m, p0) >= v


@given(st.integers(1, 10**9), st.integers(1, 10**6))
@example(10**9, 1)
@example(1, 1)
def test_proposition_3_4_m_over_e_at_p0_m_over_n(n, m):
    """p0 = m/n (m <= n): expected dummies <= m/e."""
    if m > n:
        m, n = n, m
    v = B.prop3_4_bound(n, m, F(m, n))
    assert v <= m / mpmath.e * (1 + mpmath.mpf(10) ** -40)
    assert B.prop3_4_expected_dummies(n, m, F(m, n)) <= v
