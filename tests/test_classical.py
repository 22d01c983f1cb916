"""Classical baselines (reference.bounds.classical), each against an independent second route.

Second routes used here: naive high-precision sums of the printed formulas, exact
enumeration of the k-fold product distribution, brute-force enumeration of the 2^k sign
patterns (no lattice merging), mpmath.quad of the Renyi integral, two-point sums,
closed forms (rho + 2 sqrt(rho L)), root finding on derivatives.  Orderings between
bounds (optimal <= RDP-derived <= standard; optimal <= advanced <= DRV) are asserted over
hypothesis-generated parameters.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, settings, strategies as st

from reference.bounds import classical as C
from reference.bounds import whitehouse2023 as W
from reference.catalog import get
from reference.precision import mpf_to_fraction

from second_route import hp as _hp  # noqa: E402  (tests/ is on sys.path)
from second_route import q2m, rel  # noqa: E402

TIGHT = mpmath.mpf(10) ** -45


def hp(dps=200):
    return _hp(dps)








def fr(x) -> F:
    return mpf_to_fraction(x)


# ---------------------------------------------------------------------------
# second routes for KOV
# ---------------------------------------------------------------------------

def kov_naive(eps0, d0, k, eps, dps=200):
    """The printed hockey-stick sum, term by term, at 200 digits (cancellation absorbed by the precision)."""
    c = hp(dps)
    e0, e, dd = q2m(c, eps0), q2m(c, eps), q2m(c, d0)
    s = c.fsum(math.comb(k, l) * max(0, c.exp((k - l) * e0) - c.exp(e + l * e0)) for l in range(k + 1))
    return combine(c, dd, k, s / (1 + c.exp(e0)) ** k)


def combine(c, dd, k, drr):
    """1 - (1-d0)^k (1 - drr) written as D0 + (1 - D0) drr, D0 = -expm1(k log1p(-d0)) (no cancellation)."""
    D0 = -c.expm1(k * c.log1p(-dd))
    return D0 + (1 - D0) * drr


def kov_printed_delta_i(eps0, d0, k, i, dps=200):
    """Theorem 3.3 of KOV15 exactly as printed: delta_i = sum_{l<i} C(k,l)(e^{(k-l)e} - e^{(k-2i+l)e})/(1+e^e)^k."""
    c = hp(dps)
    e0, dd = q2m(c, eps0), q2m(c, d0)
    di = c.fsum(math.comb(k, l) * (c.exp((k - l) * e0) - c.exp((k - 2 * i + l) * e0)) for l in range(i)) / (1 + c.exp(e0)) ** k
    return combine(c, dd, k, di)


def product_hockey_stick(eps0, d0, k, eps, dps=80):
    """Exact enumeration of the k-fold product of the 4-output (eps0, delta0)-RR law (whitehouse2023 Def. 6).

    sum over all output tuples of max(0, P(tuple) - e^eps Q(tuple)); no binomial grouping.
    """
    P = W.rr_output_distribution(eps0, d0, 1, dps=dps)
    Q = W.rr_output_distribution(eps0, d0, 0, dps=dps)
    outs = [o for o in (0, 1, "top", "bot") if P[o] or Q[o]]
    c = hp(dps)
    w = c.exp(q2m(c, eps))
    total = c.mpf(0)
    for tup in itertools.product(outs, repeat=k):
        p = c.mpf(1)
        q = c.mpf(1)
        for o in tup:
            p *= P[o]
            q *= Q[o]
        total += max(0, p - w * q)
    return total


def brute_force_hetero(es, ds, eps, dps=120):
    """2^k sign patterns of prod (eps_i, delta_i)-RR, no merging of equal losses."""
    c = hp(dps)
    e = q2m(c, eps)
    Z = 1
    for x in es:
        Z *= 1 + c.exp(q2m(c, x))
    H = c.mpf(0)
    for signs in itertools.product((1, -1), repeat=len(es)):
        plus = sum((q2m(c, x) for x, s in zip(es, signs) if s == 1), c.mpf(0))
        minus = sum((q2m(c, x) for x, s in zip(es, signs) if s == -1), c.mpf(0))
        H += max(0, c.exp(plus) - c.exp(e + minus)) / Z
    D0 = -c.expm1(c.fsum(c.log1p(-q2m(c, x)) for x in ds))
    return D0 + (1 - D0) * H


eps0_st = st.fractions(min_value=F(1, 1000), max_value=5, max_denominator=1000)
d0_st = st.sampled_from([F(0), F(0), F(1, 10 ** 9), F(1, 7), F(1, 10 ** 300)])


# ---------------------------------------------------------------------------
# KOV15 Theorem 3.3: delta(eps)
# ---------------------------------------------------------------------------

@given(eps0_st, d0_st, st.integers(1, 60), st.fractions(min_value=0, max_value=40, max_denominator=997))
@example(F(1, 10), F(0), 10, F(1, 2))
@example(F(5), F(0), 1, F(5) - F(1, 10 ** 40))  # just below the only breakpoint: x_L tiny
@example(F(1, 1000), F(1, 7), 60, F(0))
def test_kov_delta_vs_naive_sum(eps0, d0, k, eps):
    """delta(eps) = 1 - (1-d0)^k (1 - (1+e^e0)^-k sum_l C(k,l) max(0, e^{(k-l)e0} - e^eps e^{l e0}))."""
    got = C.kov_delta(eps0, d0, k, eps)
    ref = kov_naive(eps0, d0, k, eps)
    assert got >= ref - abs(ref) * mpmath.mpf(10) ** -150  # an upper bound, checked at 200 digits
    assert rel(got, ref) < TIGHT or abs(got - ref) < mpmath.mpf(10) ** -300


@pytest.mark.parametrize("k", [1, 2, 5, 12])
@pytest.mark.parametrize("eps0", [F(1, 10), F(3, 2)])
def test_kov_delta_vs_product_enumeration_pure(k, eps0):
    """Second route: all 2^k output sequences of (eps0, 0)-RR, at several eps including the breakpoints."""
    for eps in sorted({F(0), eps0 / 3, (k - 2) * eps0 if k >= 2 else F(0), k * eps0 / 2, k * eps0 - F(1, 100)}):
        if eps < 0:
            continue
        enum = product_hockey_stick(eps0, 0, k, eps)
        got = C.kov_delta(eps0, 0, k, eps)
        assert got >= enum - mpmath.mpf(10) ** -70
        assert rel(got, enum) < TIGHT


@pytest.mark.parametrize("k,eps0,d0,eps", [(3, F(1, 2), F(1, 100), F(1, 3)), (5, F(1, 5), F(1, 10 ** 6), F(0)),
                                           (6, F(2), F(1, 3), F(3))])
def test_kov_delta_vs_product_enumeration_with_delta0(k, eps0, d0, eps):
    """Second route: all 4^k output tuples of the 4-output (eps0, delta0)-RR law (whitehouse2023 Def. 6)."""
    enum = product_hockey_stick(eps0, d0, k, eps)
    got = C.kov_delta(eps0, d0, k, eps)
    assert got >= enum - mpmath.mpf(10) ** -70
    assert rel(got, enum) < TIGHT


@given(eps0_st, d0_st, st.integers(1, 40), st.data())
def test_printed_theorem_3_3_breakpoints(eps0, d0, k, data):
    """At eps = (k-2i) eps0 the hockey-stick form equals the printed 1 - (1-d0)^k (1 - delta_i)."""
    i = data.draw(st.integers(0, k // 2))
    got = C.kov_delta_i(eps0, d0, k, i)
    ref = kov_printed_delta_i(eps0, d0, k, i)
    assert got >= ref - abs(ref) * mpmath.mpf(10) ** -150
    assert rel(got, ref) < TIGHT or abs(got - ref) < mpmath.mpf(10) ** -300


@given(st.integers(1, 9), st.sampled_from([F(1, 10), F(1), F(7, 3)]), st.sampled_from([F(0), F(1, 1000)]),
       st.fractions(min_value=0, max_value=10, max_denominator=50))
def test_kov_delta_equals_hetero_with_equal_eps(k, eps0, d0, eps):
    """Second route: the lattice enumeration of the heterogeneous code with all eps_i = eps0."""
    a = C.kov_delta(eps0, d0, k, eps)
    b = C.hetero_optimal_delta([eps0] * k, [d0] * k, eps)
    assert rel(a, b) < TIGHT or abs(a - b) < mpmath.mpf(10) ** -300


def test_kov_delta_precision_ladder():
    """The same input at 30, 50, 80 digits agrees, and each value is an upper bound of the next."""
    vals = [C.kov_delta("0.05", "1e-9", 2000, "3", dps=d) for d in (30, 50, 80)]
    assert vals[0] >= vals[2] and vals[1] >= vals[2]
    assert rel(vals[0], vals[2]) < mpmath.mpf(10) ** -29
    assert rel(vals[1], vals[2]) < mpmath.mpf(10) ** -49


# ---------------------------------------------------------------------------
# KOV15 Theorem 3.3 inverse: eps(delta)
# ---------------------------------------------------------------------------

def assert_valid_eps(eps0, d0, k, delta, e):
    """The checker: (e, delta) is certified for the k-fold composition iff the certified upper delta(e) <= delta."""
    return fr(C.kov_delta(eps0, d0, k, fr(e), dps=60)) <= F(delta)


@given(eps0_st, st.sampled_from([F(0), F(1, 10 ** 9)]), st.integers(1, 300),
       st.sampled_from([F(1, 10), F(1, 10 ** 6), F(1, 10 ** 12), F(1, 10 ** 300)]))
@example(F(1, 10), F(0), 10, F(1, 10 ** 6))
@example(F(1, 1000), F(0), 300, F(1, 10))
def test_kov_eps_round_trip(eps0, d0, k, delta):
    """delta(eps(delta)) <= delta (exactly, in rationals), and eps(delta) is tight to ~10^-45."""
    e = C.kov_eps(eps0, d0, k, delta)
    if e == mpmath.inf:
        assert 1 - (1 - d0) ** k > delta
        return
    assert 0 <= fr(e) <= k * eps0 + F(1, 10 ** 40)
    assert assert_valid_eps(eps0, d0, k, delta, e)
    if e > mpmath.mpf(10) ** -30:
        smaller = e * (1 - mpmath.mpf(10) ** -45)
        if fr(smaller) < k * eps0 - F(1, 10 ** 40):
            assert not assert_valid_eps(eps0, d0, k, delta, smaller)


def test_kov_eps_negative_control():
    """The validity checker must reject a deliberately broken (slightly too small) epsilon."""
    e = C.kov_eps("0.1", 0, 100, "1e-6")
    assert assert_valid_eps(F(1, 10), 0, 100, F(1, 10 ** 6), e)
    assert not assert_valid_eps(F(1, 10), 0, 100, F(1, 10 ** 6), e - mpmath.mpf(10) ** -10)
    broken = C.kov_closed_form_eps("0.1", 100, "1e-6") / 2  # half of a valid bound is not valid here
    assert not assert_valid_eps(F(1, 10), 0, 100, F(1, 10 ** 6), broken)


def test_kov_special_cases():
    # delta below 1 - (1-delta0)^k: impossible; equal to it: eps = k eps0 exactly
    assert C.kov_eps("0.1", "0.01", 10, "0.05") == mpmath.inf
    assert C.kov_eps("0.5", "0.5", 1, "0.5") == mpmath.mpf("0.5")
    # a large delta is met already at eps = 0
    assert C.kov_eps("0.1", 0, 100, "0.9") == 0
    assert C.kov_delta("0.1", 0, 10, 1) == 0 and C.kov_delta("0.1", 0, 10, 5) == 0
    c = hp()
    d0 = 1 - (1 - c.mpf(10) ** -6) ** 10  # eps >= k eps0: only the delta0 part remains
    got = C.kov_delta("0.1", "1e-6", 10, 5)
    assert got >= d0 * (1 - mpmath.mpf(10) ** -150) and rel(got, d0) < TIGHT


def test_kov_extremes():
    """k = 10^5; delta = 1e-300; eps0 = 1000."""
    e = C.kov_eps("0.01", 0, 10 ** 5, "1e-6")
    assert assert_valid_eps(F(1, 100), 0, 10 ** 5, F(1, 10 ** 6), e)
    assert not assert_valid_eps(F(1, 100), 0, 10 ** 5, F(1, 10 ** 6), e * (1 - mpmath.mpf(10) ** -40))
    # Gaussian approximation of the binomial: eps ~ sqrt(k) eps0 z + k eps0 tanh(eps0/2), far from 1000 (basic)
    assert 15 < e < 25
    e300 = C.kov_eps("0.1", 0, 100, "1e-300")  # eps* = 10 - O(1e-272): rounds up to k eps0
    assert e300 == 10
    big = C.kov_eps("1000", 0, 10, "1e-6")
    assert assert_valid_eps(F(1000), 0, 10, F(1, 10 ** 6), big) and big < 10000
    # delta_rr(k eps0 - 1) ~ 1 - e^-1: second route the naive sum at 5000 digits (e^10000 terms)
    assert rel(C.kov_delta("1000", 0, 10, "9999"), kov_naive(F(1000), F(0), 10, F(9999), dps=5000)) < TIGHT
    assert rel(C.kov_delta("1000", 0, 3, "2999"), kov_naive(F(1000), F(0), 3, F(2999), dps=3000)) < TIGHT


# ---------------------------------------------------------------------------
# Orderings: optimal <= KOV closed form, RDP-derived, advanced <= DRV; optimal <= basic
# ---------------------------------------------------------------------------

@settings(max_examples=15)
@given(st.fractions(min_value=F(1, 100), max_value=2, max_denominator=100), st.integers(1, 150),
       st.sampled_from([F(1, 10 ** 3), F(1, 10 ** 6), F(1, 10 ** 12)]))
@example(F(1, 10), 100, F(1, 10 ** 6))
def test_orderings_homogeneous(eps0, k, dp):
    """optimal <= min(advanced, KOV Thm 3.4, RDP-improved <= RDP-standard, basic); advanced <= DRV."""
    opt = C.kov_eps(eps0, 0, k, dp)
    adv = W.advanced_composition_eps([eps0] * k, dp)
    drv = C.drv_advanced_composition_eps(eps0, k, dp)
    thm34 = C.kov_closed_form_eps(eps0, k, dp)
    imp = C.rr_rdp_to_dp_eps_improved(eps0, k, dp)
    std = C.rr_rdp_to_dp_eps_standard(eps0, k, dp)
    basic = C.basic_composition_eps([eps0] * k)
    assert opt <= adv <= drv
    assert opt <= thm34 <= basic
    assert opt <= imp <= std <= basic
    # the heterogeneous closed form with equal eps coincides with Theorem 3.4
    assert rel(C.kov_hetero_closed_form_eps([eps0] * k, dp), thm34) < TIGHT


def test_advanced_is_not_below_basic_in_general():
    """Documented non-ordering: advanced composition exceeds basic composition for k = 1."""
    assert W.advanced_composition_eps(["0.1"], "1e-6") > C.basic_composition_eps(["0.1"])


def test_basic_and_closed_form_deltas():
    assert fr(C.basic_composition_eps(["0.1", "1/3"])) >= F(1, 10) + F(1, 3)
    assert fr(C.basic_composition_delta(["1e-9", "1e-9"])) >= F(2, 10 ** 9)
    c = hp()
    for d0, k, dt in [(F(1, 10 ** 9), 10 ** 5, F(1, 10 ** 6)), (F(1, 3), 7, F(1, 10)), (F(0), 3, F(1, 10 ** 300))]:
        ref = combine(c, q2m(c, d0), k, q2m(c, dt))
        got = C.kov_closed_form_delta(d0, k, dt)
        assert got >= ref * (1 - mpmath.mpf(10) ** -150) and rel(got, ref) < TIGHT


# ---------------------------------------------------------------------------
# Heterogeneous optimal composition
# ---------------------------------------------------------------------------

het_eps = st.lists(st.fractions(min_value=0, max_value=3, max_denominator=40), min_size=1, max_size=8)


@given(het_eps, st.fractions(min_value=0, max_value=8, max_denominator=30), st.data())
@example([F(1, 10), F(2, 10), F(3, 10)], F(1, 2), None)
def test_hetero_delta_vs_brute_force(es, eps, data):
    """Second route: 2^k sign patterns enumerated without merging equal losses."""
    ds = data.draw(st.lists(st.sampled_from([F(0), F(1, 1000)]), min_size=len(es), max_size=len(es))) if data else [0] * len(es)
    got = C.hetero_optimal_delta(es, ds, eps)
    ref = brute_force_hetero(es, ds, eps)
    assert got >= ref - abs(ref) * mpmath.mpf(10) ** -100
    assert rel(got, ref) < TIGHT or abs(got - ref) < mpmath.mpf(10) ** -300


@settings(max_examples=15)
@given(st.lists(st.fractions(min_value=F(1, 100), max_value=2, max_denominator=1000), min_size=1, max_size=10),
       st.sampled_from([F(1, 10), F(1, 10 ** 6), F(1, 10 ** 30)]))
def test_hetero_eps_round_trip_and_orderings(es, dt):
    e = C.hetero_optimal_eps(es, [0] * len(es), dt)
    assert fr(C.hetero_optimal_delta(es, [0] * len(es), fr(e), dps=60)) <= dt
    if e > mpmath.mpf(10) ** -30 and fr(e) < sum(es) - F(1, 10 ** 30):
        assert fr(C.hetero_optimal_delta(es, [0] * len(es), fr(e * (1 - mpmath.mpf(10) ** -45)), dps=60)) > dt
    assert e <= C.kov_hetero_closed_form_eps(es, dt)
    assert e <= W.advanced_composition_eps(es, dt)
    assert e <= C.basic_composition_eps(es) + mpmath.mpf(10) ** -45


def test_hetero_twenty_distinct_mechanisms_merge():
    """k = 20 with only 4 distinct values: the lattice merges equal losses (121 points instead of 2^20)."""
    es = [F(1, 10), F(1, 5), F(3, 10), F(2, 5)] * 5
    D, counts = C.loss_lattice(es)
    assert sum(counts.values()) == 2 ** 20 and len(counts) <= 121
    e = C.hetero_optimal_eps(es, [0] * 20, "1e-6")
    assert fr(C.hetero_optimal_delta(es, [0] * 20, fr(e))) <= F(1, 10 ** 6)


def test_hetero_bad_inputs():
    with pytest.raises(ValueError, match="delta"):
        C.hetero_optimal_delta(["0.1", "0.2"], ["0"], "0.1")
    with pytest.raises(ValueError, match="eps"):
        C.hetero_optimal_delta(["-0.1"], ["0"], "0.1")
    assert C.hetero_optimal_eps(["0.1"], ["0.01"], "0.001") == mpmath.inf


# ---------------------------------------------------------------------------
# Renyi curves and zCDP
# ---------------------------------------------------------------------------

alpha_st = st.fractions(min_value=F(101, 100), max_value=40, max_denominator=100)


@settings(max_examples=10)
@given(alpha_st, st.sampled_from([F(1, 2), F(1), F(3), F(20)]))
def test_laplace_rdp_vs_quadrature(alpha, b):
    """Second route: D_alpha = log(int p^alpha q^(1-alpha))/(alpha-1) by mpmath.quad, split at the kinks 0 and 1."""
    with mpmath.workdps(40):
        a, bb = mpmath.mpf(alpha.numerator) / alpha.denominator, mpmath.mpf(b.numerator) / b.denominator
        f = lambda x: (mpmath.exp(-abs(x) / bb) / (2 * bb)) ** a * (mpmath.exp(-abs(x - 1) / bb) / (2 * bb)) ** (1 - a)
        ref = mpmath.log(mpmath.quad(f, [-mpmath.inf, 0, 1, mpmath.inf])) / (a - 1)
        assert abs(C.laplace_rdp(alpha, b) - ref) <= mpmath.mpf(10) ** -25 * max(1, abs(ref))


@settings(max_examples=10)
@given(st.fractions(min_value=F(101, 100), max_value=20, max_denominator=100), st.sampled_from([F(1, 2), F(1), F(4)]),
       st.sampled_from([F(1), F(3, 2)]))
def test_gaussian_rdp_vs_quadrature(alpha, sigma, sens):
    """Second route: quadrature of N(0,s^2)^a N(D,s^2)^(1-a), split around its peak x* = (1-a) D."""
    with mpmath.workdps(30):
        a, s, D = (mpmath.mpf(q.numerator) / q.denominator for q in (alpha, sigma, sens))
        pdf = lambda x, m: mpmath.exp(-(x - m) ** 2 / (2 * s * s)) / (s * mpmath.sqrt(2 * mpmath.pi))
        xs = (1 - a) * D
        pts = [-mpmath.inf] + [xs + j * s for j in (-8, -2, 0, 2, 8)] + [mpmath.inf]
        ref = mpmath.log(mpmath.quad(lambda x: pdf(x, 0) ** a * pdf(x, D) ** (1 - a), pts)) / (a - 1)
        assert abs(C.gaussian_rdp(alpha, sigma, sens) - ref) <= mpmath.mpf(10) ** -20 * max(1, abs(ref))


@given(alpha_st, st.fractions(min_value=F(1, 1000), max_value=30, max_denominator=1000))
@example(F(2), F(1000))
def test_rr_rdp_vs_two_point_sum(alpha, eps0):
    """Second route: log(p^a q^(1-a) + q^a p^(1-a))/(a-1) with p = e^eps0/(1+e^eps0), at 200 digits."""
    c = hp(300)
    a, e = q2m(c, alpha), q2m(c, eps0)
    p = 1 / (1 + c.exp(-e))
    q = 1 / (1 + c.exp(e))
    ref = c.log(p ** a * q ** (1 - a) + q ** a * p ** (1 - a)) / (a - 1)
    assert rel(C.rr_rdp(alpha, eps0), ref) < TIGHT


@given(st.fractions(min_value=F(1, 1000), max_value=50, max_denominator=1000))
@example(F(1000))
def test_zcdp_of_rr_and_laplace(eps):
    """rho = sup_a D_a/a is the a -> 1 limit (KL); grid check of D_a/a <= rho; Laplace <= RR <= eps^2/2."""
    rho_rr = C.rr_zcdp_rho(eps)
    rho_lap = C.laplace_zcdp_rho(1 / eps)
    # second route for the limit: D_a/a at a = 1 + 10^-30 (interval-certified curve values)
    a1 = 1 + F(1, 10 ** 30)
    assert rel(C.rr_rdp(a1, eps, dps=80) / a1, rho_rr) < mpmath.mpf(10) ** -25
    assert rel(C.laplace_rdp(a1, 1 / eps, dps=80) / a1, rho_lap) < mpmath.mpf(10) ** -25
    for a in [F(1001, 1000), F(11, 10), F(3, 2), F(2), F(5), F(50), F(10 ** 4)]:
        assert C.rr_rdp(a, eps) / a <= rho_rr * (1 + mpmath.mpf(10) ** -45)
        assert C.laplace_rdp(a, 1 / eps) / a <= rho_lap * (1 + mpmath.mpf(10) ** -45)
    assert rho_lap <= rho_rr <= W.dp_to_zcdp_rho(eps)


def test_zcdp_gaussian():
    for a in [F(3, 2), F(7)]:
        assert rel(C.gaussian_rdp(a, 2, 3) / a, C.gaussian_zcdp_rho(2, 3)) < TIGHT
    assert C.gaussian_zcdp_rho(2, 3) == mpmath.mpf(9) / 8


def test_laplace_sup_not_interior_at_small_eps():
    """Pinned case from the derivation: at eps = 0.001 D_a/a decreases (an apparent interior max is a 15-digit artefact)."""
    vals = [C.laplace_rdp(a, 1000) / a for a in (F(1000001, 1000000), F(101, 100), F(11, 10), F(2))]
    assert all(x > y for x, y in zip(vals, vals[1:]))


# ---------------------------------------------------------------------------
# RDP -> DP conversions
# ---------------------------------------------------------------------------

@given(st.fractions(min_value=F(101, 100), max_value=1000, max_denominator=100),
       st.fractions(min_value=0, max_value=50, max_denominator=100),
       st.sampled_from([F(1, 10), F(1, 10 ** 6), F(1, 10 ** 300)]))
def test_improved_conversion_algebra(alpha, tau, delta):
    """Balle Thm 21 eps-form <= Mironov Prop. 3; CKS Prop. 12 delta-form inverts it (round trip)."""
    imp = C.rdp_to_dp_eps_improved(alpha, tau, delta)
    std = C.rdp_to_dp_eps(alpha, tau, delta)
    assert imp <= std
    c = hp()
    a, t, d = q2m(c, alpha), q2m(c, tau), q2m(c, delta)
    raw = t + c.log((a - 1) / a) - (c.log(d) + c.log(a)) / (a - 1)
    assert imp >= max(raw, 0) and (rel(imp, raw) < TIGHT if raw > 0 else imp == 0)
    if raw > 0:
        back = C.rdp_to_dp_delta_cks(alpha, tau, fr(imp))
        assert back <= delta * (1 + mpmath.mpf(10) ** -40)
        assert rel(back, q2m(c, delta)) < mpmath.mpf(10) ** -40


def F_conv(c, method, curve, a, d):
    if method == "improved":
        return curve(a) + c.log((a - 1) / a) - (c.log(d) + c.log(a)) / (a - 1)
    return curve(a) - c.log(d) / (a - 1)


def _curves(c, kind, par, k):
    if kind == "rr":
        e = q2m(c, par)
        return lambda a: k * c.log((c.exp(a * e) + c.exp(e) * c.exp(-a * e)) / (1 + c.exp(e))) / (a - 1)
    if kind == "laplace":
        e = q2m(c, par)  # the mechanism is Laplace(b = 1/par), i.e. par-DP
        return lambda a: k * c.log(a / (2 * a - 1) * c.exp((a - 1) * e) + (a - 1) / (2 * a - 1) * c.exp(-a * e)) / (a - 1)
    r = q2m(c, par)
    return lambda a: a * r


@settings(max_examples=12)
@given(st.sampled_from(["rr", "laplace", "zcdp"]), st.sampled_from(["improved", "standard"]),
       st.sampled_from([F(1, 100), F(1, 10), F(1, 2), F(2)]), st.integers(1, 300),
       st.sampled_from([F(1, 10 ** 3), F(1, 10 ** 6), F(1, 10 ** 12)]))
def test_optimised_alpha_is_stationary(kind, method, par, k, delta):
    """F(alpha*(1 +- 1e-6)) is not smaller than F(alpha*) beyond 1e-40 relative (F re-implemented here)."""
    if kind == "rr":
        r = C.rr_rdp_to_dp(par, k, delta, method=method)
    elif kind == "laplace":
        r = C.laplace_rdp_to_dp(1 / par, k, delta, method=method)
    else:
        r = C.zcdp_to_dp(par * k, delta, method=method)
    if r.alpha == mpmath.inf or r.eps == 0:
        return
    c = hp(120)
    curve = _curves(c, kind, par if kind != "zcdp" else par * k, k)
    a = c.mpf(r.alpha)
    d = q2m(c, delta)
    f0 = F_conv(c, method, curve, a, d)
    assert r.eps >= f0 - abs(f0) * mpmath.mpf(10) ** -100  # the returned value is an upper bound at alpha*
    assert rel(r.eps, f0) < TIGHT
    for s in (1 + c.mpf(10) ** -6, 1 - c.mpf(10) ** -6):
        if a * s > 1:
            assert F_conv(c, method, curve, a * s, d) >= f0 - abs(f0) * mpmath.mpf(10) ** -40


@given(st.fractions(min_value=F(1, 10 ** 6), max_value=100, max_denominator=10 ** 6),
       st.sampled_from([F(1, 10), F(1, 10 ** 6), F(1, 10 ** 12), F(1, 10 ** 300)]))
@example(F(1, 2), F(1, 10 ** 300))
def test_zcdp_conversions(rho, delta):
    """standard optimum = rho + 2 sqrt(rho L) (whitehouse2023 Lemma 1); improved <= standard;
    improved optimum matches findroot on the derivative (Steinke's cdp_delta condition, eps form)."""
    std = C.zcdp_to_dp(rho, delta, method="standard")
    imp = C.zcdp_to_dp(rho, delta)
    closed = W.zcdp_to_dp_eps(rho, delta)
    assert rel(std.eps, closed) < TIGHT and std.eps >= closed * (1 - mpmath.mpf(10) ** -60)
    c = hp(120)
    r, d = q2m(c, rho), q2m(c, delta)
    L = -c.log(d)
    assert rel(c.mpf(std.alpha), 1 + c.sqrt(L / r)) < mpmath.mpf(10) ** -20
    assert imp.eps <= std.eps
    if imp.eps > 0:
        G = lambda a: a * r + c.log((a - 1) / a) - (c.log(d) + c.log(a)) / (a - 1)
        root = c.findroot(lambda a: c.diff(G, a), c.mpf(imp.alpha))
        assert rel(imp.eps, G(root)) < mpmath.mpf(10) ** -40 and imp.eps >= G(root) * (1 - mpmath.mpf(10) ** -60)


def test_gaussian_conversion_equals_zcdp_route():
    a = C.gaussian_rdp_to_dp_eps_improved(2, 1, 50, "1e-6")
    b = C.zcdp_to_dp_eps_improved(F(50, 8), "1e-6")
    assert a == b
    assert C.gaussian_rdp_to_dp_eps_standard(2, 1, 50, "1e-6") == C.zcdp_to_dp_eps_standard(F(50, 8), "1e-6")


def test_single_rr_conversion_is_tight_at_large_alpha():
    """For one eps0-RR the improved conversion at alpha ~ 1/delta matches the exact optimum (KOV, k=1) to 40+ digits,
    and never goes below it."""
    opt = C.kov_eps(1, 0, 1, "1e-6")
    conv = C.rr_rdp_to_dp(1, 1, "1e-6")
    assert conv.eps >= opt and rel(conv.eps, opt) < mpmath.mpf(10) ** -40


def test_conversion_extremes():
    r = C.zcdp_to_dp("1e-300", "1e-300", method="standard")
    assert rel(r.eps, W.zcdp_to_dp_eps("1e-300", "1e-300")) < TIGHT  # alpha* ~ 1e151
    assert C.rr_rdp_to_dp("1e3", 3, "1e-300").eps == 3000  # pure-DP bound wins
    assert C.rr_rdp_to_dp("1e-8", 3, "1e-6").eps == 0  # improved bound negative: clipped
    assert C.rr_rdp("2", "1e3") > 999 and C.rr_zcdp_rho("1e3") == 1000
    assert C.zcdp_to_dp(0, "1e-6").eps == 0


# ---------------------------------------------------------------------------
# Bad inputs name the parameter
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("call,name", [
    (lambda: C.kov_delta(-1, 0, 10, 1), "eps0"),
    (lambda: C.kov_delta("0.1", 1, 10, 1), "delta0"),
    (lambda: C.kov_delta("0.1", 0, 0, 1), "k"),
    (lambda: C.kov_delta("0.1", 0, "2.5", 1), "k"),
    (lambda: C.kov_delta("0.1", 0, 10 ** 8, 1), "k"),
    (lambda: C.kov_delta("0.1", 0, 10, -1), "eps"),
    (lambda: C.kov_eps("0.1", 0, 10, 0), "delta"),
    (lambda: C.kov_eps("0.1", 0, 10, 1), "delta"),
    (lambda: C.kov_delta_i("0.1", 0, 10, 6), "i"),
    (lambda: C.kov_closed_form_eps("0.1", 10, 0), "delta_tilde"),
    (lambda: C.rr_rdp(1, "0.1"), "alpha"),
    (lambda: C.laplace_rdp(2, 0), "b"),
    (lambda: C.rr_rdp_to_dp("0.1", 10, "1e-6", method="bogus"), "method"),
    (lambda: C.zcdp_to_dp(-1, "1e-6"), "rho"),
    (lambda: C.rdp_to_dp_eps_improved(2, 1, "nan"), "delta"),
    (lambda: C.rdp_to_dp_delta_cks(2, 1, -1), "eps"),
    (lambda: C.drv_advanced_composition_eps("0.1", 10, 1), "delta_hat"),
])
def test_bad_inputs_raise_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_catalog_entries_registered():
    for id_ in ["kairouz2015_thm3_3_delta", "kairouz2015_thm3_3_eps", "kairouz2015_thm3_3_delta_i",
                "kairouz2015_thm3_4_eps", "kairouz2015_thm3_4_delta", "kairouz2015_thm3_5_eps",
                "murtagh2016_hetero_optimal_delta", "murtagh2016_hetero_optimal_eps", "rogers2016_thm2_9_eps",
                "rogers2016_thm2_9_delta", "rogers2016_thm2_10_eps", "balle2020hyp_thm21_eps",
                "canonne2020_prop12_eps", "canonne2020_prop12_delta", "canonne2020_prop12_opt_zcdp",
                "mironov2017_table2_rr_rdp", "mironov2017_table2_laplace_rdp", "bunsteinke2016_rr_zcdp_rho",
                "bunsteinke2016_laplace_zcdp_rho", "bunsteinke2016_gaussian_zcdp_rho",
                "balle2020hyp_thm21_opt_rr", "balle2020hyp_thm21_opt_laplace", "balle2020hyp_thm21_opt_gaussian",
                "balle2020hyp_thm21_opt_zcdp", "mironov2017_prop3_opt_rr", "mironov2017_prop3_opt_laplace",
                "mironov2017_prop3_opt_gaussian", "mironov2017_prop3_opt_zcdp"]:
        e = get(id_)
        kwargs = {p.name: p.default for p in e.params}
        assert e.func(**kwargs) >= 0
