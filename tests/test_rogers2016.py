"""Rogers, Roth, Ullman, Vadhan (rogers2016): closed forms and stateful objects, each against a second route.

Second routes used here: SymPy identities (Definition 2.6 relabelling), exact rational
enumeration of finite laws (Lemma 2.3), the exact binomial law of k-fold randomized response
(Theorems 2.10 and 4.3), naive 120-digit re-evaluations in a private mpmath context,
brute-force path enumeration (Lemma 6.3), and the composition of the paper's own lemmas
(Theorem 4.3 = Lemma 4.1 + 4.2, Theorem 5.1 = Lemma 6.4 at one beta, Theorem 6.5 = Lemma 6.4 on
the beta grid).
"""
from __future__ import annotations

import itertools
import json
import math
import threading
from fractions import Fraction as F

import mpmath
import pytest
import sympy as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st
from mpmath.ctx_mp import MPContext

from reference import report as rpt
from reference.bounds import rogers2016 as R
from reference.bounds import whitehouse2023 as W
from reference.catalog import CATALOG
from reference.accountants.whitehouse2023 import BudgetExceeded
from reference.precision import mpf_to_fraction
from reference.accountants.rogers2016 import (
    AdvancedFilter,
    AdvancedFilterAsPrinted,
    AdvancedOdometer,
    AdvancedOdometerAsPrinted,
    BasicFilter,
    BasicOdometer,
    Lemma35Filter,
    Lemma35Odometer,
    Lemma64Odometer,
)

from second_route import hp as _hp  # noqa: E402  (tests/ is on sys.path)
from second_route import q2m, rel  # noqa: E402

TIGHT = mpmath.mpf(10) ** -45


def hp(dps=120):
    return _hp(dps)








def frac(x) -> F:
    return mpf_to_fraction(x)


# ===========================================================================
# Definition 2.6
# ===========================================================================

def test_rr_relabelling_is_the_same_mechanism_exactly():
    """Definition 2.6 (rogers2016) = Definition 6 (whitehouse2022) up to the relabelling, as SymPy identities in eps, delta."""
    e, d = sp.symbols("eps delta", nonnegative=True)
    s = sp.exp(e) / (1 + sp.exp(e))
    # Whitehouse et al. Definition 6, written from its statement: b w.p. (1-d) e^e/(1+e^e), 1-b w.p. (1-d)/(1+e^e),
    # top w.p. d if b = 1, bot w.p. d if b = 0.
    whitehouse = {b: {b: (1 - d) * s, 1 - b: (1 - d) / (1 + sp.exp(e)), "top": d if b == 1 else 0,
                      "bot": d if b == 0 else 0} for b in (0, 1)}
    for b in (0, 1):
        rogers = {0: d if b == 0 else 0, "top": (1 - d) * (s if b == 0 else 1 - s),
                  "bot": (1 - d) * (1 - s if b == 0 else s), 1: d if b == 1 else 0}
        assert set(map(R.to_whitehouse_label, rogers)) == set(whitehouse[b])
        for z, pz in rogers.items():
            assert sp.simplify(pz - whitehouse[b][R.to_whitehouse_label(z)]) == 0
        # the identity labelling is NOT a relabelling of the same mechanism
        assert sp.simplify(rogers[0] - whitehouse[b][0]) != 0


@given(st.fractions(min_value=0, max_value=30), st.fractions(min_value=0, max_value=1), st.sampled_from([0, 1]))
@example(F(0), F(0), 0)
@example(F(1000), F(1, 10**300), 1)
def test_rr_law_matches_whitehouse_numerically_and_the_affine_form(e, d, b):
    """Certified values of both modules agree (within 2 ulp at 60 digits) after relabelling; the affine form reproduces them."""
    mine = R.rr_output_distribution(e, d, b, dps=60)
    theirs = W.rr_output_distribution(e, d, b, dps=60)
    assert set(R.relabel_to_whitehouse(mine)) == set(theirs)
    c = hp(100)
    sgm = 1 / (1 + c.exp(-q2m(c, e)))
    for z, p in mine.items():
        assert abs(p - theirs[R.to_whitehouse_label(z)]) <= mpmath.mpf(10) ** -58
        a0, a1 = R.rr_output_law_affine(e, d, b)[z]
        assert abs(p - (q2m(c, a0) + q2m(c, a1) * sgm)) <= mpmath.mpf(10) ** -58
    assert abs(sum(mine.values()) - 1) <= mpmath.mpf(10) ** -57


@given(st.fractions(min_value=0, max_value=20), st.sampled_from([F(0), F(1, 10**6), F(1, 2)]))
def test_rr_privacy_loss_distribution(e, d):
    """Loss law equals Whitehouse et al.'s; its finite mean is (1-delta) eps tanh(eps/2) (whitehouse2022 Lemma 6, tight case)."""
    mine = R.rr_privacy_loss_distribution(e, d, 0, dps=60)
    assert mine == R.rr_privacy_loss_distribution(e, d, 1, dps=60)
    theirs = W.rr_privacy_loss_distribution(e, d, dps=60)
    assert set(mine) == set(theirs) and all(abs(mine[k] - theirs[k]) <= mpmath.mpf(10) ** -58 for k in mine)
    finite = sum(l * p for l, p in mine.items() if mpmath.isfinite(l))
    assert abs(finite - (1 - mpmath.mpf(d.numerator) / d.denominator) * W.rr_expected_loss(e, dps=60)) <= mpmath.mpf(10) ** -55


def test_relabel_rejects_unknown_labels():
    with pytest.raises(ValueError, match="z must be"):
        R.to_whitehouse_label("x")
    with pytest.raises(ValueError, match="w must be"):
        R.to_rogers_label(2)
    assert all(R.to_rogers_label(R.to_whitehouse_label(z)) == z for z in R.RR_OUTPUTS)


# ===========================================================================
# Lemma 2.3
# ===========================================================================

law_st = st.lists(st.integers(min_value=0, max_value=40), min_size=3, max_size=5).filter(lambda v: sum(v) > 0)


def _law(v):
    s = sum(v)
    return {i: F(x, s) for i, x in enumerate(v)}


@given(law_st, law_st, st.fractions(min_value=0, max_value=3))
@settings(max_examples=40)
def test_lemma2_3_pointwise_implies_dp_exactly(a, b, e):
    """First claim: with delta = exact point-wise bad mass at eps, the laws are (eps, delta)-DP (decided exactly)."""
    n = min(len(a), len(b))
    P, Q = _law(a[:n]), _law(b[:n])
    if sum(P.values()) != 1 or sum(Q.values()) != 1:
        return
    delta = R.pointwise_bad_mass(P, Q, e)
    assert R.is_dp(P, Q, e, delta)
    assert e == 0 or rel(R.pdp_to_dp_eps(e), mpmath.mpf(e.numerator) / e.denominator) < TIGHT
    assert frac(R.pdp_to_dp_delta(delta, dps=60)) == delta or delta.denominator & (delta.denominator - 1)


