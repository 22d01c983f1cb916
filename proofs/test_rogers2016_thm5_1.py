"""rogers2016 (seed 003_05a378efbd63455f.txt) Theorem 5.1 (advanced privacy filter), eq. (12) and the remark on 28.04.

With V = sum eps_i^2, beta = eps_g^2/(28.04 log(1/delta_g)),
    K = sum_j eps_j (e^eps_j - 1)/2 + sqrt(2 (V + beta)(1 + log(V/beta + 1)/2) log(2/delta_g))       (derived form)
and COMP = HALT iff sum delta_i > delta_g/2 or K > eps_g is a valid filter for delta_g in (0, 1/e), eps_g > 0.
Printed eq. (12) has log(2/delta_g) outside the root (ledger R16-EQ12-LOG: valid but loose, vacuous for small
delta_g); the proof's last line drops the /2 (R16-THM5-1-HALF).  Remark: 28.04 is (nearly) the optimal constant for
eps_i = eps, eps_g = eps sqrt(8 k log(1/delta_g)).

Routes: exact enumeration of Algorithm 3 with adaptive adversaries (eps_i changing every round; derived and printed
filter); K against Theorem 4.3 at delta_g/2 with U^2 = 4V plus Lemma 4.4 (110-digit naive formula); the optimal constant
through Lambert W (c* = 8(u* - 1), u* = -W_{-1}(-e^{-3})); long horizons (k ~ 1e9) with exact admits decisions.
Negative control: the filter sqrt(V) <= eps_g is caught.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import rogers2016 as R
from reference.simulate import rogers2016_games as G
from reference.precision import mpf_to_fraction

X = mpf_to_fraction
mp = lambda q: mpmath.mpf(q.numerator) / q.denominator


def K_naive(es, eg, dg, const=F(2804, 100)):
    V = sum(mp(x) ** 2 for x in es)
    L = mpmath.log(1 / mp(dg))
    beta = mp(eg) ** 2 / (mp(const) * L)
    M = sum(mp(x) * mpmath.expm1(mp(x)) / 2 for x in es)
    U2 = 4 * V
    thm43 = mpmath.sqrt((U2 / 4 + beta) * (2 + mpmath.log(U2 / (4 * beta) + 1)) * mpmath.log(2 / mp(dg)))
    return M + thm43


@given(st.lists(st.sampled_from([F(0), F(1, 10**6), F(1, 100), F(1, 3), F(2)]), min_size=1, max_size=8),
       st.sampled_from([F(1, 10), F(1), F(50)]), st.sampled_from([F(1, 10**300), F(1, 10**6), F(36, 100)]))
@example([F(2)] * 8, F(50), F(1, 10**300))
def test_K_is_lemma4_4_plus_theorem4_3_at_half_delta(es, eg, dg):
    """K (derived, rounded up) >= sum eps(e^eps - 1)/2 + Theorem 4.3 radius at (U^2 = 4V, beta, delta_g/2), within 1e-45 relative."""
    k = R.advanced_filter_K(es, eg, dg)
    want = K_naive(es, eg, dg)
    assert want <= k <= want * (1 + mpmath.mpf(10) ** -45)


def _adaptive(k):
    def choose(t):
        if len(t) >= k:
            return None
        tops = sum(r.z == "top" for r in t)
        return ([F(1, 10), F(1, 40), F(3, 20)][(len(t) + tops) % 3], F(0), tops % 2 == 1)
    return G.FunctionAdversary(choose)


@pytest.mark.parametrize("printed", [False, True])
@pytest.mark.parametrize("eg, dg", [(F(1), F(1, 10)), (F(3, 4), F(1, 10))])
def test_filter_is_valid_in_algorithm3_exact(printed, eg, dg):
    """Theorem 5.1: P_{V^0}[|Loss| > eps_g and CONT] <= delta_g in PrivacyFilterComp (exact enumeration, 12 rounds,
    eps_i changing every round with the history; the delta_i are 0, so the bad event is the pure filter's)."""
    f = R.advanced_filter_as_printed if printed else R.advanced_filter
    paths = G.enumerate_views(_adaptive(12), 12, 0, lambda e, d: f(e, d, eg, dg))
    lo, hi = G.probability(paths, lambda p: abs(p.loss) > eg)
    assert X(hi) <= dg
    if not printed:
        assert max(len(p.transcript) for p in paths) >= 2  # the derived filter does admit rounds here


def test_negative_control_sqrt_V_filter_is_caught():
    eg, dg = F(1, 2), F(1, 100)
    adv = G.FixedScheduleAdversary([(F(1, 10), F(0))] * 12)
    paths = G.enumerate_views(adv, 12, 0, lambda e, d: R.CONT if sum(x * x for x in e) <= eg * eg else R.HALT)
    lo, _ = G.probability(paths, lambda p: abs(p.loss) > eg)
    assert X(lo) > dg


def test_delta_budget_half_and_domain():
    """COMP = HALT iff sum delta_i > delta_g/2 (or K > eps_g); delta_g must lie in (0, 1/e)."""
    assert R.advanced_filter([F(1, 100)], [F(1, 200)], 1, F(1, 100)) == R.CONT
    assert R.advanced_filter([F(1, 100)], [F(1, 200) + F(1, 10**40)], 1, F(1, 100)) == R.HALT
    with pytest.raises(ValueError, match="delta_g"):
        R.advanced_filter_K([F(1, 10)], 1, "0.3679")


def test_28_04_is_the_optimal_constant_by_lambert_w():
    """Remark after (12): at eps_i = eps, eps_g = eps sqrt(8 k L) the root of K is eps sqrt(2 k g(c) log(2/delta_g)) with
    g(c) = (1 + 8/c)(1 + log(1 + c/8)/2); g is minimised at c* = 8(u* - 1), u* = -W_{-1}(-e^{-3}) = 4.505..., c* = 28.0418..."""
    u = -mpmath.lambertw(-mpmath.exp(-3), -1).real
    cstar = 8 * (u - 1)
    assert abs(R.optimal_constant() - cstar) < mpmath.mpf(10) ** -45
    assert abs(cstar - mpmath.mpf("28.04")) < mpmath.mpf("0.002")
    g = lambda c: (1 + 8 / c) * (1 + mpmath.log(1 + c / 8) / 2)
    assert g(cstar) <= g(mpmath.mpf("28.04")) <= g(cstar) * (1 + mpmath.mpf(10) ** -7)
    assert g(cstar) < g(cstar * mpmath.mpf("0.99")) and g(cstar) < g(cstar * mpmath.mpf("1.01"))
    assert R.constant_objective("28.04") >= g(mpmath.mpf("28.04"))
    # the reduction: K's root at that point, for some (eps, k, delta_g)
    e, k, dg = F(1, 100), 50, F(1, 10**6)
    L = mpmath.log(10**6)
    eg = X(mp(e) * mpmath.sqrt(8 * k * L))
    root = R.advanced_filter_K([e] * k, eg, dg) - k * mp(e) * mpmath.expm1(mp(e)) / 2
    assert abs(root - mp(e) * mpmath.sqrt(2 * k * g(mpmath.mpf("28.04")) * mpmath.log(2 / mp(dg)))) < mpmath.mpf(10) ** -25


@given(st.sampled_from([F(1, 10**5), F(1, 10**4), F(1, 1000)]), st.sampled_from([F(1, 10**300), F(1, 10**6)]))
@example(F(1, 10**5), F(1, 10**300))
def test_long_horizons_and_same_order_as_advanced_composition(e0, dg):
    """K is increasing in k; the filter admits k* rounds with K(k*) <= eps_g < K(k* + 1) (exact decisions, k* up to ~1e9),
    and k* is within a constant factor (between 1/16 and 1) of the rounds advanced composition (Thm 2.10) allows."""
    eg = F(1)
    k = R.advanced_filter_rounds_homogeneous(e0, 0, eg, dg)
    assert R.advanced_filter_admits(R.EpsStats({e0: k}), eg, dg) and not R.advanced_filter_admits(R.EpsStats({e0: k + 1}), eg, dg)
    # rounds allowed by Theorem 2.10 at delta_hat = delta_g: eps(e^eps - 1)k + eps sqrt(2 k L) <= 1
    E, L = mp(e0), mpmath.log(1 / mp(dg))
    f = lambda kk: E * mpmath.expm1(E) * kk + E * mpmath.sqrt(2 * kk * L) - 1
    kadv = mpmath.findroot(f, 1 / (2 * L * E * E))
    assert kadv / 16 <= k <= kadv
