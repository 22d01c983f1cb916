"""feldman2021 Example 2.7 (linear queries) (seed 002_485f6b48c71ae221.txt; formula stripped, re-derived).

Statement (our words, reconstructed; catalog id feldman2021_ex2_7_individual_rdp).  For
A(S) = sum_{X in S} phi(X) + N(0, sigma^2 I_d), removing X_i shifts the mean by phi(X_i), so A is
(alpha, eps_i)-individual RDP for X_i with

    eps_i = alpha ||phi(X_i)||_2^2 / (2 sigma^2),

and individual RDP (Definition 2.5) and per-instance RDP (Definition 2.6) have the same value (it does not
depend on the other points).  Second route: the Renyi divergence of two Gaussians by mpmath.quad (in 1-d; a
d-dimensional shift is a product of 1-d shifts, whose divergences add up).
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import feldman2021 as FZ
from test_feldman2021_definitions import q2m


def renyi_gauss_quad(alpha, sigma, v):
    """D_alpha(N(v, s^2) || N(0, s^2)) by quadrature of p^alpha q^(1-alpha)."""
    a, s, v = q2m(alpha), q2m(sigma), q2m(v)
    f = lambda x: mpmath.exp(-(a * (x - v) ** 2 + (1 - a) * x ** 2) / (2 * s * s)) / (s * mpmath.sqrt(2 * mpmath.pi))
    c = a * v  # the integrand's centre
    m = mpmath.quad(f, [-mpmath.inf, c - 10 * s, c, c + 10 * s, mpmath.inf])
    return mpmath.log(m) / (a - 1)


@given(st.fractions(min_value=F(11, 10), max_value=20, max_denominator=10), st.fractions(min_value=F(1, 2), max_value=10, max_denominator=10),
       st.fractions(min_value=0, max_value=3, max_denominator=10))
@example(F(2), F(1), F(1))
@example(F(20), F(1, 2), F(3))
@settings(deadline=None, max_examples=10)
def test_example_2_7_gaussian_shift_by_quadrature(alpha, sigma, norm):
    """alpha ||phi||^2/(2 sigma^2) equals D_alpha(N(phi, s^2)||N(0, s^2)) = D_alpha(N(0, s^2)||N(phi, s^2)) (quad)."""
    v = FZ.linear_query_individual_rdp_closed_form(alpha, sigma, norm)
    with mpmath.workdps(30):
        q1 = renyi_gauss_quad(alpha, sigma, norm)
        q2 = renyi_gauss_quad(alpha, sigma, -norm)
    assert abs(v - q1) <= mpmath.mpf(10) ** -25 * (1 + v) and abs(v - q2) <= mpmath.mpf(10) ** -25 * (1 + v)


def test_example_2_7_vector_queries_and_independence_of_the_rest():
    """d-dimensional phi: the value depends only on ||phi(X_i)||^2 (exact), and is the same for every dataset S
    containing X_i (individual = per-instance): the mean shift does not involve the other points."""
    rows = [[F(3), F(4)], [F(0), F(0)], [F(1, 2), F(-1, 2)]]
    vals = FZ.linear_query_individual_rdp(2, 5, rows)
    assert vals == [F(2 * 25, 2 * 25), F(0), F(2 * F(1, 2), 2 * 25)]
    # product measure: the d-dimensional divergence is the sum of per-coordinate ones (1-d quads), here the
    # shift (3/5, 4/5) of norm 1 with sigma = 1 gives the 1-d value at norm 1
    with mpmath.workdps(30):
        tot = renyi_gauss_quad(F(2), F(1), F(3, 5)) + renyi_gauss_quad(F(2), F(1), F(4, 5))
        assert abs(tot - FZ.linear_query_individual_rdp_closed_form(2, 1, 1)) < mpmath.mpf(10) ** -20
    # the removal neighbours S, S \ X_i have means sum(S) and sum(S) - phi(X_i) for ANY S: same divergence
    for others in ([], [F(7)], [F(-3), F(100)]):
        mu_S = sum(others) + 2
        assert mu_S - (mu_S - 2) == 2


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="sigma"):
        FZ.linear_query_individual_rdp_closed_form(2, 0, 1)
    with pytest.raises(ValueError, match="phi_norm"):
        FZ.linear_query_individual_rdp_closed_form(2, 1, -1)