@given(law_st, law_st, st.fractions(min_value=F(1, 20), max_value=3))
@settings(max_examples=40)
def test_lemma2_3_corrected_dp_to_pointwise_exactly(a, b, e):
    """Corrected second claim: if (eps, delta)-DP then point-wise bad mass at 2 eps <= delta (e^2eps + 1)/(e^eps (e^eps - 1))."""
    n = min(len(a), len(b))
    P, Q = _law(a[:n]), _law(b[:n])
    # a rational delta >= the tight DP delta: sum_a (P - e^eps Q)_+ over both directions, rounded up at 40 digits
    c = hp(60)
    E = c.exp(q2m(c, e))
    tight = max(sum(max(0, q2m(c, X[i]) - E * q2m(c, Y[i])) for i in X) for X, Y in ((P, Q), (Q, P)))
    delta = F(int(c.ceil(tight * 10**40)) + 1, 10**40)
    assert R.is_dp(P, Q, e, min(delta, F(1)))
    bad = R.pointwise_bad_mass(P, Q, 2 * e)
    assert bad <= frac(R.dp_to_pdp_delta(e, min(delta, F(1))))


def _two_point_counterexample(e: F, delta: F):
    """An exact (eps, delta)-DP pair with P(L > 2 eps) close to delta/(1 - e^-eps) > 2 delta/e^eps."""
    c = hp(60)
    pmax = q2m(c, delta) / (1 - c.exp(-q2m(c, e)))
    p = F(int(pmax * 10**12) * 99, 10**14)  # 0.99 * bound, rational
    lo, hi = (p - delta) * F(1), p
    # q in [(p - delta) e^-eps, p e^-2eps): take the midpoint, rounded to a rational
    qlo = q2m(c, p - delta) * c.exp(-q2m(c, e))
    qhi = q2m(c, p) * c.exp(-2 * q2m(c, e))
    q = F(int((qlo + qhi) / 2 * 10**20), 10**20)
    return {"A": p, "B": 1 - p}, {"A": q, "B": 1 - q}


@pytest.mark.parametrize("e", [F(1, 100), F(1, 10), F(1, 2), F(1), F(3)])
def test_lemma2_3_as_printed_is_false_for_every_eps(e):
    """Printed 2 delta/e^eps: an exact (eps, delta)-DP pair has point-wise bad mass above it (errata R16-LEM2-3-PDP)."""
    delta = F(1, 10**4)
    P, Q = _two_point_counterexample(e, delta)
    assert R.is_dp(P, Q, e, delta)
    bad = R.pointwise_bad_mass(P, Q, 2 * e)
    assert bad > frac(R.dp_to_pdp_delta_as_printed(e, delta))
    assert bad <= frac(R.dp_to_pdp_delta(e, delta))


# ===========================================================================
# Theorems 2.9 and 2.10
# ===========================================================================

def _rr_kfold_hockey(e: F, d: F, k: int, eg, c):
    """Optimal delta of k-fold RR_{e,d} composition at eps_g (binomial law; independent of reference)."""
    E = q2m(c, e)
    s = c.exp(E) / (1 + c.exp(E))
    dd = q2m(c, d)
    h = c.mpf(0)
    for j in range(k + 1):
        L = (2 * j - k) * E
        if L > eg:
            h += c.binomial(k, j) * s**j * (1 - s) ** (k - j) * (1 - c.exp(eg - L))
    return 1 - (1 - dd) ** k + (1 - dd) ** k * h


@given(st.fractions(min_value=F(1, 1000), max_value=1), st.integers(min_value=1, max_value=150),
       st.sampled_from([F(0), F(1, 10**6)]), st.sampled_from([F(1, 10), F(1, 10**6), F(1, 10**12)]))
@example(F(1, 100), 100, F(0), F(1, 10**6))
def test_thm2_10_against_exact_optimal_composition(e, k, d, dh):
    """Theorem 2.10: the optimal delta of k-fold RR_{eps,delta} at eps_g(Thm 2.10) is <= k delta + delta_hat (KOV worst case)."""
    c = hp(80)
    eg = R.advanced_composition_eps(e, k, dh, dps=30)
    exact = _rr_kfold_hockey(e, d, k, c.mpf(eg), c)
    assert exact <= R.advanced_composition_delta(d, k, dh, dps=30)
    # the printed lower-order term is k eps (e^eps - 1): Theorem 2.10 >= KOV's eq. (2) of whitehouse2022
    assert R.advanced_composition_eps(e, 5, dh) >= W.advanced_composition_eps([e] * 5, dh)


@given(st.integers(min_value=1, max_value=10**6), st.sampled_from([F(1, 10**3), F(1, 10**6), F(1, 10**30)]))
def test_thm2_10_remark_eps_sqrt_8k_log(k, dg):
    """The remark after Theorem 5.1: if k eps^2 <= 1/(8 log(1/delta_g)) then Theorem 2.10 gives <= eps sqrt(8 k log(1/delta_g))."""
    c = hp(60)
    L = -c.log(q2m(c, dg))
    e = F(int(1 / c.sqrt(8 * k * L) * 10**15), 10**15)  # k e^2 <= 1/(8L)
    assert R.advanced_composition_eps(e, k, dg) <= q2m(c, e) * c.sqrt(8 * k * L)


@given(st.lists(st.fractions(min_value=0, max_value=10), min_size=1, max_size=10))
def test_thm2_9_sums(es):
    """Theorem 2.9: the exact rational sums, rounded up (second route: Fraction arithmetic)."""
    got = R.basic_composition_eps(es)
    assert frac(got) >= sum(es) and frac(got) - sum(es) <= sum(es) * F(1, 10**49)
    ds = [min(x / 100, F(99, 100)) for x in es]
    got = R.basic_composition_delta(ds)
    assert frac(got) >= sum(ds) and frac(got) - sum(ds) <= sum(ds) * F(1, 10**49)


# ===========================================================================
# Lemma 3.5 and Theorem 3.6
# ===========================================================================

def test_lemma3_5_combinators_threshold_is_exact():
    odo = R.lemma3_5_odometer(lambda es, *, dps=50: mpmath.mpf(len(es)), "1/1000")
    assert odo([1, 2], [F(1, 2000), F(1, 2000)]) == 2  # sum = delta'_g exactly: finite
    assert odo([1, 2], [F(1, 2000), F(1, 1999)]) == mpmath.inf
    filt = R.lemma3_5_filter(lambda es: sum(es) <= 3, "1/1000")
    assert filt([1, 2], [F(1, 2000)] * 2) == R.CONT
    assert filt([1, 2], [F(1, 2000), F(1, 1999)]) == R.HALT
    assert filt([1, 3], [0, 0]) == R.HALT
    bad = R.lemma3_5_filter(lambda es: "maybe", 0)
    with pytest.raises(TypeError, match="pure_filter"):
        bad([1], [0])
    with pytest.raises(ValueError, match="same length"):
        filt([1, 2], [0])
    with pytest.raises(ValueError, match="delta_prime_g"):
        R.lemma3_5_filter(lambda es: True, -1)


