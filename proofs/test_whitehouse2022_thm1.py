"""Theorem 1 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version): closed-form claims, eq. (2),
Informal Theorem 1 and Figure 1a.  The exact DP check on adaptive randomized response is in
``test_whitehouse2022_thm1_exact.py``; here with step deltas as well.

Statement (our words): with A_n (eps_n, delta_n)-DP conditioned on A_{1:n-1}, eps > 0, delta = delta' + delta''
(delta' > 0, delta'' >= 0) and

    N = inf{n : eps < sqrt(2 log(1/delta') sum_{m<=n+1} eps_m^2) + (1/2) sum_{m<=n+1} eps_m^2
                or delta'' < sum_{m<=n+1} delta_m},

A_{1:N} is (eps, delta)-DP.  Remarks checked: with parameters fixed in advance it recovers advanced composition
eq. (2) up to the lower-order term, since eps_m tanh(eps_m/2) <= eps_m^2/2 (Figure 1a); the decision at time n
uses only parameters known at time n; the last step can be chosen to meet the rule with equality.

Second routes: 200-digit evaluation of the stopping rule, exact binomial enumeration of n-fold randomized
response for eq. (2), the exact adaptive enumerator of test_whitehouse2022_definitions for the DP claim.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, strategies as st

from reference.bounds import whitehouse2023 as W
from reference.accountants.whitehouse2023 import BudgetExceeded, DPFilter
from reference.precision import mpf_to_fraction
from test_whitehouse2022_definitions import hockey_of_stopped, q2m, rr_enumerate

dp_st = st.sampled_from([F(1, 2), F(1, 10), F(1, 10**6), F(1, 10**50), F(1, 10**300)])
eps_seq = st.lists(st.fractions(min_value=0, max_value=2, max_denominator=1000), min_size=1, max_size=40)
delta_seq = st.lists(st.sampled_from([F(0), F(1, 10**9), F(1, 10**7), F(1, 10**300)]), min_size=40, max_size=40)


def f_hp(V: F, dp: F) -> mpmath.mpf:
    """sqrt(2 log(1/delta') V) + V/2 at the current precision (second route)."""
    return mpmath.sqrt(2 * -mpmath.log(q2m(dp)) * q2m(V)) + q2m(V) / 2


@given(eps_seq, delta_seq, st.fractions(min_value=F(1, 100), max_value=20), dp_st,
       st.sampled_from([F(0), F(1, 10**8), F(1, 10**6)]))
@example([F(1, 10)] * 40, [F(1, 10**7)] * 40, F(1), F(1, 10**6), F(1, 10**6))
@example([F(2), F(0)], [F(0)] * 40, F(1, 100), F(1, 10**300), F(0))
def test_stopping_rule_as_printed_vs_200_digit_brute_force(es, ds, et, dp, dpp):
    """N = inf{n: eps < sqrt(2 L V_{n+1}) + V_{n+1}/2 or delta'' < sum_{m<=n+1} delta_m}, parameters changing every step."""
    ds = ds[: len(es)]
    expected = len(es)
    V, S = F(0), F(0)
    with mpmath.workdps(200):
        for n, (e, d) in enumerate(zip(es, ds)):
            V, S = V + e * e, S + d
            if q2m(et) < f_hp(V, dp) or dpp < S:
                expected = n
                break
    assert W.filter_stop_index(es, ds, et, dp, dpp) == expected
    f = DPFilter(et, dp, dpp)
    ran = 0
    for e, d in zip(es, ds):
        if not f.try_run(e, d):
            break
        ran += 1
    assert ran == expected


@pytest.mark.parametrize("e0, et, dp", [("1e-5", 1, "1e-6"), ("3e-6", 1, "1e-6"), ("1e-6", 10, "1e-300"), ("0.01", "0.5", "0.5")])
def test_rounds_for_homogeneous_workloads_up_to_1e9_and_beyond(e0, et, dp):
    """K = max{k: sqrt(2 L k eps0^2) + k eps0^2/2 <= eps}: f(K eps0^2) <= eps < f((K+1) eps0^2) at 100 digits (K up to ~1e13)."""
    K = W.filter_rounds_homogeneous(e0, 0, et, dp, 0)
    e0q, dpq, etq = F(e0), F(dp), F(et)
    assert f_hp(K * e0q**2, dpq) <= q2m(etq) < f_hp((K + 1) * e0q**2, dpq)
    # second route: K = floor(y*/eps0^2) up to the boundary case
    ys = mpf_to_fraction(W.y_star(etq, dpq, dps=60))
    assert abs(K - int(ys / e0q**2)) <= 1


def test_rounds_count_example_1e9():
    """A 10^9-scale horizon: eps0 = 3e-6, eps = 1, delta' = 1e-6 admits K ~ 3.9e9 rounds; with delta_n = 1e-19 and
    delta'' = 1e-10 the delta budget caps it at exactly 10^9."""
    K = W.filter_rounds_homogeneous("3e-6", 0, 1, "1e-6", 0)
    assert 3 * 10**9 < K < 4 * 10**9
    assert W.filter_rounds_homogeneous("3e-6", "1e-19", 1, "1e-6", "1e-10") == 10**9


@given(st.lists(st.fractions(min_value=0, max_value=3, max_denominator=200), min_size=1, max_size=12), dp_st)
@example([F(3)] * 12, F(1, 10**300))
def test_recovers_advanced_composition_up_to_lower_order_terms(es, dp):
    """Fixed parameters: eps_Thm1 = sqrt(2 L V) + V/2 >= eq. (2) eps = sqrt(2 L V) + sum eps_m tanh(eps_m/2), and the gap
    sum (eps_m^2/2 - eps_m tanh(eps_m/2)) lies in [0, sum eps_m^4/24]."""
    V = sum(x * x for x in es)
    thm1 = W.filter_spent(V, dp)
    adv = W.advanced_composition_eps(es, dp)
    gap = sum(q2m(x) ** 2 / 2 - q2m(x) * mpmath.tanh(q2m(x) / 2) for x in es)
    assert thm1 >= adv - mpmath.mpf(10) ** -45 * adv
    assert abs((thm1 - adv) - gap) <= mpmath.mpf(10) ** -44 * (1 + thm1)
    assert gap >= 0 and gap <= sum(q2m(x) ** 4 for x in es) / 24 + mpmath.mpf(10) ** -100


@given(st.fractions(min_value=0, max_value=1000))
@example(F(0))
@example(F(1, 10**100))
@example(F(1000))
def test_figure_1a_lower_order_term_inequality(e):
    """Figure 1a / Section 1.2: eps (e^eps - 1)/(e^eps + 1) <= eps^2/2; gap eps^2/2 - eps tanh(eps/2) in [0, eps^4/24]."""
    gap = W.lower_order_gap(e)
    with mpmath.workdps(1000):  # eps^4/24 ~ 1e-402 at eps = 1e-100 needs this many digits
        ee = q2m(e)
        em1 = mpmath.expm1(ee)
        printed_lhs = ee * em1 / (em1 + 2)  # = eps (e^eps - 1)/(e^eps + 1)
        assert printed_lhs <= ee**2 / 2
        naive = ee**2 / 2 - printed_lhs
        assert naive >= 0 and naive <= ee**4 / 24
        assert abs(gap - naive) <= mpmath.mpf(10) ** -45 * abs(naive) + mpmath.mpf(10) ** -50 * (ee**4 if ee < 1 else 1)


def test_figure_1a_gap_is_negligible_for_small_eps():
    """'negligible for small eps': relative gap (eps^2/2 - eps tanh(eps/2))/(eps^2/2) <= eps^2/12 (below 1% for eps <= 0.34)."""
    for e in (F(1, 100), F(1, 10), F(34, 100), F(1)):
        rel = W.lower_order_gap(e) / (q2m(e) ** 2 / 2)
        assert rel <= q2m(e) ** 2 / 12 + mpmath.mpf(10) ** -40
    assert W.lower_order_gap(F(34, 100)) / (q2m(F(34, 100)) ** 2 / 2) < mpmath.mpf("0.01")


def test_intro_rate_is_sqrt_n_times_eps_m():
    """Section 1: for n equal small eps_m, eq. (2) gives eps ~ sqrt(2 n log(1/delta')) eps_m = O(sqrt(n) eps_m); the
    printed O(sqrt(n eps_m)) is not the rate (ratio to sqrt(n eps_m) -> 0, ledger W22-INTRO-RATE)."""
    n, dp = 10**4, F(1, 10**6)
    L = -mpmath.log(q2m(dp))
    for e0 in (F(1, 10**5), F(1, 10**7), F(1, 10**9)):
        eq2 = mpmath.sqrt(2 * L * n * q2m(e0) ** 2) + n * q2m(e0) * mpmath.tanh(q2m(e0) / 2)
        assert abs(eq2 / (mpmath.sqrt(n) * q2m(e0)) - mpmath.sqrt(2 * L)) < mpmath.mpf("0.01")
    small = lambda e0: (mpmath.sqrt(2 * L * n) * q2m(e0)) / mpmath.sqrt(n * q2m(e0))
    assert small(F(1, 10**7)) < small(F(1, 10**3)) / 90


@given(st.fractions(min_value=F(1, 100), max_value=100), dp_st, st.fractions(min_value=0, max_value=1))
@example(F(1), F(1, 10**6), F(1, 2))
@example(F(100), F(1, 10**300), F(0))
def test_last_step_can_meet_the_rule_with_equality(e, dp, t):
    """'a user can choose eps_N to exactly meet the condition': after spending V = t y*, max_next_eps = sqrt(y* - V)
    (rounded down) is admitted, leaves f(V_N) within 1e-40 of eps, and anything above the exact value is refused."""
    ys = mpf_to_fraction(W.y_star(e, dp, dps=80))
    f = DPFilter(e, dp)
    first = F(int(t * ys * 10**30), 10**30)
    if first > 0:
        f.run(mpf_to_fraction(mpmath.sqrt(q2m(first))) * F(999999, 1000000))
    nxt = mpf_to_fraction(f.remaining(dps=60)["max_next_eps"])
    assert f.can_run(nxt)
    assert not f.can_run(nxt + F(1, 10**20))
    f.run(nxt)
    spent = f_hp(f.V, dp)
    assert spent <= q2m(e) and q2m(e) - spent <= mpmath.mpf(10) ** -40 * q2m(e)


# ---- eq. (2) against an exact computation ----------------------------------------------------------

@pytest.mark.parametrize("n, e0, dp", [(50, F(1, 10), F(1, 10**3)), (200, F(1, 20), F(1, 10**6)), (30, F(1, 2), F(1, 10))])
def test_eq2_advanced_composition_holds_for_n_fold_rr(n, e0, dp):
    """eq. (2): n-fold eps0-RR (fixed parameters) is (eps_eq2, delta')-DP; hockey-stick by exact binomial sum."""
    eps = W.advanced_composition_eps([e0] * n, dp)
    p = 1 / (1 + mpmath.exp(-q2m(e0)))
    H = mpmath.mpf(0)
    for k in range(n + 1):
        loss = (2 * k - n) * q2m(e0)
        if loss > eps:
            H += mpmath.binomial(n, k) * p**k * (1 - p) ** (n - k) * (1 - mpmath.exp(eps - loss))
    assert H <= q2m(dp)
    assert W.advanced_composition_delta([F(1, 10**9)] * 3, dp) >= q2m(dp + F(3, 10**9))


# ---- the DP claim with step deltas: exact enumeration of conditional (eps_n, delta_n)-RR ----------

EPS, DP, DPP = F(1), F(1, 5), F(1, 20)
DELTA_ADVERSARIES = {
    "delta_when_ahead": lambda loss, V, S, n: (F(1, 5), F(1, 100)) if loss > 0 else (F(1, 10), F(0)),
    "spend_delta_early": lambda loss, V, S, n: (F(1, 10), F(1, 60)) if n < 3 else (F(3, 20), F(0)),
    "big_then_small": lambda loss, V, S, n: (F(2, 5), F(1, 40)) if n == 0 else (F(1, 20), F(0)),
}


@pytest.mark.parametrize("name", sorted(DELTA_ADVERSARIES))
def test_filter_is_eps_delta_dp_with_step_deltas(name):
    """sup_G P(A_{1:N}(x) in G) - e^eps P(A_{1:N}(x') in G) <= delta' + delta'' for adaptive (eps_n, delta_n)-RR."""
    res = rr_enumerate(DELTA_ADVERSARIES[name], 80,
                       admit=lambda V, S, n: S <= DPP and W.filter_admits(V, EPS, DP))
    assert hockey_of_stopped(res, EPS) <= q2m(DP + DPP)


def test_negative_control_dropping_the_concentration_term_is_caught():
    """A rule keeping only V/2 <= eps (no sqrt(2 L V) term) is not an (eps, delta)-filter: hockey-stick > delta' + delta''."""
    res = rr_enumerate(lambda loss, V, S, n: (F(1, 5), F(0)), 200, admit=lambda V, S, n: V / 2 <= EPS)
    assert hockey_of_stopped(res, EPS) > q2m(DP + DPP)


def test_theorem1_bad_inputs():
    with pytest.raises(ValueError, match="delta_prime"):
        W.filter_stop_index([1], [0], 1, 0, 0)
    with pytest.raises(ValueError, match="eps_target"):
        W.filter_stop_index([1], [0], 0, "0.1", 0)
    with pytest.raises(ValueError, match="delta_second"):
        DPFilter(1, "0.1", 1)
    with pytest.raises(BudgetExceeded):
        DPFilter(1, "0.1").run(2)
