"""Whitehouse et al. closed forms, each against an independent second route."""
import itertools
import math
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, strategies as st

from reference.bounds import whitehouse2023 as W
from reference.precision import mpf_to_fraction

mp = mpmath.mp.clone() if hasattr(mpmath.mp, "clone") else None
TIGHT = mpmath.mpf(10) ** -45


def hp(dps=100):
    """A private high-precision context for second routes."""
    from mpmath.ctx_mp import MPContext
    c = MPContext()
    c.dps = dps
    return c


def rel(a, b):
    return abs(a - b) / max(abs(b), mpmath.mpf(10) ** -300)


eps_st = st.fractions(min_value=F(1, 1000), max_value=20)
dp_st = st.sampled_from([F(1, 10), F(1, 10**6), F(1, 10**12), F(1, 10**300)])


@given(eps_st, dp_st)
@example(F(1), F(1, 10**6))
def test_ystar_solves_f_equals_eps_by_root_finding(e, dp):
    """Second route: mpmath.findroot on sqrt(2 L y) + y/2 - eps at 100 digits."""
    c = hp()
    L = -c.log(c.mpf(dp.numerator) / dp.denominator)
    ee = c.mpf(e.numerator) / e.denominator
    root = c.findroot(lambda s: s * s / 2 + c.sqrt(2 * L) * s - ee, c.sqrt(ee))
    ys = W.y_star(e, dp)
    assert rel(ys, root**2) < TIGHT


def test_printed_ystar_does_not_solve_f():
    ys = W.y_star_as_printed(1, "1e-6")
    f = W.filter_spent(mpf_to_fraction(ys), "1e-6")
    assert abs(f - mpmath.mpf("0.5")) < mpmath.mpf("1e-3")  # solves f = eps/2 approximately, not eps


@given(st.lists(st.fractions(min_value=0, max_value=50), min_size=1, max_size=8), dp_st)
def test_advanced_composition_vs_naive_sum(es, dp):
    """Second route: the printed (e^x - 1)/(e^x + 1) form summed at 120 digits."""
    c = hp(120)
    to = lambda q: c.mpf(q.numerator) / q.denominator
    naive = c.sqrt(2 * -c.log(to(dp)) * sum(to(x) ** 2 for x in es)) + sum(
        to(x) * (c.exp(to(x)) - 1) / (c.exp(to(x)) + 1) for x in es)
    got = W.advanced_composition_eps(es, dp)
    assert got >= naive - abs(naive) * mpmath.mpf(10) ** -100  # upper bound, checked at higher precision
    assert rel(got, naive) < TIGHT


@given(st.fractions(min_value=0, max_value=30), st.fractions(min_value=0, max_value=1), st.fractions(min_value=0, max_value=30))
def test_rr_hockey_stick_by_enumeration(e, d, ep):
    """Second route: sum over the four outputs of max(0, P(r) - e^eps' Q(r))."""
    P = W.rr_output_distribution(e, d, 1, dps=80)
    Q = W.rr_output_distribution(e, d, 0, dps=80)
    c = hp(80)
    w = c.exp(c.mpf(ep.numerator) / ep.denominator)
    enum = sum(max(0, P[r] - w * Q[r]) for r in (0, 1, "top", "bot"))
    got = W.rr_hockey_stick(e, d, ep)
    assert got >= enum - mpmath.mpf(10) ** -70
    assert abs(got - enum) <= mpmath.mpf(10) ** -45 * max(1, abs(enum))


@given(st.fractions(min_value=0, max_value=40))
def test_rr_expected_loss_from_pld_and_lemma6(e):
    """Second route: expectation over the exact privacy-loss distribution; Lemma 6 bound; Figure 1a gap <= eps^4/24."""
    pld = W.rr_privacy_loss_distribution(e, 0, dps=80)
    mean = sum(l * p for l, p in pld.items())
    got = W.rr_expected_loss(e)
    assert abs(got - mean) <= mpmath.mpf(10) ** -45 * max(1, abs(mean))
    assert got <= W.expected_loss_bound(e)
    gap = W.lower_order_gap(e)
    assert gap >= 0
    assert mpf_to_fraction(gap) <= e**4 / 24 + F(1, 10**40)
    assert sum(pld.values()) == pytest.approx(1, abs=1e-45)