steps_st = st.lists(st.tuples(st.fractions(min_value=0, max_value=1), st.sampled_from([F(0), F(1, 10**7), F(3, 10**7)])),
                    min_size=1, max_size=12)


@given(steps_st, st.fractions(min_value=0, max_value=4), st.sampled_from([F(0), F(1, 10**6), F(1, 10**5)]))
def test_basic_filter_and_odometer_vs_direct_sums(steps, eg, dg):
    """Theorem 3.6: stop index, closed-form decisions, stateful filter and odometer all agree with direct sums."""
    es, ds = [s[0] for s in steps], [s[1] for s in steps]
    direct = next((i for i in range(len(es)) if sum(ds[:i + 1]) > dg or sum(es[:i + 1]) > eg), len(es))
    assert R.basic_filter_stop_index(es, ds, eg, dg) == direct
    for i in range(1, len(es) + 1):
        expect = R.HALT if (sum(ds[:i]) > dg or sum(es[:i]) > eg) else R.CONT
        assert R.basic_filter(es[:i], ds[:i], eg, dg) == expect
    f = BasicFilter(eg, dg)
    n = 0
    for e, d in steps:
        if not f.try_run(e, d):
            break
        n += 1
    assert n == direct and f.eps_sum == sum(es[:n]) and f.delta_spent == sum(ds[:n])
    odo = R.basic_odometer(es, ds, dg, lemma3_5_as_printed=True)  # the printed rule, delta_i > 0 included
    if any(ds):  # errata R16-LEM3-5-LOSS: without the keyword the closed form refuses approximate-DP rounds
        with pytest.raises(ValueError, match="R16-LEM3-5-LOSS"):
            R.basic_odometer(es, ds, dg)
    else:
        assert R.basic_odometer(es, ds, dg) == odo
    if sum(ds) > dg:
        assert odo == mpmath.inf
    else:
        assert sum(es) <= frac(odo) <= sum(es) * (1 + F(1, 10**49))
    o = BasicOdometer(dg)
    for e, d in steps:
        if d > 0:  # errata R16-LEM3-5-LOSS: the loss bound fails for approximate-DP rounds; the object refuses them
            with pytest.raises(ValueError, match="R16-LEM3-5-LOSS"):
                o.record(e, d)
            break
        o.record(e, d)
    else:
        assert o.value() == odo
    # the odometer's value is the least eps_g at which the basic filter admits the whole history
    if sum(ds) <= dg:
        assert R.basic_filter(es, ds, sum(es), dg) == R.CONT
        assert sum(es) == 0 or R.basic_filter(es, ds, sum(es) - F(1, 10**30), dg) == R.HALT


def test_basic_filter_as_printed_reads_delta_prime():
    assert R.basic_filter_as_printed([1], [F(2, 10**6)], 1, F(1, 10**6), F(2, 10**6)) == R.CONT
    assert R.basic_filter([1], [F(2, 10**6)], 1, F(1, 10**6)) == R.HALT


# ===========================================================================
# Section 4
# ===========================================================================

dlt_st = st.sampled_from([F(1, 3), F(1, 10), F(1, 10**6), F(1, 10**300)])


@given(st.fractions(min_value=0, max_value=1000), st.fractions(min_value=F(1, 10**6), max_value=100), dlt_st)
@example(F(0), F(1), F(1, 3))
def test_lemma4_1_is_de_la_pena_corollary_2_2(B2, beta, d):
    """Second route: sqrt((B^2 + y)(1 + log(1 + B^2/y)/2)) * x with x^2 = 2 log(1/delta) (dlPKL Cor. 2.2), 120 digits."""
    c = hp()
    x = c.sqrt(2 * -c.log(q2m(c, d)))
    naive = c.sqrt((q2m(c, B2) + q2m(c, beta)) * (1 + c.log(1 + q2m(c, B2) / q2m(c, beta)) / 2)) * x
    got = R.self_normalized_bound(B2, beta, d)
    assert got >= naive * (1 - mpmath.mpf(10) ** -100) and rel(got, naive) < TIGHT
    # Theorem 4.3 is Lemma 4.1 with B^2 = U^2/4 (Lemma 4.2 supplies condition (8))
    assert R.martingale_bound(4 * B2, beta, d) == R.self_normalized_bound(B2, beta, d)


@pytest.mark.parametrize("fn", [R.self_normalized_bound, R.martingale_bound])
def test_delta_at_most_one_over_e_is_enforced(fn):
    with pytest.raises(ValueError, match=r"delta must lie in \(0, 1/e\]"):
        fn(1, 1, "0.37")
    with pytest.raises(ValueError, match=r"delta must lie in \(0, 1/e\]"):
        fn(1, 1, F(36787944117144233, 10**17))  # just above 1/e
    fn(1, 1, F(36787944117144232, 10**17))  # just below 1/e
    with pytest.raises(ValueError, match="delta"):
        fn(1, 1, 0)


@given(st.fractions(min_value=-20, max_value=20), st.fractions(min_value=F(1, 1000), max_value=5))
@example(F(20), F(5))
def test_lemma4_2_one_step_for_rr_exactly(lam, e):
    """Lemma 4.2, one step for RR_eps: X = Loss - mu in [-eps - mu, eps - mu]; E exp(lambda X) <= exp(lambda^2 (2 eps)^2 / 8)."""
    c = hp(80)
    E, la = q2m(c, e), q2m(c, lam)
    p = 1 / (1 + c.exp(-E))
    mu = E * (2 * p - 1)
    mgf = p * c.exp(la * (E - mu)) + (1 - p) * c.exp(la * (-E - mu))
    assert mgf <= R.hoeffding_mgf_bound(lam, 2 * e, dps=60)


@pytest.mark.parametrize("e, k", [(F(1, 10), 50), (F(1, 2), 20), (F(1, 100), 400)])
@pytest.mark.parametrize("d", [F(1, 10), F(1, 1000)])
def test_thm4_3_against_exact_binomial_martingale(e, k, d):
    """Theorem 4.3 for M_k = sum (Loss_i - mu) of k RR_eps steps: exact P[|M_k| >= bound] <= delta, for several beta."""
    c = hp(60)
    E = q2m(c, e)
    p = 1 / (1 + c.exp(-E))
    mu = E * (2 * p - 1)
    for beta in (k * e * e / 10, k * e * e, 10 * k * e * e):
        b = c.mpf(R.martingale_bound(4 * k * e * e, beta, d, dps=30))
        tail = sum(c.binomial(k, j) * p**j * (1 - p) ** (k - j) for j in range(k + 1)
                   if abs((2 * j - k) * E - k * mu) >= b)
        assert tail <= q2m(c, d)


