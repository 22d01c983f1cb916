"""Subsampled-Gaussian runs near no privacy loss (tiny q, huge sigma): the closed-form front door (reference.profiles.sgm_closed)."""
from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest

from reference.precision import mpf_to_fraction
from reference.profiles import check as chk
from reference.profiles import sgm_closed as sc
from reference.profiles import sgm_pld
from reference.profiles.check import check, profile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
D5 = Fraction(1, 10 ** 5)
CLOSED = (sc.SOURCE_CLOSED_HI, sc.SOURCE_CLOSED_TV, sc.SOURCE_CLOSED_LO)


def _quad_one_step(q, s, eps, dps=45):
    """max(H_g(P || Q), H_g(Q || P)) of one step by direct mpmath quadrature of (p - g q)_+ (a second route)."""
    with mpmath.workdps(dps):
        q, s, eps = mpmath.mpf(q), mpmath.mpf(s), mpmath.mpf(eps)
        g = mpmath.exp(eps)
        n0 = lambda x: mpmath.npdf(x, 0, s)  # noqa: E731
        n1 = lambda x: mpmath.npdf(x, 1, s)  # noqa: E731
        p = lambda x: (1 - q) * n0(x) + q * n1(x)  # noqa: E731
        xp = s * s * mpmath.log((g - 1 + q) / q) + mpmath.mpf(1) / 2  # p - g q > 0 above xp
        hp = mpmath.quad(lambda x: p(x) - g * n0(x), [xp, xp + 2 * s, xp + 10 * s, mpmath.inf])
        B = 1 - g * (1 - q)
        hq = mpmath.mpf(0)
        if B > 0:
            xq = s * s * mpmath.log(B / (g * q)) + mpmath.mpf(1) / 2  # q - g p > 0 below xq
            hq = mpmath.quad(lambda x: n0(x) - g * p(x), [mpmath.ninf, xq - 10 * s, xq - 2 * s, xq])
        return max(hp, hq)


@pytest.mark.parametrize("q,s,eps", [("0.01", "1", "0.5"), ("0.5", "1", "0.1"), ("0.5", "0.7", "0.2"), ("1", "2", "1"),
                                     ("0.2", "3", "0"), ("0.001", "0.8", "2")])
def test_one_step_encloses_quadrature(q, s, eps):
    lo, hi = sc.sgm_one_step_delta(Fraction(q), Fraction(s), Fraction(eps))
    v = _quad_one_step(q, s, eps)
    tol = mpmath.mpf(10) ** -32
    assert lo <= v * (1 + tol) and v * (1 - tol) <= hi
    assert hi - lo <= hi * mpmath.mpf(10) ** -25  # the exact profile, up to rounding
    # negative control: a value off by one part in 10^20 is outside the enclosure
    assert not (lo <= v * (1 + mpmath.mpf(10) ** -20) <= hi)


def test_single_step_bracket_contains_quadrature():
    """k = 1: the closed-form bracket of a profile request is the exact one-step profile (rounded outward)."""
    b = profile("subsampled-gaussian:q=0.03,sigma=0.9", "delta", Fraction(1, 2))
    v = _quad_one_step("0.03", "0.9", "0.5")
    tol = mpmath.mpf(10) ** -32
    assert b.lo <= v * (1 + tol) and v * (1 - tol) <= b.hi
    assert b.hi_source == sc.SOURCE_CLOSED_LO.replace("one step of the run", "the step")


def test_tv_bound_matches_independent_product():
    ph = ((Fraction(1, 100), Fraction(3), 10), (Fraction(1, 10 ** 6), Fraction(1, 2), 1000))
    with mpmath.workdps(50):
        ind = 1 - (1 - mpmath.mpf("0.01") * mpmath.erf(1 / (2 * mpmath.sqrt(2) * 3))) ** 10 * (
            1 - mpmath.mpf("1e-6") * mpmath.erf(1 / (2 * mpmath.sqrt(2) * mpmath.mpf("0.5")))) ** 1000
        tv = sc.sgm_tv_upper(ph)
        assert ind <= tv <= ind * (1 + mpmath.mpf(10) ** -40)


# the inputs an outside review found crashing (exit 4) or running for minutes; claim (eps, delta) = (1, 1e-5)
REVIEW = ["subsampled-gaussian:q=1e-20,sigma=1x10", "subsampled-gaussian:q=1e-100,sigma=1x10",
          "subsampled-gaussian:q=1e-300,sigma=1x10", "subsampled-gaussian:q=0.01,sigma=1e100x10",
          "subsampled-gaussian:q=0.01,sigma=1e154x10", "subsampled-gaussian:q=0.01,sigma=1e300x10",
          "subsampled-gaussian:q=0.01,sigma=1e3x10", "subsampled-gaussian:q=0.01,sigma=1e4x10",
          "subsampled-gaussian:q=0.01,sigma=1e10x10"]


