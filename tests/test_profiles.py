"""Exact privacy profiles (reference.profiles): each value against an independent second route.

Second routes: the k = 1 Laplace closed form 1 - e^{(eps - eps0)/2}; k = 2 Laplace by nested
``mpmath.quad`` of the composed privacy-loss law; the sampled-Gaussian Renyi moment by
``mpmath.quad`` of E_{mu0}[(mu/mu0)^alpha]; pure-DP composition by exact enumeration of the 2^k
randomized-response outcomes; the q = 1 sampled Gaussian against the exact Gaussian (mu-GDP)
curve.  Comparisons are one-sided where a value is a bound; each family has a negative control
(a deliberately broken value) that the same comparison rejects.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import pytest

from reference.bounds.classical import kov_delta, laplace_rdp_to_dp_eps_improved
from reference.precision import mpf_to_fraction
from reference.profiles import laplace as lap
from reference.profiles import pure_dp
from reference.profiles import subsampled_gaussian as sgm
from tests.second_route import hp, q2m, rel


def encloses(lo, hi, ref, tol) -> bool:
    """lo <= ref <= hi up to the second route's own relative accuracy ``tol``."""
    return lo <= ref * (1 + tol) and ref * (1 - tol) <= hi


# ---------------------------------------------------------------------------
# Laplace
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("b,eps", [("1", "0"), ("1", "0.3"), ("10", "0.05"), ("1/3", "2.9"), ("0.02", "49")])
def test_laplace_one_step_is_the_closed_form(b, eps):
    """k = 1: delta(eps) = 1 - e^{(eps - eps0)/2} for 0 <= eps <= eps0 = 1/b (the Laplace profile)."""
    c = hp(60)
    e0 = 1 / Fraction(b)
    ref = 1 - c.exp((q2m(c, eps) - q2m(c, e0)) / 2)
    lo, hi = lap.laplace_kfold_delta_enclosure(b, 1, eps, dps=40)
    assert lo <= hi
    assert rel(hi, ref) < mpmath.mpf(10) ** -38 and rel(lo, ref) < mpmath.mpf(10) ** -38
    assert lap.laplace_kfold_delta(b, 1, eps, dps=40) >= ref * (1 - mpmath.mpf(10) ** -55)
    assert lap.laplace_kfold_delta_lower(b, 1, eps, dps=40) <= ref * (1 + mpmath.mpf(10) ** -55)


def _laplace_two_fold_quad(b, eps):
    """delta(eps) of 2-fold Laplace by nested quadrature of the composed loss law (independent of the spline)."""
    c = hp(25)
    e0 = 1 / q2m(c, b)
    E = q2m(c, eps)

    def f(s):
        return 1 - c.exp(E - s) if s > E else c.mpf(0)

    atoms = [(e0, c.mpf(1) / 2), (-e0, c.exp(-e0) / 2)]

    def dens(l):
        return c.exp(-e0 / 2) * c.exp(l / 2) / 4

    def inner(a):  # int dens(l) f(a + l) dl over (-e0, e0), kink at l = E - a
        lo = max(-e0, E - a)
        if lo >= e0:
            return c.mpf(0)
        return c.quad(lambda l: dens(l) * f(a + l), [lo, e0])

    tot = sum(w1 * w2 * f(a1 + a2) for a1, w1 in atoms for a2, w2 in atoms)
    tot += 2 * sum(w * inner(a) for a, w in atoms)
    tot += c.quad(lambda l1: dens(l1) * inner(l1), [-e0, min(max(E - e0, -e0), e0), e0])
    return tot


@pytest.mark.parametrize("b,eps", [("1", "0.3"), ("2", "0.1"), ("1", "1.5"), ("1/2", "0"), ("5", "0.39")])
def test_laplace_two_fold_against_quadrature(b, eps):
    """k = 2: the certified spline value equals the nested-quadrature value of E_P[(1 - e^{eps - L1 - L2})_+]."""
    ref = _laplace_two_fold_quad(Fraction(b), Fraction(eps))
    lo, hi = lap.laplace_kfold_delta_enclosure(b, 2, eps, dps=30)
    assert encloses(lo, hi, ref, mpmath.mpf(10) ** -15), (lo, hi, ref)
    # negative control: a value 1e-9 too small (relative) is caught by the same comparison
    assert not encloses(lo * (1 - mpmath.mpf(10) ** -9), hi * (1 - mpmath.mpf(10) ** -9), ref, mpmath.mpf(10) ** -15)


