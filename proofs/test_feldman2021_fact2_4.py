"""feldman2021 Fact 2.4 (seed 002_485f6b48c71ae221.txt; cites Mironov 2017 [25]; formula stripped).

Statement (reconstructed; the seed cites Mironov 2017, whose Proposition 3 is this form).  If A is
(alpha, eps_alpha)-RDP then for every delta in (0, 1) it is (eps, delta)-DP with

    eps = eps_alpha + log(1/delta) / (alpha - 1).

Routes: exact hockey-stick divergences of discrete pairs (event sets decided with compare_exp_rational, sums at
110 digits) and the closed-form Gaussian privacy curve delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)
(mpmath.ncdf); negative control: the conversion without its log(1/delta)/(alpha-1) term is violated.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import feldman2021 as FZ
from reference.accountants import feldman2021 as FZA
from reference.bounds.classical import rdp_to_dp_eps
from reference.precision import compare_exp_rational, mpf_to_fraction
from test_feldman2021_definitions import dist_pair, q2m


def hockey(P, Q, eps: F) -> mpmath.mpf:
    """sum_x max(0, P(x) - e^eps Q(x)), with the set {P > e^eps Q} decided exactly."""
    tot = mpmath.mpf(0)
    for p, q in zip(P, Q):
        if p and (q == 0 or compare_exp_rational(eps, p / q) < 0):
            tot += q2m(p) - mpmath.exp(q2m(eps)) * q2m(q)
    return tot


def gaussian_delta(mu, eps):
    return mpmath.ncdf(mu / 2 - eps / mu) - mpmath.exp(eps) * mpmath.ncdf(-mu / 2 - eps / mu)


DELTAS = st.sampled_from([F(1, 2), F(1, 100), F(1, 10**6), F(1, 10**30), F(1, 10**300)])


@given(dist_pair(), st.sampled_from([2, 3, 5, 10]), DELTAS)
@example(([F(1, 10**6), 1 - F(1, 10**6)], [1 - F(1, 10**6), F(1, 10**6)]), 2, F(1, 10**300))
@settings(deadline=None)
def test_fact_2_4_discrete_pairs(pq, a, delta):
    """hockey_{e^eps}(P||Q) <= delta and hockey(Q||P) <= delta at eps = D^<->_alpha + log(1/delta)/(alpha-1)."""
    P, Q = pq
    ea = mpf_to_fraction(FZ.renyi_divergence_sym(P, Q, a))
    eps = mpf_to_fraction(rdp_to_dp_eps(a, ea, delta))
    d = q2m(delta)
    assert hockey(P, Q, eps) <= d and hockey(Q, P, eps) <= d


@given(st.fractions(min_value=F(1, 100), max_value=5, max_denominator=100), st.sampled_from([F(11, 10), F(2), F(8), F(64)]),
       DELTAS)
@example(F(1), F(2), F(1, 10**6))
@example(F(5), F(64), F(1, 10**300))
@settings(deadline=None)
def test_fact_2_4_gaussian(mu, a, delta):
    """Gaussian with mu = Delta/sigma is (alpha, alpha mu^2/2)-RDP; its exact delta at Fact 2.4's eps is <= delta."""
    eps = rdp_to_dp_eps(a, a * mu * mu / 2, delta)
    assert gaussian_delta(q2m(mu), eps) <= q2m(delta)
    assert FZA.RenyiFilter(a, a * mu * mu / 2).dp_guarantee(delta)["eps"] == eps  # the filter reports the same


def test_fact_2_4_formula_vs_naive():
    """The catalog value equals eps_alpha + log(1/delta)/(alpha-1) at 110 digits (rounded up)."""
    for a, e, d in ((F(2), F(1), F(1, 10**6)), (F(3, 2), F(0), F(1, 2)), (F(1000), F(7), F(1, 10**300))):
        v = rdp_to_dp_eps(a, e, d)
        naive = q2m(e) + mpmath.log(1 / q2m(d)) / (q2m(a) - 1)
        assert naive <= v <= naive * (1 + mpmath.mpf(10) ** -45)


def test_negative_control_without_the_log_term():
    """eps_alpha alone is not a DP epsilon: the Gaussian with mu = 1 at alpha = 2 has delta(1) ~ 0.127 > 1e-6."""
    assert gaussian_delta(mpmath.mpf(1), mpmath.mpf(1)) > mpmath.mpf("1e-6")


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="delta"):
        rdp_to_dp_eps(2, 1, 0)
    with pytest.raises(ValueError, match="alpha"):
        rdp_to_dp_eps(1, 1, "1e-6")