@given(st.fractions(min_value=0, max_value=30))
def test_lemma4_4_dominates_the_exact_rr_mean(e):
    """Lemma 4.4: eps tanh(eps/2) (exact RR mean, whitehouse2022) <= eps^2/2 <= eps (e^eps - 1)/2."""
    b = R.expected_loss_bound(e)
    assert W.rr_expected_loss(e) <= W.expected_loss_bound(e) <= b


# ===========================================================================
# Theorem 5.1
# ===========================================================================

eps_list = st.lists(st.fractions(min_value=0, max_value=F(1, 2)), min_size=1, max_size=8)
dg_st = st.sampled_from([F(1, 3), F(1, 100), F(1, 10**6), F(1, 10**12)])


def _K_naive(es, eg, dg, const=F(2804, 100), printed=False):
    c = hp()
    V = sum(q2m(c, x) ** 2 for x in es)
    L = -c.log(q2m(c, dg))
    M = sum(q2m(c, x) * (c.exp(q2m(c, x)) - 1) / 2 for x in es)
    beta = q2m(c, eg) ** 2 / (q2m(c, const) * L)
    core = 2 * (V + beta) * (1 + c.log(q2m(c, const) * L * V / q2m(c, eg) ** 2 + 1) / 2)
    l2 = c.log(2 / q2m(c, dg))
    return M + (c.sqrt(core) * l2 if printed else c.sqrt(core * l2))


@given(eps_list, st.fractions(min_value=F(1, 100), max_value=10), dg_st)
@example([F(1000)], F(10), F(1, 10**300))  # extreme eps and delta_g
@example([F(0)], F(1, 100), F(1, 3))  # empty-equivalent history, delta_g near 1/e
def test_thm5_1_K_vs_naive_and_lemma6_4(es, eg, dg):
    """K (derived) and K (printed) against a 120-digit naive evaluation; K = Lemma 6.4 at beta = eps_g^2/(28.04 log(1/delta_g))."""
    K = R.advanced_filter_K(es, eg, dg)
    Kp = R.advanced_filter_K_as_printed(es, eg, dg)
    assert rel(K, _K_naive(es, eg, dg)) < TIGHT and rel(Kp, _K_naive(es, eg, dg, printed=True)) < TIGHT
    c = hp()
    beta = frac(mpmath.mpf(q2m(c, eg) ** 2 / (q2m(c, F(2804, 100)) * -c.log(q2m(c, dg)))))  # 110-digit rational beta
    lem = R.lemma6_4_odometer(es, [0] * len(es), dg, beta)
    assert rel(K, lem) < mpmath.mpf(10) ** -40
    # printed minus sum term = derived minus sum term times sqrt(log(2/delta_g)) > derived: valid but looser
    digits = 60 + int(max(es) * F(44, 100))  # M ~ e^eps: enough digits to subtract it exactly to 10^-50
    with mpmath.workdps(digits + 10):
        M = sum(R.expected_loss_bound(x, dps=digits) for x in es)
        Kd, Kpd = R.advanced_filter_K(es, eg, dg, dps=digits), R.advanced_filter_K_as_printed(es, eg, dg, dps=digits)
        assert rel(Kpd - M, (Kd - M) * mpmath.sqrt(mpmath.log(2 / (mpmath.mpf(dg.numerator) / dg.denominator)))) < mpmath.mpf(10) ** -40
    assert Kp >= K and Kpd > Kd


@given(st.lists(st.fractions(min_value=F(1, 1000), max_value=F(1, 2)), min_size=1, max_size=6), st.fractions(min_value=F(1, 10), max_value=5), dg_st)
def test_thm5_1_K_dominates_advanced_composition(es, eg, dg):
    """Ordering: K >= KOV advanced composition at delta' = delta_g (eq. (2), whitehouse2022) term by term."""
    assert R.advanced_filter_K(es, eg, dg) >= W.advanced_composition_eps(es, dg)


@pytest.mark.parametrize("e0, eg, dg", [("0.01", "1", "1e-6"), ("0.05", "1", "1e-3"), ("0.001", "0.5", "1e-9"),
                                        ("0.1", "2", "0.01"), ("0.3", "1", "0.3")])
def test_thm5_1_filter_admits_at_most_advanced_composition_rounds(e0, eg, dg):
    """The Theorem 5.1 filter admits at most the rounds advanced composition (eq. (2) at delta_g) certifies; printed admits fewer."""
    k = R.advanced_filter_rounds_homogeneous(e0, "0", eg, dg)
    kov = rpt.advcomp_rounds_homogeneous(e0, eg, dg)
    kp = R.advanced_filter_rounds_homogeneous(e0, "0", eg, dg, printed=True)
    assert kp <= k <= kov
    # exactness of the count: k admitted, k + 1 refused, as a length-(k+1) sequence through the stop index
    assert R.advanced_filter_stop_index([e0] * (k + 1), [0] * (k + 1), eg, dg) == k
    assert R.advanced_filter_stop_index_as_printed([e0] * (kp + 1), [0] * (kp + 1), eg, dg) == kp


def test_thm5_1_printed_filter_halts_before_round_one_for_small_delta():
    """Eq. (12) as printed: at delta_g = 1e-6 even eps_1 = 0 is refused, for any eps_g (errata R16-EQ12-LOG)."""
    for eg in ("0.01", "1", "100"):
        assert R.advanced_filter_as_printed([0], [0], eg, "1e-6") == R.HALT
        assert R.advanced_filter([0], [0], eg, "1e-6") == R.CONT
        assert not AdvancedFilterAsPrinted(eg, "1e-6").can_run(0)
    assert R.advanced_filter_as_printed([0], [0], "1", "1e-5") == R.CONT  # above delta* ~ 3.4e-6


def test_thm5_1_delta_budget_is_half():
    assert R.advanced_filter(["0.01"], [F(1, 2 * 10**6)], 1, "1e-6") == R.CONT
    assert R.advanced_filter(["0.01"], [F(1, 2 * 10**6) + F(1, 10**30)], 1, "1e-6") == R.HALT
    with pytest.raises(ValueError, match=r"delta_g must lie in \(0, 1/e\)"):
        R.advanced_filter_K([1], 1, "0.368")


