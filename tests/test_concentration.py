"""The moment bracket of reference.profiles.concentration (Cantelli below, real-order Renyi / Chernoff above).

Second routes: a 60-digit naive binomial sum for k-fold randomized response (every term of the
hockey-stick divergence), mpmath quadrature at 40 digits for the moments and Renyi divergences
of the subsampled Gaussian, and the certified PLD bracket (an independent engine) at 10^4 steps.
"""
from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest

from reference.cli import main
from reference.profiles import concentration as conc
from reference.profiles.check import check, parse_spec, profile

RR12 = "rr:0.01x1000000000000"
SGM12 = "subsampled-gaussian:q=0.01,sigma=1.1x1000000000000"


def _steps(spec):
    return parse_spec(spec)


# ---------------------------------------------------------------------------
# second route 1: k-fold randomized response, every binomial term at 60 digits
# ---------------------------------------------------------------------------

def _rr_delta_naive(eps0, k, eps):
    """sum_l C(k, l) p^(k-l) (1-p)^l (1 - e^(eps - (k - 2l) eps0))_+, p = e^eps0/(1 + e^eps0), at 60 digits."""
    with mpmath.workdps(60):
        e0, e = mpmath.mpf(eps0.numerator) / eps0.denominator, mpmath.mpf(eps.numerator) / eps.denominator
        p = mpmath.exp(e0) / (1 + mpmath.exp(e0))
        tot = mpmath.mpf(0)
        for l in range(k + 1):
            loss = (k - 2 * l) * e0
            if loss > e:
                tot += mpmath.binomial(k, l) * p ** (k - l) * (1 - p) ** l * (1 - mpmath.exp(e - loss))
        return tot


RR_CASES = [(Fraction(1, 10), 200), (Fraction(1, 2), 200), (Fraction(1, 20), 400)]


@pytest.mark.parametrize("eps0,k", RR_CASES)
def test_rr_delta_bracket_contains_the_naive_sum(eps0, k):
    steps = _steps(f"rr:{eps0}x{k}")
    mean = float(k * eps0 * mpmath.tanh(float(eps0) / 2))
    for eps in [Fraction(0), Fraction(1, 10), Fraction(mean / 2).limit_denominator(1000),
                Fraction(mean).limit_denominator(1000), Fraction(2 * mean + 1).limit_denominator(1000)]:
        b = conc.concentration_bracket(steps, "delta", eps)
        truth = _rr_delta_naive(eps0, k, eps)
        assert b.lo <= truth * (1 + mpmath.mpf(10) ** -30), (eps, b.lo, truth)
        assert b.hi >= truth * (1 - mpmath.mpf(10) ** -30), (eps, b.hi, truth)


@pytest.mark.parametrize("eps0,k", RR_CASES)
def test_rr_eps_bracket_contains_the_naive_inverse(eps0, k):
    """eps(delta) >= lo needs delta(lo) >= delta; eps(delta) <= hi needs delta(hi) <= delta (naive sums at both ends)."""
    steps = _steps(f"rr:{eps0}x{k}")
    for d in [Fraction(1, 10), Fraction(1, 10 ** 3), Fraction(1, 10 ** 6)]:
        b = conc.concentration_bracket(steps, "eps", d)
        if b.lo > 0:
            assert _rr_delta_naive(eps0, k, mpmath_to_fraction(b.lo)) >= _mp(d)
        assert _rr_delta_naive(eps0, k, mpmath_to_fraction(b.hi)) <= _mp(d)


def _mp(x: Fraction):
    with mpmath.workdps(60):
        return mpmath.mpf(x.numerator) / x.denominator


def mpmath_to_fraction(x):
    from reference.precision import mpf_to_fraction

    return mpf_to_fraction(x)


def test_negative_control_a_lower_end_one_sd_too_high_is_caught():
    """The naive route rejects a lower end moved up by one standard deviation (the test can fail)."""
    eps0, k = Fraction(1, 10), 200
    steps = _steps(f"rr:{eps0}x{k}")
    d = Fraction(1, 10)
    M, V = conc.composed_moments(steps)
    b = conc.concentration_bracket(steps, "eps", d)
    assert _rr_delta_naive(eps0, k, mpmath_to_fraction(b.lo)) >= _mp(d)
    broken = mpmath_to_fraction(b.lo) + Fraction(float(V) ** 0.5).limit_denominator(10 ** 6) * 3
    assert _rr_delta_naive(eps0, k, broken) < _mp(d)  # a bracket with this lower end would be caught above


# ---------------------------------------------------------------------------
# second route 2: quadrature of the subsampled Gaussian's loss moments and Renyi divergences
# ---------------------------------------------------------------------------

def _sgm_quad(q, s, f_of_ratio_under_Q):
    """E_Q f(p/q0) with Q = N(0, s^2), P = (1-q) N(0, s^2) + q N(1, s^2), by 40-digit quadrature."""
    with mpmath.workdps(40):
        q, s = _mp(q), _mp(s)

        def integrand(x):
            r = 1 - q + q * mpmath.exp((2 * x - 1) / (2 * s * s))
            return mpmath.npdf(x, 0, s) * f_of_ratio_under_Q(r)

        return mpmath.quad(integrand, [-mpmath.inf, -10 * s, 0, 1, 10 * s + 1, mpmath.inf])


SGM_CASES = [(Fraction(1, 100), Fraction(11, 10)), (Fraction(1, 2), Fraction(4, 5)), (Fraction(1, 10), Fraction(2))]