@given(st.fractions(min_value=0, max_value=100), st.fractions(min_value=F(1, 100), max_value=100), st.sampled_from([F(1, 10), F(1, 10**6)]))
def test_mixture_boundary_makes_mixture_equal_inverse_delta(v, r, d):
    """Second route: numerical integration of the Gaussian mixture of exp(l S - l^2 V/2) equals 1/delta at the boundary."""
    S = W.mixture_boundary(v, r, d)
    c = hp(40)
    to = lambda q: c.mpf(q.numerator) / q.denominator
    Sv, vv, rr = c.mpf(S), to(v), to(r)
    dens = lambda l: c.sqrt(rr / (2 * c.pi)) * c.exp(l * Sv - l * l * (vv + rr) / 2)
    peak = Sv / (vv + rr)
    width = 1 / c.sqrt(vv + rr)
    integral = c.quad(dens, [peak - 40 * width, peak, peak + 40 * width])
    assert abs(integral * to(d) - 1) < mpmath.mpf(10) ** -25


@given(st.fractions(min_value=F(1, 100), max_value=10**6), st.fractions(min_value=F(1, 1000), max_value=1), dp_st.filter(lambda x: x < 1))
def test_printed_stitched_dominates_general_stitching(v, v0, d):
    """Theorem 5's rounded constants (1.7, 0.72, 5.2) make it >= Howard et al.'s eta=2, s=1.4 boundary where both apply."""
    if v < v0:
        assert W.stitched_boundary(v, v0, d) == mpmath.inf
        return
    assert W.stitched_boundary(v, v0, d) >= W.stitching_boundary(v, v0, d, 2, "1.4")


@given(st.fractions(min_value=0, max_value=10**4), eps_st, dp_st)
def test_filter_odometer_is_tangent_above_f(v, e, dp):
    """u^F(V) >= f(V) (tangent line of a concave function) with equality at V = y*."""
    assert W.filter_odometer(v, e, dp) >= W.filter_spent(v, dp) - mpmath.mpf(10) ** -40
    ys = mpf_to_fraction(W.y_star(e, dp, dps=80))
    assert abs(W.filter_odometer(ys, e, dp) - mpmath.mpf(e.numerator) / e.denominator) < mpmath.mpf(10) ** -40 * (1 + e)


@given(st.lists(st.fractions(min_value=0, max_value=1), min_size=1, max_size=30), st.fractions(min_value=F(1, 10), max_value=5), dp_st)
def test_stop_index_vs_brute_force_200_digits(es, et, dp):
    """Second route: evaluate f(V_{n+1}) at 200 digits and compare with eps (no ties occur for rational inputs)."""
    c = hp(200)
    L = -c.log(c.mpf(dp.numerator) / dp.denominator)
    V = F(0)
    expected = len(es)
    for n, x in enumerate(es):
        V += x * x
        vv = c.mpf(V.numerator) / V.denominator
        if c.sqrt(2 * L * vv) + vv / 2 > c.mpf(et.numerator) / et.denominator:
            expected = n
            break
    assert W.filter_stop_index(es, [0] * len(es), et, dp, 0) == expected


@pytest.mark.parametrize("e0, et, dp", [("0.01", 1, "1e-6"), ("1e-6", 1, "1e-6"), ("0.3", "1.5", "0.1"), ("2", 1, "1e-6"), ("1e-6", 10, "1e-300")])
def test_rounds_homogeneous_brackets(e0, et, dp):
    """k rounds admitted: f(k eps0^2) <= eps < f((k+1) eps0^2), checked at 100 digits."""
    k = W.filter_rounds_homogeneous(e0, 0, et, dp, 0)
    c = hp()
    e0v, L, etv = c.mpf(e0), -c.log(c.mpf(dp)), c.mpf(et)
    f = lambda n: c.sqrt(2 * L * n * e0v**2) + n * e0v**2 / 2
    assert f(k) <= etv < f(k + 1)


def test_rounds_homogeneous_delta_budget():
    assert W.filter_rounds_homogeneous("0.01", "1e-9", 1, "1e-6", "1e-7") == 100


@given(st.fractions(min_value=F(1, 10**4), max_value=100), dp_st)
def test_zcdp_to_dp_is_optimised_renyi_conversion(r, dp):
    """Second route: minimise rho*alpha + L/(alpha-1) over alpha > 1 numerically."""
    c = hp(60)
    rr, L = c.mpf(r.numerator) / r.denominator, -c.log(c.mpf(dp.numerator) / dp.denominator)
    a = c.findroot(lambda a: rr - L / (a - 1) ** 2, 1 + c.sqrt(L / rr) * 1.1)
    best = rr * a + L / (a - 1)
    got = W.zcdp_to_dp_eps(r, dp)
    assert got >= best - mpmath.mpf(10) ** -45 * best
    assert rel(got, best) < mpmath.mpf(10) ** -40