def test_optimal_constant_is_28_04_by_two_routes():
    """c* minimises g(c) = (1 + 8/c)(1 + log(1 + c/8)/2): (i) findroot on g'(c) at 60 digits, (ii) golden-section search."""
    cstar = R.optimal_constant(dps=50)
    c = hp(60)
    g = lambda x: (1 + 8 / x) * (1 + c.log(1 + x / 8) / 2)
    root = c.findroot(lambda x: c.diff(g, x), 28)
    assert abs(cstar - root) < mpmath.mpf(10) ** -40
    a, b = c.mpf(20), c.mpf(40)
    phi = (c.sqrt(5) - 1) / 2
    for _ in range(200):
        x1, x2 = b - phi * (b - a), a + phi * (b - a)
        a, b = (a, x2) if g(x1) < g(x2) else (x1, b)
    assert abs(cstar - a) < mpmath.mpf(10) ** -20
    # "nearly optimal": 28.04 is c* truncated to 4 digits, and g(28.04) exceeds g(c*) by < 1e-9 relative
    assert F(2804, 100) < frac(cstar) < F(28045, 1000)
    assert R.constant_objective("28.04") - R.constant_objective(mpf_to_fraction(cstar)) < R.constant_objective("28.04") * mpmath.mpf(10) ** -9
    # at the optimum 2 g(c*) = u* = 1 + c*/8
    assert rel(2 * g(c.mpf(cstar)), 1 + c.mpf(cstar) / 8) < mpmath.mpf(10) ** -45
    # the objective is what K's square root term is at eps_g = eps sqrt(8 k log(1/delta_g)): check at one point
    e, k, dg = F(1, 100), 50, F(1, 10**6)
    eg = frac(mpmath.mpf(q2m(c, e) * c.sqrt(8 * k * -c.log(q2m(c, dg)))))
    sq = R.advanced_filter_K([e] * k, eg, dg) - sum(R.expected_loss_bound(e, dps=60) for _ in range(k))
    want = q2m(c, e) * c.sqrt(2 * k * g(c.mpf(28.04)) * c.log(2 / q2m(c, dg)))
    assert rel(sq, want) < mpmath.mpf(10) ** -12  # eps_g was rounded to 110 digits; g at the double 28.04


def test_rounds_homogeneous_matches_linear_scan():
    for e0, eg, dg in [("0.1", "1", "0.01"), ("0.05", "0.7", "1e-4")]:
        k = R.advanced_filter_rounds_homogeneous(e0, "0", eg, dg)
        assert R.advanced_filter_stop_index([e0] * (k + 3), [0] * (k + 3), eg, dg) == k
    assert R.advanced_filter_rounds_homogeneous("0.01", "1e-7", "1", "1e-6") == 5
    assert R.advanced_filter_rounds_homogeneous("5", "0", "1", "1e-6") == 0


# ===========================================================================
# Lemma 6.3
# ===========================================================================

def _crossing_brute(g: F, C: F, d: F, n: int) -> F:
    """Enumerate all 2^n sign paths (exact Fractions; thresholds compared at 80 digits)."""
    c = hp(80)
    mu = 2 * g - 1
    sig = c.sqrt(1 - q2m(c, mu) ** 2)
    ell = c.log(c.log(n) / q2m(c, d))
    tot = F(0)
    for signs in itertools.product((1, -1), repeat=n):
        M, pr = F(0), F(1)
        for t, s in enumerate(signs, 1):
            pr *= g if s == 1 else 1 - g
            M += s - mu
        m = F(0)
        for t in range(1, n + 1):
            m += signs[t - 1] - mu
            if q2m(c, m) >= q2m(c, C) * sig * c.sqrt(t * ell):
                tot += pr
                break
    return tot


@pytest.mark.parametrize("g, C, d, n", [(F(1, 2), F(1, 2), F(1, 10), 10), (F(3, 5), F(1), F(1, 4), 11), (F(1, 2), F(1, 3), F(1, 100), 9)])
def test_lemma6_3_exact_dp_equals_path_enumeration(g, C, d, n):
    assert R.crossing_probability_exact(g, C, d, n) == _crossing_brute(g, C, d, n)


@pytest.mark.parametrize("n", [20, 60, 150])
@pytest.mark.parametrize("d", [F(1, 10), F(1, 100)])
def test_lemma6_3_inequality_holds_with_C_one_half(n, d):
    """Lemma 6.3 with C = 1/2, gamma in {1/2, 3/5}: the exact crossing probability is >= delta."""
    for g in (F(1, 2), F(3, 5)):
        assert R.crossing_probability_exact(g, F(1, 2), d, n) >= d


def test_lemma6_3_bad_inputs():
    with pytest.raises(ValueError, match="gamma"):
        R.crossing_probability_exact(F(1, 3), 1, F(1, 10), 10)
    with pytest.raises(ValueError, match="delta"):
        R.crossing_probability_exact(F(1, 2), 1, 1, 2)  # log 2 < 1
    with pytest.raises(ValueError, match="n"):
        R.crossing_probability_exact(F(1, 2), 1, F(1, 10), 1)


# ===========================================================================
# Lemma 6.4 and Theorem 6.5
# ===========================================================================

def _lemma6_4_naive(es, beta, dg):
    c = hp()
    V = sum(q2m(c, x) ** 2 for x in es)
    M = sum(q2m(c, x) * (c.exp(q2m(c, x)) - 1) / 2 for x in es)
    return M + c.sqrt(2 * (V + q2m(c, beta)) * (1 + c.log(V / q2m(c, beta) + 1) / 2) * c.log(2 / q2m(c, dg)))


@given(eps_list, st.fractions(min_value=F(1, 10**6), max_value=10), dg_st)
def test_lemma6_4_vs_naive(es, beta, dg):
    got = R.lemma6_4_odometer(es, [0] * len(es), dg, beta)
    assert rel(got, _lemma6_4_naive(es, beta, dg)) < TIGHT


@given(st.lists(st.fractions(min_value=0, max_value=F(1, 2)), min_size=1, max_size=8), st.integers(min_value=2, max_value=10**6), dg_st)
@example([F(1, 2)] * 5, 3, F(1, 10**6))
@example([F(0)], 4, F(1, 3))
@example([F(1, 2)], 10**6, F(1, 10**300))
def test_thm6_5_is_lemma6_4_on_the_beta_grid(es, n, dg):
    """Theorem 6.5 vs Lemma 6.4: (18) equals Lemma 6.4 at beta = 1/n^2, and (17) dominates Lemma 6.4 at the grid beta, at delta_g/m."""
    V = sum(x * x for x in es)
    grid = R.beta_grid(F(1, n * n))
    m_corr, m_print = len(grid), None
    zeros = [0] * len(es)
    corr = R.advanced_odometer(es, zeros, dg, n)
    printed = R.advanced_odometer_as_printed(es, zeros, dg, n)
    # printed union: log(4 log2 n / delta_g) is Lemma 6.4's log(2/delta') at delta' = delta_g / log2(n^2); use 200 digits
    c = hp(200)
    dprint = frac(mpmath.mpf(q2m(c, dg) / (2 * c.log(n) / c.log(2))))
    if F(1, n * n) <= V <= 1:
        beta = max(b for b in grid if b <= V)
        assert V / beta <= 2
        assert corr >= R.lemma6_4_odometer(es, zeros, dg / m_corr, beta) * (1 - mpmath.mpf(10) ** -45)
        assert printed >= R.lemma6_4_odometer(es, zeros, dprint, beta) * (1 - mpmath.mpf(10) ** -40)
    else:
        assert rel(corr, R.lemma6_4_odometer(es, zeros, dg / m_corr, F(1, n * n))) < mpmath.mpf(10) ** -45
        assert rel(printed, R.lemma6_4_odometer(es, zeros, dprint, F(1, n * n))) < mpmath.mpf(10) ** -40
    # corrected >= printed, equal iff n is a power of 2
    assert corr >= printed
    if n & (n - 1) == 0:
        assert corr == printed
    # both dominate advanced composition at delta_g
    if any(es):
        assert printed >= W.advanced_composition_eps(es, dg)


