"""balle2020 Proposition 4.4 (dummy updates, sliding windows) (seed 004_8fba9d9eabe1335c.txt; formula stripped).

Statement (our words; reconstruction: catalog ids balle2020_prop4_4_expected_dummies / _bound).  With windows
{i, ..., i+m-1} and server steps m, ..., n, every server step is covered by exactly m windows, so the expected
number of dummy updates is (n - m + 1)(1 - p0/m)^m <= (n - m + 1) e^(-p0).

Route: brute force over all check-in patterns (Fractions), and the library's exact sliding-window simulation
schedule structure (coverage count).
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import mpmath
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import balle2020 as B


def brute(n, m, p0):
    tot = F(0)
    choices = [[-1] + list(range(i + 1, i + 1 + m)) for i in range(n)]
    for pat in itertools.product(*choices):
        w = math.prod(((1 - p0) if s < 0 else p0 / m) for s in pat)
        tot += w * sum(1 for t in range(m, n + 1) if t not in pat)
    return tot


@given(st.integers(1, 5), st.integers(1, 3), st.fractions(min_value=F(1, 10), max_value=1, max_denominator=10))
@example(5, 3, F(1))
def test_proposition_4_4_expectation_by_enumeration(n, m, p0):
    if m > n:
        return
    ex = brute(n, m, p0)
    v = B.prop4_4_expected_dummies(n, m, p0)
    assert abs(v - mpmath.mpf(ex.numerator) / ex.denominator) <= mpmath.mpf(10) ** -45 * (1 + v)
    assert B.prop4_4_bound(n, m, p0) >= v


@given(st.integers(1, 10**9), st.integers(1, 10**6), st.fractions(min_value=F(1, 10**6), max_value=1, max_denominator=10**6))
@example(10**9, 10**6, F(1))
def test_proposition_4_4_bound_is_e_to_minus_p0(n, m, p0):
    if m > n:
        m, n = n, m
    b = B.prop4_4_bound(n, m, p0)
    naive = (n - m + 1) * mpmath.exp(-mpmath.mpf(p0.numerator) / p0.denominator)
    assert naive <= b <= naive * (1 + mpmath.mpf(10) ** -40)
    assert B.prop4_4_expected_dummies(n, m, p0) <= b
