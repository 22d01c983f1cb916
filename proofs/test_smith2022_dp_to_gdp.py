"""Derived (dong2022 Section 2 trade-off curves), used by smith2022: eps-DP implies mu-GDP exactly for mu >= 2 Phi^{-1}(e^eps/(1+e^eps)).

Statement.  Let f_{eps,0}(a) = max(0, 1 - e^eps a, e^-eps (1 - a)) (the trade-off curve of eps-DP,
attained by randomized response) and G_mu(a) = Phi(Phi^{-1}(1 - a) - mu).  Then
G_mu <= f_{eps,0} pointwise iff mu >= mu(eps) = 2 Phi^{-1}(e^eps/(1 + e^eps)) = 2 sqrt(2) erfinv(tanh(eps/2)).

Routes: the closed form 2 sqrt(2) erfinv(tanh(eps/2)) evaluated by mpmath at 60 digits (the
implementation brackets Phi^{-1} by exact decisions on an erfc enclosure); the curves compared on a
grid of a at 60 digits; tightness at the kink a* = 1/(1 + e^eps).  Negative control: the naive
charge mu = eps (too small) puts G_mu above f_{eps,0} at a*, which the check catches.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds.smith2022 import dp_step_mu, dp_step_mu_q
from reference.precision import mpf_to_fraction


def closed_form(eps, dps=60):
    with mpmath.workdps(dps):
        e = mpmath.mpf(eps.numerator) / eps.denominator
        return 2 * mpmath.sqrt(2) * mpmath.erfinv(mpmath.tanh(e / 2))


def G(mu, a):
    return mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1) - mu)  # Phi(Phi^{-1}(1-a) - mu)


def f_dp(eps, a):
    E = mpmath.exp(eps)
    return max(mpmath.mpf(0), 1 - E * a, (1 - a) / E)


def dominated(mu, eps, grid=64, dps=60):
    """max over a grid (and the kink) of G_mu(a) - f_{eps,0}(a), at ``dps`` digits."""
    with mpmath.workdps(dps):
        e = mpmath.mpf(eps.numerator) / eps.denominator
        astar = 1 / (1 + mpmath.exp(e))
        pts = [mpmath.mpf(j) / grid for j in range(1, grid)] + [astar]
        return max(G(mu, a) - f_dp(e, a) for a in pts)


@settings(max_examples=20, deadline=None)
@given(st.fractions(F(1, 10**4), F(20)).filter(lambda x: x.denominator < 10**8))
@example(F(1, 100))
@example(F(1))
@example(F(20))
def test_mu_of_eps_matches_the_closed_form_and_is_rounded_up(eps):
    """mu(eps) = 2 sqrt(2) erfinv(tanh(eps/2)): the returned value is >= the 60-digit closed form and within 1e-28 of it."""
    c = closed_form(eps)
    v = dp_step_mu(eps, dps=30)
    with mpmath.workdps(60):
        assert v >= c * (1 - mpmath.mpf(10) ** -45)
        assert v <= c * (1 + mpmath.mpf(10) ** -28)
    assert mpf_to_fraction(v) <= dp_step_mu_q(eps) * (1 + F(1, 10**25))


@pytest.mark.parametrize("eps", [F(1, 100), F(1, 10), F(1), F(3)])
def test_g_mu_lies_below_the_dp_curve_exactly_from_mu_of_eps(eps):
    """G_mu <= f_{eps,0} on the grid at mu = mu(eps) (rounded up), with equality at the kink; a smaller mu fails there."""
    mu = dp_step_mu(eps, dps=40)
    with mpmath.workdps(60):
        assert dominated(mu, eps) <= mpmath.mpf(10) ** -38
        assert dominated(mu * (1 - mpmath.mpf(10) ** -6), eps) > 0  # tight: the kink is binding


def test_negative_control_mu_equal_eps_is_caught():
    """Charging mu = eps (the naive guess) is invalid: G_eps rises above f_{eps,0} at the kink, for eps = 1."""
    with mpmath.workdps(60):
        assert dominated(mpmath.mpf(1), F(1)) > mpmath.mpf(10) ** -3


def test_small_eps_expansion():
    """mu(eps) / eps -> sqrt(pi/2) (symbolic.smith2022.dp_step_mu): mu^2 ~ (pi/2) eps^2 > eps tanh(eps/2)."""
    v = dp_step_mu(F(1, 10**6), dps=30)
    with mpmath.workdps(30):
        assert abs(v * 10**6 - mpmath.sqrt(mpmath.pi / 2)) < mpmath.mpf(10) ** -10


def test_symbolic_derivation_agrees():
    """symbolic.smith2022.dp_step_mu (SymPy: 2 sqrt(2) erfinv(tanh(eps/2))) evaluated at 40 digits equals the certified value."""
    import sympy as sp

    from symbolic.smith2022 import dp_step_mu as derivation

    d = derivation()
    eps = sp.Symbol("epsilon", positive=True)
    for e in (F(1, 100), F(1), F(5)):
        v = sp.N(d.result.subs(eps, sp.Rational(e.numerator, e.denominator)), 40)
        c = dp_step_mu(e, dps=40)
        with mpmath.workdps(40):
            assert abs(mpmath.mpf(str(v)) - c) <= abs(c) * mpmath.mpf(10) ** -35
