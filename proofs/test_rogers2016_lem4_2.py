"""rogers2016 (seed 003_05a378efbd63455f.txt) Lemma 4.2 (quoted from van de Geer 2002, Lemma 2.4).

For the martingale M_k = sum_{i<=k} X_i (9) with predictable C_i <= X_i <= D_i and U_k^2 = sum_i (D_i - C_i)^2 (10),
exp(lambda M_k - lambda^2 U_k^2/8) is a supermartingale for every real lambda; the one-step inequality is Hoeffding's
E[exp(lambda X) | F_{i-1}] <= exp(lambda^2 (D - C)^2/8) for conditionally mean-zero X in [C, D].

Routes: the extremal two-point law at 110 digits (hypothesis over lambda, C < 0 < D); the privacy-loss martingale of
adaptive RR (X_i = Loss_i - mu_i in [-eps_i - mu_i, eps_i - mu_i]) with E[exp(lambda M_k - lambda^2 U_k^2/8)] <= 1 by
exact enumeration of all paths (110 digits).
"""
from __future__ import annotations

import itertools
from fractions import Fraction as F

import mpmath
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import rogers2016 as R

mp = lambda q: mpmath.mpf(q.numerator) / q.denominator


@given(st.fractions(-50, 50, max_denominator=7), st.fractions(F(1, 100), 10, max_denominator=100), st.fractions(F(1, 100), 10, max_denominator=100))
@example(F(50), F(10), F(1, 100))
@example(F(0), F(1), F(1))
def test_hoeffding_step_two_point(lam, c, d):
    """Lemma 4.2 step: X in {-c, d} with mean 0: E[e^{lam X}] <= exp(lam^2 (c + d)^2/8) = hoeffding_mgf_bound(lam, c + d)."""
    C, D = -mp(c), mp(d)
    p = -C / (D - C)  # P[X = D]
    L = mp(lam)
    mgf = p * mpmath.exp(L * D) + (1 - p) * mpmath.exp(L * C)
    assert mgf <= mpmath.exp(L * L * (D - C) ** 2 / 8) * (1 + mpmath.mpf(10) ** -100)
    assert R.hoeffding_mgf_bound(lam, c + d) >= mpmath.exp(L * L * (D - C) ** 2 / 8)


@given(st.sampled_from([F(-3), F(-1, 2), F(1, 3), F(2), F(6)]), st.lists(st.sampled_from([F(1, 10), F(1, 2), F(1), F(2)]), min_size=2, max_size=4))
def test_privacy_loss_supermartingale_exact(lam, menu):
    """Lemma 4.2 for the martingale (11) of adaptive RR: E[exp(lam M_k - lam^2 U_k^2/8)] <= 1 with U_k^2 = 4 sum eps_i^2,
    eps_i = menu[(number of 'top' so far) mod len(menu)]; every path of length 7 enumerated at 40 digits (tolerance 1e-30 above 1)."""
    with mpmath.workdps(40):
        tot = _expectation(mp(lam), menu)
    assert tot <= 1 + mpmath.mpf(10) ** -30


def _expectation(L, menu):
    tot = mpmath.mpf(0)
    for xs in itertools.product((1, -1), repeat=7):
        p, M, U2, tops = mpmath.mpf(1), mpmath.mpf(0), mpmath.mpf(0), 0
        for x in xs:
            e = mp(menu[tops % len(menu)])
            s = 1 / (1 + mpmath.exp(-e))
            mu = e * (2 * s - 1)
            p *= s if x == 1 else 1 - s
            M += x * e - mu
            U2 += 4 * e * e
            tops += x == 1
        tot += p * mpmath.exp(L * M - L * L * U2 / 8)
    return tot