@pytest.mark.parametrize("b,k,eps", [("10", 20, "0.5"), ("2", 10, "1"), ("1", 6, "0.7"), ("100", 50, "0.05")])
def test_laplace_between_its_bounds(b, k, eps):
    """Ordering: exact Laplace delta <= optimal (1/b)-DP composition (Laplace is (1/b)-DP; KOV15 Thm 3.3), and > 0 below k/b."""
    v = lap.laplace_kfold_delta(b, k, eps, dps=20)
    assert 0 < v <= kov_delta(1 / Fraction(b), 0, k, eps, dps=20)


@pytest.mark.parametrize("b,k,delta", [("10", 10, "1e-6"), ("2", 5, "1e-3"), ("1", 3, "1e-12")])
def test_laplace_eps_inverse_is_certified(b, k, delta):
    """eps(delta): delta(eps_hi) <= delta < delta(eps_lo), and eps_hi <= the Renyi conversion and <= k/b."""
    br = lap.laplace_kfold_eps_bracket(b, k, delta, dps=20)
    d = Fraction(delta)
    assert mpf_to_fraction(lap.laplace_kfold_delta(b, k, mpf_to_fraction(br.hi), dps=25)) <= d
    assert mpf_to_fraction(lap.laplace_kfold_delta_lower(b, k, mpf_to_fraction(br.lo), dps=25)) > d
    assert br.hi - br.lo <= br.hi * mpmath.mpf(10) ** -15
    assert br.hi <= laplace_rdp_to_dp_eps_improved(b, k, delta, dps=20)
    assert mpf_to_fraction(br.hi) <= k / Fraction(b)


def test_laplace_heterogeneous_bracket_contains_the_homogeneous_value():
    """Mixed scales: [best sub-composition, optimal pure-DP] brackets; equal scales give the exact (tight) profile."""
    exact = lap.laplace_profile_delta(["10"] * 6, "0.2", dps=20)
    assert exact.exact and exact.hi - exact.lo <= exact.hi * mpmath.mpf(10) ** -18
    mixed = lap.laplace_profile_delta(["10"] * 6 + ["5"] * 2, "0.2", dps=20)
    assert not mixed.exact and mixed.lo <= mixed.hi
    assert mixed.lo >= exact.lo * (1 - mpmath.mpf(10) ** -15)  # the 6 copies are a sub-composition


def test_laplace_limits_are_refused():
    with pytest.raises(ValueError, match="k"):
        lap.laplace_kfold_delta("1", lap.K_MAX + 1, "0")
    with pytest.raises(ValueError, match="b"):
        lap.laplace_kfold_delta("1/100", 1, "0")


# ---------------------------------------------------------------------------
# Poisson-subsampled Gaussian
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("q,sigma,alpha", [("0.1", "1", 2), ("0.1", "1", 3), ("0.5", "2", 4), ("0.01", "0.8", 5)])
def test_sgm_rdp_against_quadrature(q, sigma, alpha):
    """MTZ19 Sec. 3.3: log(E_{mu0}[(mu/mu0)^alpha])/(alpha-1) by quadrature of the densities equals the binomial expansion."""
    c = hp(30)
    Q, S = q2m(c, Fraction(q)), q2m(c, Fraction(sigma))

    def phi(x, m):
        return c.exp(-(x - m) ** 2 / (2 * S * S)) / (S * c.sqrt(2 * c.pi))

    A = c.quad(lambda x: phi(x, 0) * ((1 - Q) + Q * phi(x, 1) / phi(x, 0)) ** alpha, [-c.inf, 0, 1, c.inf])
    ref = c.log(A) / (alpha - 1)
    v = sgm.sgm_rdp(q, sigma, alpha, dps=30)
    assert v >= ref * (1 - mpmath.mpf(10) ** -20) and rel(v, ref) < mpmath.mpf(10) ** -20
    assert not rel(v * (1 + mpmath.mpf(10) ** -12), ref) < mpmath.mpf(10) ** -20  # negative control


def test_sgm_rdp_q1_is_the_gaussian_curve():
    """q = 1: the SGM is the Gaussian mechanism, eps(alpha) = alpha/(2 sigma^2) (mironov2017 Prop. 7)."""
    for a in (2, 7, 64):
        v = sgm.sgm_rdp(1, "3/2", a, dps=40)
        ref = Fraction(a) / (2 * Fraction(9, 4))
        assert abs(mpf_to_fraction(v) - ref) <= ref * Fraction(1, 10 ** 38)
        assert mpf_to_fraction(v) >= ref


def test_sgm_bracket_contains_the_exact_gaussian_at_q1():
    """q = 1, k = 4, sigma = 2: the composition is exactly 1-GDP; the SGM bracket must contain that exact delta and eps."""
    from reference.profiles.gaussian import gdp_delta, gdp_delta_lower, gdp_eps

    br = sgm.sgm_delta_bracket(1, 2, 4, "1", dps=20)
    assert br.lo <= gdp_delta("1", 1, dps=20) and gdp_delta_lower("1", 1, dps=20) <= br.hi
    eb = sgm.sgm_eps_bracket(1, 2, 4, "1e-6", dps=20)
    g = gdp_eps("1e-6", 1, dps=20)
    assert eb.lo <= g <= eb.hi