@pytest.mark.parametrize("fn, args", [
    (R.advanced_filter_K, (["0.01"] * 50 + ["0.3"], "1", "1e-6")),
    (R.advanced_odometer, (["0.01"] * 50, [0] * 50, "1e-6", 1000)),
    (R.advanced_odometer_as_printed, (["0.7"] * 5, [0] * 5, "1e-300", 3)),
    (R.dp_to_pdp_delta, ("1e-3", "1e-6")),
    (R.advanced_composition_eps, ("1000", 10, "1e-300")),
])
def test_precision_ladder(fn, args):
    """The same input at 20, 50, 100 digits: nested upper bounds that agree to the coarser precision."""
    v = [fn(*args, dps=d) for d in (20, 50, 100)]
    assert v[0] >= v[1] >= v[2]
    assert v[0] - v[2] <= v[2] * mpmath.mpf(10) ** -19 and v[1] - v[2] <= v[2] * mpmath.mpf(10) ** -49


def test_thm6_5_granular_and_grid_sizes():
    es, zs = ["0.1"] * 10, [0] * 10
    for n in (2, 3, 7, 16, 1000):
        g = F(1, n * n)
        assert R.advanced_odometer_granular(es, zs, "1e-6", g) == R.advanced_odometer(es, zs, "1e-6", n)
        assert R.advanced_odometer_granular_as_printed(es, zs, "1e-6", g) == R.advanced_odometer_as_printed(es, zs, "1e-6", n)
        grid = R.beta_grid(g)
        assert grid[0] == g and grid[-1] <= 1 <= 2 * grid[-1]
        assert 2 ** (len(grid) - 1) < n * n <= 2 ** len(grid)
    assert R.beta_grid(F(3, 4)) == (F(3, 4),)
    assert R.advanced_odometer_granular(es, zs, "1e-6", F(3, 4)) < mpmath.inf
    with pytest.raises(ValueError, match="gamma"):
        R.advanced_odometer_granular_as_printed(es, zs, "1e-6", F(3, 4))


def test_thm6_5_infinite_past_half_delta():
    """The printed Lemma 3.5 extension (lemma3_5_as_printed=True): finite up to sum delta_i = delta_g/2, inf past it;
    without the keyword any delta_i > 0 is refused (errata R16-LEM3-5-LOSS)."""
    P = {"lemma3_5_as_printed": True}
    assert R.advanced_odometer(["0.1"], [F(1, 2 * 10**6)], "1e-6", 100, **P) < mpmath.inf
    assert R.advanced_odometer(["0.1"], [F(1, 2 * 10**6) + F(1, 10**40)], "1e-6", 100, **P) == mpmath.inf
    assert R.lemma6_4_odometer(["0.1"], [F(1, 10**6)], "1e-6", 1, **P) == mpmath.inf
    for call in (lambda: R.advanced_odometer(["0.1"], [F(1, 10**40)], "1e-6", 100),
                 lambda: R.lemma6_4_odometer(["0.1"], [F(1, 10**6)], "1e-6", 1)):
        with pytest.raises(ValueError, match="R16-LEM3-5-LOSS"):
            call()


@pytest.mark.parametrize("n", [2, 100, 10**4, 10**6])
@pytest.mark.parametrize("dg", ["0.3", "1e-3", "1e-12"])
@pytest.mark.parametrize("e0, k", [("0.01", 100), ("0.1", 50), ("0.5", 3), ("0.3", 100), ("0.001", 1)])
def test_whitehouse_quotes_are_below_eqs_17_18(n, dg, e0, k):
    """whitehouse2023 Lemma 3 (and whitehouse2022 Lemma 4 where V >= 1/n^2) never exceed Rogers et al.'s eqs. (17)/(18).

    Why (17): sqrt(4 V (1 + log sqrt 3) log(4 log2(n)/delta)) >= sqrt(4 V (log(1/delta) + log log n + (1 + log 110)/2))
    because 0.549 (log(1/delta) + log log n) >= 0.134 for delta < 1/e, and sum eps(e^eps - 1)/2 >= V/2.  Why (18): the
    quote has log log(...) where the source has log(...).  So the quotes are *smaller* than the source (errata W22-LEM4-QUOTE):
    not a conservative stand-in for it.
    """
    V = F(e0) ** 2 * k
    src = R.advanced_odometer_as_printed([e0] * k, [0] * k, dg, n, dps=30)
    q23 = W.rogers_odometer_quoted_2023_as_printed(V, dg, n, dps=30)
    assert q23 <= src and q23 != src
    if F(1, n * n) <= V <= 1:
        assert W.rogers_odometer_quoted_2022_as_printed(V, dg, n, dps=30) <= src


@given(st.lists(st.fractions(min_value=F(1, 1000), max_value=F(1, 10)), min_size=1, max_size=30),
       st.sampled_from([10, 1000, 10**6]), st.sampled_from([F(1, 10**3), F(1, 10**6), F(1, 10**12)]))
@settings(max_examples=30)
def test_odometer_value_is_an_admissible_filter_budget_in_the_eq17_regime(es, n, dg):
    """With eps_g = the Theorem 6.5 odometer value (eq. (17) regime, eps_i <= 0.1), the Theorem 5.1 filter admits the history.

    Not a theorem in general; sufficient: r = beta/V with beta = eps_g^2/(28.04 L) satisfies
    (1 + r)(1 + log(1 + 1/r)/2) <= 2 (1 + log sqrt 3) F / log(2/delta_g), which holds in this regime.
    The counterexample below shows it fails in the eq. (18) regime.
    """
    V = sum(x * x for x in es)
    if not (F(1, n * n) <= V <= 1):
        return
    o = frac(R.advanced_odometer(es, [0] * len(es), dg, n, dps=30))
    assert R.advanced_filter_admits(R.EpsStats.of(es), o, dg)


