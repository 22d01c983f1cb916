"""dong2022 Corollary 2.13 / Corollary 3.3 (Dong, Roth, Su, arXiv 1905.02383 v3), as used by the smith2022 GDP filter.

Statement.  A mechanism is mu-GDP iff it is (eps, delta_mu(eps))-DP for every eps >= 0, with

    delta_mu(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2),

the privacy profile of the Gaussian mechanism (Balle-Wang 2018 Thm 8); and mu_i-GDP mechanisms
compose to sqrt(sum mu_i^2)-GDP.

Routes: (1) the hockey-stick divergence E[(1 - e^{eps - L})_+] of the Gaussian privacy loss
L ~ N(mu^2/2, mu^2), integrated with ``mpmath.quad`` at 60 digits (shares no erfc code with the
implementation); (2) a brute-force evaluation of the printed difference with mpmath's real ncdf
at 2000 digits (for the far tail, where the implementation uses a differenced Mills series).
Negative control: the printed formula in double precision, which cancellation drives to 0 at
eps = 30, is caught by the one-sided check.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds.dong2022 import gdp_compose, gdp_compose_mu, gdp_delta, gdp_delta_lower, gdp_eps, gdp_mu
from reference.precision import mpf_to_fraction
from reference.profiles.gaussian import gaussian_mu

REL = mpmath.mpf(10) ** -40


def quad_delta(eps, mu, dps=60):
    """Second route: E_P[(1 - e^{eps - L})_+], L ~ N(mu^2/2, mu^2), by numerical integration (no erfc)."""
    with mpmath.workdps(dps):
        e, m = mpmath.mpf(eps.numerator) / eps.denominator, mpmath.mpf(mu.numerator) / mu.denominator
        mean, sd = m * m / 2, m

        def f(l):
            return (1 - mpmath.exp(e - l)) * mpmath.exp(-(l - mean) ** 2 / (2 * sd * sd)) / (sd * mpmath.sqrt(2 * mpmath.pi))
        s = sd if e <= mean else min(sd, sd * sd / (e - mean))  # the integrand's decay scale beyond eps
        return mpmath.quad(f, [e, e + s, e + 3 * s, e + 10 * s, e + 40 * s, mpmath.inf])


def brute_delta(eps, mu, dps):
    """Second route for the far tail: the printed formula with mpmath's real ncdf at ``dps`` digits."""
    with mpmath.workdps(dps):
        e, m = mpmath.mpf(eps.numerator) / eps.denominator, mpmath.mpf(mu.numerator) / mu.denominator
        return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


def between(lo, x, hi, rel=REL):
    return lo <= x * (1 + rel) and x <= hi * (1 + rel)


@settings(max_examples=15, deadline=None)
@given(st.fractions(F(0), F(3)).filter(lambda x: x.denominator < 10**6),
       st.fractions(F(1, 5), F(3)).filter(lambda x: x.denominator < 10**6))
@example(F(0), F(1, 2))        # eps = 0: 2 Phi(mu/2) - 1
@example(F(1), F(1))           # the doctest value 0.12693673750664...
@example(F(3), F(1, 5))        # tail, ~1e-50 (deeper tails: the brute-force route below)
def test_cor2_13_profile_equals_the_hockey_stick_of_the_gaussian_loss(eps, mu):
    """delta_mu(eps) = E[(1 - e^{eps-L})_+]: the certified [lower, upper] encloses the 60-digit quadrature."""
    q = quad_delta(eps, mu)
    lo, hi = gdp_delta_lower(eps, mu, dps=45), gdp_delta(eps, mu, dps=45)
    assert lo <= hi
    assert between(lo, q, hi, mpmath.mpf(10) ** -12), (eps, mu, lo, q, hi)  # quadrature: ~15 digits in the tail


@pytest.mark.parametrize("eps,mu", [(F(30), F(1, 2)), (F(100), F(1, 2)), (F(3), F(1, 1000)), (F(1000), F(1, 2)),
                                    (F(5), F(1, 20))])
def test_cor2_13_far_tail_against_brute_force_precision(eps, mu):
    """Far tail (differenced Mills series): agrees with the printed difference evaluated at 2000-6000 digits."""
    b = brute_delta(eps, mu, 6000 if eps == 1000 or mu < F(1, 100) else 2000)
    lo, hi = gdp_delta_lower(eps, mu, dps=30), gdp_delta(eps, mu, dps=30)
    assert b > 0 and between(lo, b, hi, mpmath.mpf(10) ** -25), (eps, mu, lo, b, hi)


def test_negative_control_double_precision_cancellation_is_caught():
    """The printed formula in doubles returns <= 0 at eps = 30, mu = 1/2; the certified lower bound is > 0."""
    e, m = 30.0, 0.5
    Phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))  # noqa: E731
    naive = Phi(-e / m + m / 2) - math.exp(e) * Phi(-e / m - m / 2)
    lo = gdp_delta_lower(30, F(1, 2), dps=20)
    assert not (naive >= lo)  # the broken evaluation is below the certified lower bound: caught


@settings(max_examples=8, deadline=None)
@given(st.sampled_from([F(1, 10), F(1, 2), F(1), F(3)]), st.sampled_from([F(1, 10**3), F(1, 10**6), F(1, 10**12)]))
def test_cor2_13_inverses_are_certified_roots(mu, delta):
    """gdp_eps: delta_mu(eps) <= delta at the returned eps and > delta just below; gdp_mu: mirrored in mu."""
    fr = mpf_to_fraction
    e = fr(gdp_eps(delta, mu, dps=30))
    if e > 0:
        assert fr(gdp_delta(e, mu, dps=30)) <= delta * (1 + F(1, 10**20))
        assert fr(gdp_delta_lower(e * (1 - F(1, 10**20)), mu, dps=30)) > delta
    m = fr(gdp_mu(mu * 2, delta, dps=30))  # eps = 2 mu as a target
    assert fr(gdp_delta(mu * 2, m, dps=30)) <= delta * (1 + F(1, 10**20))
    assert fr(gdp_delta_lower(mu * 2, m * (1 + F(1, 10**20)), dps=30)) > delta


def test_cor3_3_composition_and_thm2_7_gaussian_mu():
    """Corollary 3.3: sqrt(sum mu_i^2) (exact squares); Theorem 2.7: mu = sensitivity/sigma (exact)."""
    assert gaussian_mu("1", "20") == F(1, 20)
    assert gaussian_mu("3", "2") == F(3, 2)
    assert gdp_compose(["3", "4"]) == 25
    assert gdp_compose_mu(["3", "4"], dps=20) == 5
    assert gdp_compose([F(1, 20)] * 22) == F(22, 400)
    with pytest.raises(ValueError, match="sigma"):
        gaussian_mu(1, 0)
    with pytest.raises(ValueError, match="mu"):
        gdp_delta(1, -1)
    with pytest.raises(ValueError, match="delta"):
        gdp_eps(0, 1)
