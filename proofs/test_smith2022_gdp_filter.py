"""smith2022 (Smith, Thakurta, arXiv 2210.17520 v1): the GDP filter ``sum mu_t^2 <= mu^2`` is valid for fully adaptive mu_t.

Statement (our words).  If step t is mu_t-GDP given the past and the analyst is stopped as soon as
sum_{j<=t} mu_j^2 would exceed mu^2, the interaction is mu-GDP: the same parameter as non-adaptive
composition (dong2022 Corollary 3.3).  With mu = mu*(eps, delta), the largest mu whose GDP curve
meets (eps, delta), the filter is an (eps, delta)-DP filter.

Claims tested: (1) on Gaussian workloads the shipped :class:`GaussianDPFilter` admits exactly the
optimal non-adaptive count (second route: 60-digit mpmath ncdf at sqrt(k) mu0 and sqrt(k+1) mu0);
(2) state is exact and JSON round-trips; (3) on eps-DP steps it admits the closed-form count and
the exact verifier certifies its delta below the claim on adaptive RR; (4) a negative control
(eps-DP steps charged mu = eps/2) is caught.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.accountants.base import BudgetExceeded
from reference.accountants.smith2022 import GaussianDPFilter
from reference.bounds.smith2022 import gdp_filter_rounds_dp, gdp_filter_rounds_gaussian
from reference.precision import mpf_to_fraction
from reference.verify.calibrated import GDPFilterTarget, NaiveGDPTarget
from reference.verify.engine import Homogeneous, verify
from reference.verify.targets import TARGETS, default_adversaries


def naive_delta(eps, mu2, dps=60):
    with mpmath.workdps(dps):
        e, m = mpmath.mpf(eps.numerator) / eps.denominator, mpmath.sqrt(mpmath.mpf(mu2.numerator) / mu2.denominator)
        return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


def optimal_gaussian_count(sigma, eps, delta):
    """Second route: largest k with delta_{sqrt(k)/sigma}(eps) <= delta, by scanning k at 60 digits (margins checked)."""
    mu0 = 1 / sigma
    with mpmath.workdps(60):
        delta = mpmath.mpf(delta.numerator) / delta.denominator
        lo, hi = 0, 1
        while naive_delta(eps, hi * mu0 * mu0) <= delta:
            lo, hi = hi, 2 * hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if naive_delta(eps, mid * mu0 * mu0) <= delta:
                lo = mid
            else:
                hi = mid
        for k in (lo, lo + 1):  # not a near tie at 60 digits
            assert abs(naive_delta(eps, k * mu0 * mu0) / delta - 1) > mpmath.mpf(10) ** -40
    return lo


@settings(max_examples=6, deadline=None)
@given(st.sampled_from([F(5), F(20), F(47, 2), F(100), F(300)]), st.sampled_from([F(1, 10**6), F(1, 10**3)]))
@example(F(20), F(1, 10**6))
def test_gaussian_workload_admits_exactly_the_optimal_count(sigma, delta):
    """The shipped filter driven by run_gaussian(sigma) admits k* = the optimal non-adaptive count (exact)."""
    eps = F(1)
    k_star = optimal_gaussian_count(sigma, eps, delta)
    f = GaussianDPFilter(eps, delta)
    n = 0
    while f.try_run_gaussian(sigma):
        n += 1
        assert n <= k_star + 1
    assert n == k_star == gdp_filter_rounds_gaussian(1 / sigma, eps, delta)
    assert f.S == n / sigma ** 2


def test_refusal_leaves_state_and_json_round_trip():
    f = GaussianDPFilter("1", "1e-6")
    for _ in range(22):
        f.run_gaussian(20)
    with pytest.raises(BudgetExceeded):
        f.run_gaussian(20)
    assert f.n == 22 and f.S == F(22, 400)
    g = GaussianDPFilter.from_json(f.to_json())
    assert g.S == f.S and not g.can_run_gaussian(20) and g.can_run_gdp(F(1, 1000))
    with pytest.raises(ValueError, match="sigma"):
        f.run_gaussian(0)
    with pytest.raises(ValueError, match="delta"):
        GaussianDPFilter(1, 2)


def test_dp_steps_closed_form_count():
    f = GaussianDPFilter("1", "1e-6")
    n = 0
    while f.try_run_dp("0.01"):
        n += 1
    assert n == gdp_filter_rounds_dp("0.01", "1", "1e-6") == 356


def test_verifier_certifies_the_gdp_filter_and_catches_the_naive_charge():
    fac, e0, r = TARGETS["S22_gdp_filter"]
    t = fac()
    for name, adv in default_adversaries(t, e0, r).items():
        res = verify(t, adv, r)
        assert res.verdict == "pass", (name, res.hi, res.allowed)
    neg = verify(NaiveGDPTarget(1, F(1, 1000)), Homogeneous(F(1, 10)), 300)
    assert neg.verdict == "FAIL" and mpf_to_fraction(neg.lo) > neg.allowed


@settings(max_examples=10, deadline=None)
@given(st.lists(st.sampled_from([F(1, 10), F(1, 5), F(3, 10)]), min_size=1, max_size=40))
def test_verifier_adapter_decides_as_the_stateful_filter(seq):
    """The GDP adapter (S rebuilt from the engine's multiset) decides as GaussianDPFilter.try_run_dp on random sequences."""
    from reference.verify.engine import AccState

    menu = tuple((e, F(0)) for e in (F(1, 10), F(1, 5), F(3, 10)))
    t, obj = GDPFilterTarget(1, F(1, 10)), GaussianDPFilter(1, F(1, 10))
    counts = [0] * len(menu)
    for e in seq:
        st_ = AccState(sum((c * m[0] ** 2 for c, m in zip(counts, menu)), F(0)), F(0), tuple(counts), menu)
        want = obj.try_run_dp(e)
        assert t.admits(st_, e, F(0)) == want
        if want:
            counts[[m[0] for m in menu].index(e)] += 1