def test_odometer_value_is_not_always_an_admissible_filter_budget():
    """Eq. (18) regime, one round of eps = 5: the filter with eps_g = odometer value refuses (the orderings are not a theorem)."""
    o = frac(R.advanced_odometer([5], [0], "1e-6", 10**4, dps=30))
    assert not R.advanced_filter_admits(R.EpsStats.of([F(5)]), o, F(1, 10**6))


@given(st.lists(st.fractions(min_value=0, max_value=2), min_size=1, max_size=6), st.sampled_from([F(1, 100), F(1, 10**6)]))
def test_odometer_exceeded_is_consistent_with_value(es, dg):
    for kind, params in (("thm6_5", {"n": 100}), ("thm6_5_as_printed", {"n": 100}), ("lemma6_4", {"beta": F(1, 10)}),
                         ("granular", {"gamma": F(1, 10**4)})):
        spec = R.OdometerSpec(kind, delta_g=dg, **params)
        v = frac(spec.value(R.EpsStats.of(es), dps=40))  # >= COMP, within 10^-40 relative
        assert spec.exceeded(v * (1 + F(1, 10**30)), R.EpsStats.of(es))
        assert not spec.exceeded(v * (1 - F(1, 10**30)), R.EpsStats.of(es))
        assert not spec.exceeded(-v * (1 - F(1, 10**30)), R.EpsStats.of(es))
        assert spec.exceeded(math.inf, R.EpsStats.of(es))
        assert not spec.exceeded(math.inf, R.EpsStats.of(es), dg)  # past the delta budget: COMP = inf


# ===========================================================================
# Stateful objects
# ===========================================================================

adv_steps = st.lists(st.tuples(st.sampled_from([F(0), F(1, 100), F(1, 20), F(1, 10), F(3, 10)]),
                               st.sampled_from([F(0), F(0), F(1, 10**7)])), min_size=1, max_size=40)


@given(adv_steps, st.sampled_from([F(1, 2), F(1), F(3)]), st.sampled_from([F(1, 10**6), F(1, 100)]))
@settings(max_examples=20)
def test_advanced_filter_object_matches_closed_forms(steps, eg, dg):
    es, ds = [s[0] for s in steps], [s[1] for s in steps]
    stop = R.advanced_filter_stop_index(es, ds, eg, dg)
    f = AdvancedFilter(eg, dg)
    n = 0
    for e, d in steps:
        if not f.try_run(e, d):
            break
        n += 1
    assert n == stop
    if n:
        assert R.advanced_filter(es[:n], ds[:n], eg, dg) == R.CONT
    if n < len(es):
        assert R.advanced_filter(es[:n + 1], ds[:n + 1], eg, dg) == R.HALT
    g = AdvancedFilter.from_json(f.to_json())
    assert g.history == f.history and all(g.can_run(x) == f.can_run(x) for x in (0, F(1, 100), F(1, 2)))
    if n:
        assert f.K() == R.advanced_filter_K(es[:n], eg, dg)


def test_remaining_max_next_eps_is_tight():
    f = AdvancedFilter(1, "1e-6")
    for _ in range(100):
        f.run("0.01")
    r = f.remaining(dps=20)
    m = frac(r["max_next_eps"])
    assert f.can_run(m) and not f.can_run(m * (1 + F(1, 10**17)))
    assert r["K"] == f.K(dps=20) and r["delta_left"] == F(1, 2 * 10**6)
    p = AdvancedFilterAsPrinted(1, "1e-6")
    assert p.remaining()["max_next_eps"] == 0
    b = BasicFilter("0.3", "1e-6")
    b.run("0.1")
    assert b.remaining() == {"eps_left": F(1, 5), "delta_left": F(1, 10**6), "eps_spent": F(1, 10), "delta_spent": 0}


def test_refusal_leaves_state_unchanged_and_names_the_budget():
    for f, big in ((BasicFilter("0.3", "1e-6"), "0.25"), (AdvancedFilter("1", "1e-3"), "0.8")):
        f.run("0.1")
        before = f.to_json()
        with pytest.raises(BudgetExceeded) as ei:
            f.run(big)
        assert ei.value.step == 2 and ei.value.reasons == ("eps",) and f.to_json() == before
        with pytest.raises(BudgetExceeded) as ei:
            f.run(big, "0.5")
        assert set(ei.value.reasons) == {"eps", "delta"} and f.to_json() == before
        assert not f.try_run(big) and f.to_json() == before
        assert f.can_run("0.0001") and f.to_json() == before


def _all_objects():
    objs = []
    b = BasicFilter("1", "1e-6")
    b.run("0.1"), b.run("0.2", "1e-7"), b.run("0.1")
    a = AdvancedFilter("1", "1e-3", "28.04")
    [a.run("0.05") for _ in range(5)]
    ap = AdvancedFilterAsPrinted("1", "0.01")
    ap.run("0.01")
    bo = BasicOdometer("1e-6")
    bo.record("0.5"), bo.record("0.25")
    lo = Lemma64Odometer("1e-6", "0.01")
    lo.record("0.1"), lo.record("0.2")
    ao = AdvancedOdometer("1e-6", n=1000)
    [ao.record("0.01") for _ in range(7)]
    ag = AdvancedOdometer("1e-6", gamma="1e-9")
    ag.record("0.3")
    aop = AdvancedOdometerAsPrinted("1e-6", n=3)
    aop.record("0.3")
    return [b, a, ap, bo, lo, ao, ag, aop]


def test_odometer_state_with_a_delta_round_is_refused():
    """A saved odometer state whose history holds a delta_i > 0 round is refused on load (errata R16-LEM3-5-LOSS)."""
    from reference.accountants.base import _digest
    bo = BasicOdometer("1e-6")
    bo.record("0.5")
    d = bo.to_dict()
    d["history"] = [["1/2", "1/1000000", 1]]
    d["state"] = dict(d["state"], delta_spent="1/1000000")
    d["digest"] = _digest({k: v for k, v in d.items() if k != "digest"})
    with pytest.raises(ValueError, match="R16-LEM3-5-LOSS"):
        BasicOdometer.from_dict(d)


