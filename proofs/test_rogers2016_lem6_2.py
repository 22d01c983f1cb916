"""rogers2016 (seed 003_05a378efbd63455f.txt) Lemma 6.2 (quoted from Ledoux-Talagrand 1991, Lemma 8.1: Kolmogorov's
converse exponential inequality).

For i.i.d. mean-zero X_i with |X_1| < a and sigma^2 = E[X_1^2], for every alpha > 0 there are C_alpha, c_alpha > 0 with
    P[sum_{i<=k} X_i >= x] >= exp(-(1 + alpha) x^2/(2 k sigma^2))   for  sqrt(k) sigma C_alpha <= x <= c_alpha k sigma^2/a.

Cited, not re-proved: the test exhibits explicit constants (alpha = 1/2, C_alpha = 4, c_alpha = 1/4) for the walk of
eqs. (14)-(15) used in Lemma 6.3 (X_i = xi_i - mu, a = 1 + mu) at gamma = 1/2, 3/5, 3/4 and every horizon tested, by a
complete check: the tail is constant between consecutive lattice points, so it suffices to compare it with the right-hand
side at the left end of each lattice interval (binomial sums at 40 digits).
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest


def check(k: int, g: F, alpha=F(1, 2), C=4, c=F(1, 4)) -> bool:
    with mpmath.workdps(40):
        G = mpmath.mpf(g.numerator) / g.denominator
        mu = 2 * G - 1
        s2 = 1 - mu * mu
        lo, hi = C * mpmath.sqrt(k * s2), mpmath.mpf(c.numerator) / c.denominator * k * s2 / (1 + mu)
        if lo > hi:
            return True
        pmf = [mpmath.binomial(k, j) * G**j * (1 - G) ** (k - j) for j in range(k + 1)]
        tail = [mpmath.mpf(0)] * (k + 2)
        for j in range(k, -1, -1):
            tail[j] = tail[j + 1] + pmf[j]
        x = lambda j: 2 * j - k - k * mu  # sum X_i when there are j plus-ones
        for j in range(k + 1):
            left, right = x(j - 1), x(j)  # P[S >= t] = tail[j] for t in (left, right]
            if right < lo or left >= hi:
                continue
            t = max(lo, left)
            if tail[j] < mpmath.exp(-(1 + mpmath.mpf(alpha.numerator) / alpha.denominator) * t * t / (2 * k * s2)):
                return False
        return True


@pytest.mark.parametrize("g", [F(1, 2), F(3, 5), F(3, 4)])
def test_converse_exponential_inequality_with_explicit_constants(g):
    """Lemma 6.2 at alpha = 1/2 with C_alpha = 4, c_alpha = 1/4: P[sum X_i >= x] >= exp(-(3/2) x^2/(2 k sigma^2)) on the whole range."""
    assert all(check(k, g) for k in (64, 100, 257, 1000, 2500))


def test_negative_control_constants_too_small():
    """With C_alpha = 3 the inequality fails (k = 40, gamma = 1/2): the constants matter."""
    assert not check(40, F(1, 2), C=3, c=F(1, 2))