@pytest.fixture
def no_engine(monkeypatch):
    """The grid engine and the Renyi routes must not run: the closed-form route answers alone."""
    def boom(*a, **k):
        raise AssertionError("the grid engine / Renyi routes ran")
    monkeypatch.setattr(sgm_pld, "sgm_pld_phases", boom)
    monkeypatch.setattr(chk, "_sgm_routes", boom)


@pytest.mark.parametrize("spec", REVIEW)
def test_review_inputs_answer_by_closed_form(spec, no_engine):
    v = check(spec, 1, D5)
    assert v.status == "valid"
    for b in (v.delta_bracket, v.eps_bracket):
        assert b.lo <= b.hi
        assert b.hi_source in CLOSED
    # the truth is at most the composed Gaussian's (domination) and at least one step's
    steps = chk.parse_spec(spec)
    q, s, k = steps[0].p("q"), steps[0].p("sigma"), steps[0].count
    assert v.delta_bracket.lo >= sc.sgm_one_step_delta(q, s, 1)[0] * (1 - mpmath.mpf(10) ** -15)


@pytest.mark.parametrize("q", ["1e-20", "1e-300"])
def test_tiny_q_contains_the_limit(q):
    """q -> 0: delta(eps) -> 0, and the bracket's upper end is within a hair of k q TV(N1, N0) (second route: mpmath)."""
    b = profile(f"subsampled-gaussian:q={q},sigma=1x10", "delta", 0)
    with mpmath.workdps(40):
        ref = 10 * mpmath.mpf(q) * mpmath.erf(1 / (2 * mpmath.sqrt(2)))
    assert b.lo <= b.hi <= ref * (1 + mpmath.mpf(10) ** -15)
    assert b.hi >= ref * (1 - mpmath.mpf(10) ** -15)  # 1 - (1 - x)^k = k x (1 - O(k x)): tight to first order in q


def test_huge_sigma_q_one_is_the_gaussian():
    """q = 1 is the Gaussian mechanism: the closed-form bracket must contain the exact Gaussian profile (mu = 10/sigma)."""
    sub = profile("subsampled-gaussian:q=1,sigma=1e12x100", "delta", Fraction(1, 10 ** 12))
    gau = profile("gaussian:sigma=1e12x100", "delta", Fraction(1, 10 ** 12))
    assert sub.lo <= gau.hi and gau.lo <= sub.hi
    assert sub.lo <= sub.hi


def test_eps_zero_certified_by_total_variation(no_engine):
    b = profile("subsampled-gaussian:q=0.01,sigma=1e4x10", "eps", D5)
    assert b.lo == 0 and b.hi == 0
    # negative control: where the TV bound exceeds delta, eps(delta) > 0 is not claimed to be 0
    b2 = sc.sgm_closed_eps_bracket(((Fraction(1, 100), Fraction(1000), 10),), D5)
    assert b2.hi > 0


def test_engine_refuses_unresolvable_steps_with_a_reason():
    for q, s in (("1e-20", "1"), ("1e-300", "1"), ("0.01", "1e300"), ("0.01", "1e100")):
        assert not sgm_pld.resolves(Fraction(q), Fraction(s))
        with pytest.raises(ValueError, match="loss spread"):
            sgm_pld.sgm_pld_phases(((Fraction(q), Fraction(s), 10),), eps_hint=1)
    assert sgm_pld.resolves(Fraction(1, 100), Fraction(1))
    # the float estimate the grid is sized from no longer overflows
    m, sd = sgm_pld._sd_estimate(0.01, 1e300)
    assert 0 <= m and 0 < sd < 1e-290


@pytest.mark.slow
@pytest.mark.parametrize("spec,eps,delta", [(s, "1", "1e-5") for s in REVIEW] + [
    ("subsampled-gaussian:q=1e-6,sigma=1", "1", "0"), ("subsampled-gaussian:q=0.01,sigma=1x10", "1", "1e-300"),
    ("subsampled-gaussian:q=0.01,sigma=1x10", "40", "1e-300"), ("subsampled-gaussian:q=1e-9,sigma=0.3x1000000", "1", "1e-5")])
def test_cli_reviewed_inputs_answer(spec, eps, delta):
    """Every reviewed input gets a verdict from the CLI (0 valid, 1 invalid, 3 undecided), never 4 (internal error)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-m", "reference", "check", spec, "--eps", eps, "--delta", delta],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode in (0, 1, 3), r.stderr
    assert "verdict:" in r.stdout


def test_cli_exit_status_never_internal():
    """The CLI answers a reviewed input with a verdict (exit 0), never the internal-error status 4."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-m", "reference", "check", "subsampled-gaussian:q=0.01,sigma=1e154x10",
                        "--eps", "1", "--delta", "1e-5"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "valid" in r.stdout