def test_sgm_bracket_is_ordered_and_monotone():
    b1 = sgm.sgm_eps_bracket("0.01", "1.1", 1000, "1e-5", dps=20)
    b2 = sgm.sgm_eps_bracket("0.01", "1.1", 4000, "1e-5", dps=20)
    assert 0 < b1.lo <= b1.hi and 0 < b2.lo <= b2.hi
    assert b1.hi <= b2.hi  # more steps, larger upper end


# ---------------------------------------------------------------------------
# Pure DP (randomized response)
# ---------------------------------------------------------------------------

def _rr_enumeration(eps_list, eps):
    """Exact hockey-stick of prod_i RR_{eps_i} by enumerating the 2^k outcomes (60 digits)."""
    c = hp(60)
    E = q2m(c, eps)
    tot = c.mpf(0)
    for signs in itertools.product((1, -1), repeat=len(eps_list)):
        p = c.mpf(1)
        qv = c.mpf(1)
        for s, e in zip(signs, eps_list):
            ee = c.exp(q2m(c, e))
            p *= (ee if s == 1 else 1) / (1 + ee)
            qv *= (1 if s == 1 else ee) / (1 + ee)
        tot += max(c.mpf(0), p - c.exp(E) * qv)
    return tot


@pytest.mark.parametrize("eps_list,eps", [(["0.1"] * 8, "0.2"), (["0.1", "0.3", "0.5", "0.3"], "0.1"), (["1", "0.25", "2"], "0")])
def test_pure_dp_against_enumeration(eps_list, eps):
    """Optimal composition (KOV15 / Murtagh-Vadhan) = the hockey-stick of composed randomized response, enumerated exactly."""
    ref = _rr_enumeration(eps_list, eps)
    br = pure_dp.pure_dp_delta(eps_list, eps, dps=40)
    assert br.exact and encloses(br.lo, br.hi, ref, mpmath.mpf(10) ** -38)
    assert not encloses(br.lo * 1.001, br.hi * 1.001, ref, mpmath.mpf(10) ** -38)  # negative control


def test_pure_dp_eps_bracket_is_certified():
    br = pure_dp.pure_dp_eps(["0.01"] * 1000, "1e-6", dps=20)
    d = Fraction(1, 10 ** 6)
    assert br.lo < br.hi
    assert mpf_to_fraction(pure_dp.pure_dp_delta(["0.01"] * 1000, mpf_to_fraction(br.lo), dps=20).lo) > d
    assert mpf_to_fraction(pure_dp.pure_dp_delta(["0.01"] * 1000, mpf_to_fraction(br.hi), dps=20).hi) <= d


def test_gdp_inverse_fast_bracket_agrees_with_bisection_and_survives_a_wrong_estimate(monkeypatch):
    """The secant estimate only proposes a bracket: with it, without it, or with a wrong one, the certified
    eps(delta) and mu(eps, delta) come out within the promised relative width of each other."""
    from fractions import Fraction

    from reference.bounds import dong2022 as D
    from reference.precision import mpf_to_fraction

    cases = [("gdp_eps", ("1e-6", "1/2")), ("gdp_eps", ("1e-100", "7/10")), ("gdp_mu", ("1", "1e-6"))]
    fast = {c: mpf_to_fraction(getattr(D, c[0])(*c[1], dps=20)) for c in cases}
    monkeypatch.setattr(D, "_precise_root", lambda *a, **k: None)
    slow = {c: mpf_to_fraction(getattr(D, c[0])(*c[1], dps=20)) for c in cases}
    monkeypatch.setattr(D, "_precise_root", lambda g, x0, bits: Fraction(2) * Fraction(x0))  # a wrong estimate
    wrong = {c: mpf_to_fraction(getattr(D, c[0])(*c[1], dps=20)) for c in cases}
    tol = Fraction(1, 10 ** 19)
    for c in cases:
        assert abs(fast[c] - slow[c]) <= tol * slow[c], c
        assert abs(wrong[c] - slow[c]) <= tol * slow[c], c
    # the directions hold exactly: eps is admitted at the returned value, mu is admitted at the returned value
    assert D.gdp_delta_admits(fast[cases[0]], Fraction(1, 2), Fraction(1, 10 ** 6))
    assert D.gdp_delta_admits(Fraction(1), fast[cases[2]], Fraction(1, 10 ** 6))