def test_dp_filter_via_zcdp_route_matches_the_dp_filter():
    """whitehouse2023 Thm 2 via Thm 1 + Lemma 1: rho = V/2 gives eps = f(V), and the delta is <= delta' + delta''."""
    for v in (F(1, 1000), F(1, 3), F(7)):
        assert abs(W.zcdp_to_dp_eps(v / 2, "1e-6") - W.filter_spent(v, "1e-6")) < mpmath.mpf(10) ** -45
    assert W.dp_filter_delta_via_zcdp("1e-6", "1e-7") <= mpmath.mpf("1.1e-6")


def test_mixed_filter_equals_dp_filter_with_eps_sqrt_2rho():
    # zcdp rho = eps^2/2 behaves as a DP step of eps with delta 0
    assert W.mixed_filter_stop_index("zcdp:0.005,zcdp:0.005,zcdp:0.005,zcdp:0.005", 1, "1e-6", 0) == \
        W.filter_stop_index([0.1] * 4, [0] * 4, 1, "1e-6", 0)


def test_zcdp_filter_stop_index():
    assert W.zcdp_filter_stop_index([F(1, 10)] * 6, [0] * 6, F(1, 2), 0) == 5
    assert W.zcdp_filter_stop_index([F(1, 10)] * 3, ["1e-7"] * 3, 1, "2e-7") == 2


def test_linear_boundary_and_crossing():
    assert W.linear_boundary(2, 4, 3) == 5
    a, b = W.lemma2_a(1, "1e-6"), W.lemma2_b(1, "1e-6")
    p = W.linear_boundary_crossing_probability(mpf_to_fraction(a), mpf_to_fraction(b))
    assert abs(p - mpmath.mpf("1e-6")) < mpmath.mpf(10) ** -50


def test_conversions_pdp():
    """One name, one meaning: dp_to_pdp_delta is the corrected (sharp) conversion in both paper modules."""
    from reference.bounds import rogers2016 as R
    assert W.dp_to_pdp_eps(1) == 2
    assert W.dp_to_pdp_delta_corrected is W.dp_to_pdp_delta
    for e in ("0.001", "0.01", "0.46", "0.47", "5"):
        # the sharp two-tailed value exceeds the printed one for EVERY eps > 0 (errata W22-LEM1-DP-TO-PDP)
        assert W.dp_to_pdp_delta(e, "0.01") > W.dp_to_pdp_delta_as_printed(e, "0.01")
        assert W.dp_to_pdp_delta(e, "0.01") == R.dp_to_pdp_delta(e, "0.01")
        # one tail alone overtakes the printed total only past eps ~ 0.468
        tail = mpmath.mpf("0.01") / (1 - mpmath.exp(-mpmath.mpf(e)))
        assert (tail > W.dp_to_pdp_delta_as_printed(e, "0.01")) is (mpmath.mpf(e) > mpmath.mpf("0.469"))
        assert W.dp_to_pdp_delta(e, "0.01") >= tail


def test_rogers_quoted_versions_differ_and_are_finite():
    a = W.rogers_odometer_quoted_2022_as_printed("0.5", "1e-6", 10**4)
    b = W.rogers_odometer_quoted_2023_as_printed("0.5", "1e-6", 10**4)
    assert a != b and mpmath.isfinite(a) and mpmath.isfinite(b)
    with pytest.raises(ValueError, match="delta_prime"):
        W.rogers_odometer_quoted_2023_as_printed("0.5", "0.37", 100)  # 0.37 > 1/e
    assert mpmath.isfinite(W.rogers_odometer_quoted_2023_as_printed("0.5", "0.36787944117144", 100))


@pytest.mark.parametrize("call", [
    lambda: W.mixture_odometer("1e12", 1, "1e-300"),
    lambda: W.stitched_odometer("1e12", "1e-12", "1e-300"),
    lambda: W.advanced_composition_eps([1000, 1000], "1e-300"),
    lambda: W.filter_odometer("1e12", 1000, "1e-300"),
    lambda: W.rr_hockey_stick(1000, 0, 999),
    lambda: W.dp_to_pdp_delta_corrected(1000, "1e-300"),
])
def test_extreme_inputs_are_finite(call):
    v = call()
    assert mpmath.isfinite(v) and v >= 0


def test_stitched_infinite_before_v0():
    assert W.stitched_odometer("0.001", "0.01", "1e-6") == mpmath.inf