def test_fixed_point_limited_bracket_is_final(monkeypatch):
    """delta = 1e-300 needs more fixed-point bits than F_MAX: the grid is not refined (a finer grid cannot narrow the
    bracket; it used to refine past the memory budget), and the bracket stays certified: it overlaps the closed-form
    bracket (a second route)."""
    ph = ((Fraction(1, 100), Fraction(1), 10),)
    d = Fraction(1, 10 ** 300)
    grids = []
    compose = sgm_pld._compose

    def one_grid(phases, bits, F, tail):
        grids.append(bits)
        if len(set(grids)) > 1:
            raise AssertionError(f"refined a fixed-point-limited bracket: grids {grids}")
        return compose(phases, bits, F, tail)

    monkeypatch.setattr(sgm_pld, "_compose", one_grid)
    C = sgm_pld.sgm_pld_phases(ph, delta_hint=d)
    assert sgm_pld._fix_need(ph, C.bits, C.tail) > sgm_pld.F_MAX
    lo, hi = C.eps_lower_exact(d), C.eps_upper_exact(d)
    assert hi is not None and 0 <= lo <= hi
    # both brackets hold the truth, so they overlap: the closed form's ends (one step below, the Gaussian above)
    cb = sc.sgm_closed_eps_bracket(ph, d)
    assert cb.lo <= mpmath.mpf(hi.numerator) / hi.denominator and mpmath.mpf(lo.numerator) / lo.denominator <= cb.hi


def test_delta_request_tail_budget_is_relative():
    """A delta(eps) request whose answer is far below 2^-60: the tail budget follows the answer (1e-5 of one step's
    delta, a lower bound on the run's), so the upper end is not stuck at the old absolute budget 2^-60."""
    ph = ((Fraction(1, 100), Fraction(1), 2),)
    e = Fraction(8)
    C = sgm_pld.sgm_pld_phases(ph, eps_hint=e)
    one_lo, one_hi = sc.sgm_one_step_delta(Fraction(1, 100), Fraction(1), e)
    assert C.tail <= mpf_to_fraction(one_hi) * Fraction(1, 10 ** 4)
    lo, hi = C.delta_lower_exact(e), C.delta_upper_exact(e)
    assert lo <= hi
    assert one_lo <= mpmath.mpf(hi.numerator) / hi.denominator  # one step is a projection of the run
    # the answer (about 1.75e-35) is bracketed to a few percent; at the absolute budget 2^-60 the upper end was >= 1e-19
    assert hi <= Fraction(1, 10 ** 30) and hi - lo <= hi / 20


def test_binary_float_scan_stops_when_every_term_underflows(monkeypatch):
    """The float scan that chooses the binary threshold stops once its terms underflow (it used to walk all k terms:
    a million at k = 1e6, q = 1e-9, minutes per check); its value is unchanged (the skipped terms are exactly 0.0)."""
    import math

    from reference.profiles import subsampled_gaussian as sgm

    calls = [0]
    lgamma = math.lgamma

    def counting(x):
        calls[0] += 1
        return lgamma(x)

    monkeypatch.setattr(sgm.math, "lgamma", counting)
    p1, p0 = sgm._p_float(1e-9, 0.3, 1.0)
    v = sgm._float_binary_delta(p1, p0, 10 ** 6, 1.0)
    assert v >= 0.0 and calls[0] < 10 ** 4
    # negative control: where the terms do not underflow the scan still sums them
    p1, p0 = sgm._p_float(0.1, 1.0, 1.0)
    assert sgm._float_binary_delta(p1, p0, 100, 0.5) > 0


def test_several_near_null_items_answer_by_closed_form(no_engine):
    """Heterogeneous phases: the closed forms compose (mu^2 and the TV product over the phases); one step of any phase is
    a projection of the run."""
    spec = "subsampled-gaussian:q=1e-20,sigma=1x10 + subsampled-gaussian:q=1e-30,sigma=2x5"
    v = check(spec, 1, D5)
    assert v.status == "valid" and v.delta_bracket.lo <= v.delta_bracket.hi
    with mpmath.workdps(40):
        tv = 1 - (1 - mpmath.mpf("1e-20") * mpmath.erf(1 / (2 * mpmath.sqrt(2)))) ** 10 * (
            1 - mpmath.mpf("1e-30") * mpmath.erf(1 / (4 * mpmath.sqrt(2)))) ** 5
    assert tv <= v.delta_bracket.hi <= tv * (1 + mpmath.mpf(10) ** -15)