@pytest.mark.parametrize("q,s", SGM_CASES)
def test_sgm_moments_against_quadrature(q, s):
    step = _steps(f"subsampled-gaussian:q={q},sigma={s}")[0]
    mean_lo, var_hi = conc.loss_moments(step)
    kl = _sgm_quad(q, s, lambda r: r * mpmath.log(r))  # E_P L
    second = _sgm_quad(q, s, lambda r: r * mpmath.log(r) ** 2)  # E_P L^2 >= Var_P L
    assert _mp(mean_lo) <= kl * (1 - mpmath.mpf(10) ** -25)
    assert _mp(var_hi) >= second
    if q <= Fraction(1, 10):
        assert _mp(mean_lo) >= kl * mpmath.mpf("0.98")  # the bound is useful where the steps are many and small


@pytest.mark.parametrize("q,s", SGM_CASES)
@pytest.mark.parametrize("alpha", [Fraction(1001, 1000), Fraction(11, 10), Fraction(3, 2), Fraction(2)])
def test_sgm_renyi_bound_against_quadrature_both_orientations(q, s, alpha):
    step = _steps(f"subsampled-gaussian:q={q},sigma={s}")[0]
    up = conc.rdp_upper(step, alpha)
    a = mpmath.mpf(alpha.numerator) / alpha.denominator
    remove = mpmath.log(_sgm_quad(q, s, lambda r: r ** a)) / (a - 1)
    add = mpmath.log(_sgm_quad(q, s, lambda r: r ** (1 - a))) / (a - 1)
    tol = 1 - mpmath.mpf(10) ** -25  # the quadrature's own error is about 1e-35
    assert up >= remove * tol and up >= add * tol
    assert up <= 1.2 * max(remove, add)


def test_bad_inputs_are_refused():
    step = _steps("subsampled-gaussian:q=0.01,sigma=1.1")[0]
    with pytest.raises(ValueError, match="alpha"):
        conc.rdp_upper(step, 3)
    with pytest.raises(ValueError, match="quantity"):
        conc.concentration_bracket((step,), "both", Fraction(1, 2))
    with pytest.raises(ValueError, match="delta"):
        conc.concentration_bracket((step,), "eps", 1)


def test_sgm_bracket_meets_the_pld_bracket():
    """At 10^4 steps the certified PLD bracket (an independent engine) and the moment bracket overlap."""
    from reference.profiles import sgm_pld

    steps = _steps("subsampled-gaussian:q=0.01,sigma=1.1x10000")
    for d in [Fraction(1, 10 ** 5), Fraction(1, 10)]:
        b = conc.concentration_bracket(steps, "eps", d)
        pld = sgm_pld.sgm_pld_eps_bracket(Fraction(1, 100), Fraction(11, 10), 10000, d)
        assert b.lo <= pld.hi and pld.lo <= b.hi, (b, pld)


# ---------------------------------------------------------------------------
# the huge inputs: decided, narrow, monotone in k
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("spec,eps,delta", [(RR12, "1", "1e-6"), (SGM12, "10", "1e-5")])
def test_huge_counts_are_decided_with_a_narrow_bracket(spec, eps, delta):
    v = check(spec, eps, delta)
    assert v.status == "invalid" and v.exit_status == 1
    assert v.eps_bracket.lo > 0 and v.eps_bracket.hi <= mpmath.mpf("1.01") * v.eps_bracket.lo
    assert v.delta_bracket.lo > mpmath.mpf("0.9")


def test_huge_counts_cli_exit_status(capsys):
    assert main(["check", RR12, "--eps", "1", "--delta", "1e-6", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "invalid"
    assert Fraction(out["eps_at_claimed_delta"]["upper"]) <= Fraction(101, 100) * Fraction(out["eps_at_claimed_delta"]["lower"])


def test_huge_valid_claim_is_valid():
    """A claim above the certified upper end is valid (the other side of the decision)."""
    v = check(SGM12, "64000000", "1e-5")
    assert v.status == "valid" and v.exit_status == 0


@pytest.mark.parametrize("base", ["rr:0.01", "subsampled-gaussian:q=0.01,sigma=1.1", "laplace:b=100"])
def test_brackets_are_monotone_in_k(base):
    """eps(delta) is nondecreasing in k (dropping steps is post-processing): so are both certified ends here, and each
    bracket lies above the previous one's lower end."""
    prev = None
    for k in [10 ** 9, 10 ** 10, 10 ** 11, 10 ** 12]:
        b = conc.concentration_bracket(_steps(f"{base}x{k}"), "eps", Fraction(1, 10 ** 6))
        assert 0 < b.lo <= b.hi
        if prev is not None:
            assert b.lo >= prev.lo and b.hi >= prev.hi
        prev = b


def test_delta_and_eps_brackets_agree():
    """delta(eps) at the eps bracket's ends: above delta at the lower end, below at the upper end (certified ends only)."""
    steps = _steps(SGM12)
    d = Fraction(1, 10 ** 5)
    eb = conc.concentration_bracket(steps, "eps", d)
    assert conc.concentration_bracket(steps, "delta", mpmath_to_fraction(eb.hi)).lo <= _mp(d)
    assert conc.concentration_bracket(steps, "delta", mpmath_to_fraction(eb.lo)).hi >= _mp(d)


def test_profile_uses_the_moment_bracket_for_a_huge_mixture():
    b = profile("rr:0.01x1000000000000+subsampled-gaussian:q=0.01,sigma=1.1x1000000000000", "eps", "1e-6")
    assert b.lo > 10 ** 8 and b.hi <= mpmath.mpf("1.01") * b.lo
