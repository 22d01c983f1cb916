"""feldman2021 Example 2.8 (Lipschitz analyses) (seed 002_485f6b48c71ae221.txt; formula stripped, re-derived).

Statement (our words, reconstructed; catalog id feldman2021_ex2_8_individual_rdp).  If f is L-Lipschitz in its
i-th argument (l2) and a removed point is replaced by the origin x0, then A(S) = f(S) + N(0, sigma^2 I) is
(alpha, eps_i)-individual RDP for X_i with

    eps_i <= alpha L^2 ||X_i||^2 / (2 sigma^2).

Second route: for concrete Lipschitz f (L sin, L tanh, L |.|, linear) the exact divergence of the two Gaussians
(means f(S) and f(S with X_i := 0)) by mpmath.quad, compared one-sidedly with the bound; equality for linear f.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import feldman2021 as FZ
from test_feldman2021_definitions import q2m
from test_feldman2021_ex2_7 import renyi_gauss_quad

FUNCS = {"sin": mpmath.sin, "tanh": mpmath.tanh, "abs": abs, "linear": lambda x: x}


@given(st.sampled_from(sorted(FUNCS)), st.fractions(min_value=F(11, 10), max_value=10, max_denominator=10),
       st.fractions(min_value=F(1, 2), max_value=5, max_denominator=10), st.fractions(min_value=0, max_value=3, max_denominator=10),
       st.fractions(min_value=F(-3), max_value=3, max_denominator=10))
@example("linear", F(2), F(1), F(1), F(3, 2))
@example("sin", F(10), F(1, 2), F(2), F(3))
@settings(deadline=None, max_examples=10)
def test_example_2_8_bound_dominates_the_exact_divergence(name, alpha, sigma, L, x):
    """D^<->_alpha(N(f(S), s^2) || N(f(S with X_i = 0), s^2)) <= alpha L^2 x^2/(2 sigma^2), f = L g(X_i) + (rest)."""
    g = FUNCS[name]
    shift = q2m(L) * (g(q2m(x)) - g(mpmath.mpf(0)))
    bound = FZ.lipschitz_individual_rdp(alpha, sigma, L, abs(x))
    with mpmath.workdps(30):
        exact = renyi_gauss_quad(alpha, sigma, F(mpmath.nstr(shift, 25)) if shift else F(0))
    assert exact <= bound + mpmath.mpf(10) ** -18 * (1 + bound)
    if name == "linear":
        assert abs(exact - bound) <= mpmath.mpf(10) ** -18 * (1 + bound)


def test_example_2_8_matches_example_2_7_for_linear_maps():
    """A linear query phi(x) = L x is L-Lipschitz: Example 2.8's bound equals Example 2.7's exact value."""
    for a, s, L, x in ((F(2), F(1), F(1), F(1)), (F(8), F(20), F(3), F(1, 7))):
        assert FZ.lipschitz_individual_rdp(a, s, L, x) >= FZ.linear_query_individual_rdp_closed_form(a, s, L * x)
        assert FZ.lipschitz_individual_rdp(a, s, L, x) - FZ.linear_query_individual_rdp_closed_form(a, s, L * x) <= mpmath.mpf(10) ** -45


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="lipschitz"):
        FZ.lipschitz_individual_rdp(2, 1, -1, 1)
    with pytest.raises(ValueError, match="x_norm"):
        FZ.lipschitz_individual_rdp(2, 1, 1, -1)