def test_json_round_trip_and_tampering():
    for o in _all_objects():
        d = json.loads(o.to_json())
        o2 = type(o).from_json(o.to_json())
        assert o2.to_json() == o.to_json() and o2.history == o.history
        if hasattr(o, "value"):
            assert o2.value() == o.value() and o2.exceeded_by(F(1, 3)) == o.exceeded_by(F(1, 3))
        else:
            assert all(o2.can_run(x) == o.can_run(x) for x in ("0", "0.01", "0.3"))
        bad = dict(d, state=dict(d["state"], n=d["state"]["n"] + 1))
        with pytest.raises(ValueError, match="digest"):
            type(o).from_dict(bad)
        with pytest.raises(ValueError):
            type(o).from_json("{not json")
    # a custom-rule combinator writes JSON but cannot be rebuilt
    f = Lemma35Filter(lambda s: s.S <= 1, "1e-6")
    f.run("0.5")
    with pytest.raises(ValueError, match="custom rule"):
        Lemma35Filter.from_json(f.to_json())
    # a history that violates the rule is rejected even with a valid digest
    b = BasicFilter("1", "0")
    b.run("1")
    d = b.to_dict()
    d["params"]["eps_g"] = "1/2"
    from reference.accountants.base import _digest
    d["digest"] = _digest({k: v for k, v in d.items() if k != "digest"})
    with pytest.raises(ValueError, match="not reachable"):
        BasicFilter.from_dict(d)


def test_lemma35_filter_combinator_with_custom_rule():
    f = Lemma35Filter(lambda s: s.V <= 1, "1e-6")
    assert f.run("0.6") == 1 and f.run("0.6") == 2
    assert not f.can_run("0.6")
    assert not f.can_run(0, "2e-6")
    with pytest.raises(TypeError, match="pure_admits"):
        Lemma35Filter(3, 0)
    o = Lemma35Odometer(R.OdometerSpec("lemma6_4", delta_g="1e-6", beta="0.01"))
    o.record("0.1")
    assert o.value() == R.lemma6_4_odometer(["0.1"], [0], "1e-6", "0.01")
    with pytest.raises(TypeError, match="OdometerSpec"):
        Lemma35Odometer("thm6_5")


def test_odometer_objects_match_closed_forms_and_go_infinite():
    ao = AdvancedOdometer("1e-6", n=1000)
    es = []
    for e in ("0.01", "0.2", "0.5", "0.01"):
        ao.record(e)
        es.append(e)
        assert ao.value() == R.advanced_odometer(es, [0] * len(es), "1e-6", 1000)
    hist = ao.values_history()
    assert [h["n"] for h in hist] == [1, 2, 3, 4] and hist[-1]["value"] >= ao.value(dps=20) * (1 - mpmath.mpf(10) ** -18)
    for d in ("5e-7", F(1, 10**30)):  # approximate-DP rounds are refused (errata R16-LEM3-5-LOSS); the state is unchanged
        with pytest.raises(ValueError, match="R16-LEM3-5-LOSS"):
            ao.record(0, d)
    assert ao.n == 4 and not ao.past_budget and ao.value() == R.advanced_odometer(es, [0] * 4, "1e-6", 1000)
    with pytest.raises(ValueError, match="exactly one of n and gamma"):
        AdvancedOdometer("1e-6")
    with pytest.raises(ValueError, match="exactly one of n and gamma"):
        AdvancedOdometer("1e-6", n=10, gamma="0.1")


@pytest.mark.parametrize("make, step", [(lambda: BasicFilter("3", "1e-6"), ("0.01", "1e-9")),
                                        (lambda: AdvancedFilter("1", "1e-3"), ("0.01", 0))])
def test_concurrent_try_run_never_overspends(make, step):
    f, ref = make(), make()
    while ref.try_run(*step):
        pass
    results = []

    def worker():
        k = 0
        while f.try_run(*step):
            k += 1
        results.append(k)

    ts = [threading.Thread(target=worker) for _ in range(8)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert sum(results) == ref.n == f.n and f.to_json() == ref.to_json()


def test_odometer_thread_safety():
    o = AdvancedOdometer("1e-6", n=100)
    ts = [threading.Thread(target=lambda: [o.record("0.01") for _ in range(200)]) for _ in range(5)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert o.n == 1000 and o.V == 1000 * F(1, 10**4)


# ===========================================================================
# Bad inputs, citations, catalog
# ===========================================================================

BAD = [
    (lambda: R.rr_output_distribution(-1, 0, 0), "eps"),
    (lambda: R.rr_output_distribution(1, 2, 0), "delta"),
    (lambda: R.rr_output_distribution(1, 0, 2), "b"),
    (lambda: R.dp_to_pdp_delta(0, "0.1"), "eps"),
    (lambda: R.advanced_composition_eps("0.1", 0, "1e-6"), "k"),
    (lambda: R.advanced_composition_eps("0.1", 10, 1), "delta_hat"),
    (lambda: R.basic_odometer([1], [0], -1), "delta_prime_g"),
    (lambda: R.basic_filter([1, -1], [0, 0], 1, 0), "eps[1]"),
    (lambda: R.basic_filter([1], [1], 1, 0), "delta[0]"),
    (lambda: R.advanced_filter_K([1], 0, "1e-6"), "eps_g"),
    (lambda: R.advanced_filter_K([1], 1, "0.5"), "delta_g"),
    (lambda: R.advanced_filter_K([1], 1, "1e-6", 0), "constant"),
    (lambda: R.lemma6_4_odometer([1], [0], "1e-6", 0), "beta"),
    (lambda: R.advanced_odometer([1], [0], "1e-6", 1), "n"),
    (lambda: R.advanced_odometer([1], [0], "0.4", 10), "delta_g"),
    (lambda: R.advanced_odometer_granular([1], [0], "1e-6", 1), "gamma"),
    (lambda: R.hoeffding_mgf_bound(1, -1), "width"),
    (lambda: R.self_normalized_bound(-1, 1, "0.1"), "B2"),
    (lambda: R.OdometerSpec("nope"), "kind"),
    (lambda: AdvancedFilter(1, "0.37"), "delta_g"),
    (lambda: AdvancedFilter(-1, "0.1"), "eps_g"),
    (lambda: BasicFilter(1, 0).run(-1), "eps_i"),
    (lambda: BasicOdometer(0).record(1, 2), "delta_i"),
    (lambda: Lemma64Odometer("1e-6", -1), "beta"),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_inputs_name_the_parameter(i):
    fn, name = BAD[i]
    with pytest.raises(ValueError) as ei:
        fn()
    assert name in str(ei.value)


def test_every_rogers_entry_cites_and_evaluates_at_defaults():
    ids = [k for k in CATALOG if k.startswith("rogers2016_")]
    assert len(ids) >= 25
    for k in ids:
        e = CATALOG[k]
        first = e.func.__doc__.strip().splitlines()[0]
        assert "rogers2016" in first and any(c["id"] == k for c in e.func.__citations__)
        kwargs = {p.name: p.default for p in e.params if p.default is not None}
        for p in e.params:
            if p.kind == "sequence":
                kwargs[p.name] = kwargs[p.name].split(",")
        v = e.func(**kwargs)
        assert v is not None
    for obj in (R.rr_output_distribution, R.lemma3_5_filter, R.OdometerSpec, BasicFilter, AdvancedOdometer):
        assert obj.__citations__[0]["paper_key"] == "rogers2016"
