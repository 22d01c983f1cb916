"""rogers2016 (seed 003_05a378efbd63455f.txt) Theorem 2.10 (advanced composition, DRV10 form as printed) and the
advanced-composition numbers of Section 1 and footnote 2.

k rounds of (eps, delta) fixed in advance satisfy (eps_g, delta_g)-DP under adaptive composition with
    eps_g = eps (e^eps - 1) k + eps sqrt(2 k log(1/delta_hat)),   delta_g = k delta + delta_hat.
Section 1: (eps sqrt(8 k ln(1/delta)), delta) "provided eps is sufficiently small"; the remark after Theorem 5.1 makes
this precise: if k eps^2 <= 1/(8 log(1/delta_g)) then Theorem 2.10 gives eps sqrt(8 k log(1/delta_g)).
Footnote 2: for heterogeneous eps_i, eps sqrt(k) becomes sqrt(sum eps_i^2) (and eps k becomes sum eps_i).

Routes: the optimal composition of Kairouz-Oh-Viswanath (exact hockey-stick of the binomial law, rounded up) for
long horizons and tiny delta_hat; exact enumeration of adaptive swap adversaries (heterogeneous, footnote 2).
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import classical as K
from reference.bounds import rogers2016 as R
from reference.simulate import rogers2016_games as G
from reference.precision import mpf_to_fraction

X = mpf_to_fraction
mp = lambda q: mpmath.mpf(q.numerator) / q.denominator


@given(st.sampled_from([F(1, 10**4), F(1, 100), F(1, 10), F(1, 2), F(2)]),
       st.sampled_from([1, 3, 100, 10**4, 10**5]),
       st.sampled_from([F(0), F(1, 10**300), F(1, 10**8)]),
       st.sampled_from([F(1, 10**300), F(1, 10**12), F(1, 10), F(1, 2)]))
@example(F(1, 10**4), 10**5, F(1, 10**300), F(1, 10**300))
@example(F(2), 1, F(0), F(1, 2))
def test_advanced_composition_against_optimal_composition(e, k, d, dh):
    """Theorem 2.10: delta_opt(eps_g) <= k delta + delta_hat for eps_g = eps(e^eps - 1)k + eps sqrt(2k log(1/delta_hat))
    (the library's eps_g is rounded up, which only lowers delta_opt; KOV's delta is rounded up: one-sided)."""
    eg = X(R.advanced_composition_eps(e, k, dh, dps=30))
    bound = mpmath.mpf(k) * mp(d) + mp(dh)
    assert K.kov_delta(e, d, k, eg, dps=30) <= bound * (1 + mpmath.mpf(10) ** -25)
    assert X(R.advanced_composition_delta(d, k, dh)) >= k * d + dh


@given(st.integers(1, 10**9), st.sampled_from([F(1, 10**300), F(1, 10**6), F(1, 3)]), st.fractions(F(1, 100), 1, max_denominator=100))
@example(10**9, F(1, 10**300), F(1))
@example(1, F(1, 3), F(1))
def test_remark_eps_sqrt_8k_log_in_the_small_eps_regime(k, dg, frac):
    """Remark after Theorem 5.1: k eps^2 <= 1/(8 log(1/delta_g))  ==>  eps(e^eps - 1)k + eps sqrt(2k log(1/delta_g)) <= eps sqrt(8k log(1/delta_g)).

    eps is taken at the fraction `frac` of the largest allowed value (110-digit evaluation, the inequality is strict)."""
    L = -mpmath.log(mp(dg))
    e = mp(frac) * mpmath.sqrt(1 / (8 * L * k))
    lhs = e * mpmath.expm1(e) * k + e * mpmath.sqrt(2 * k * L)
    assert lhs < e * mpmath.sqrt(8 * k * L)
    # with a rational eps just inside the regime the library's certified eps_g agrees
    eq = X(e * (1 - mpmath.mpf(10) ** -30))
    assert R.advanced_composition_eps(eq, k, dg, dps=40) <= mp(eq) * mpmath.sqrt(8 * k * L)


@given(st.lists(st.sampled_from([F(1, 20), F(1, 10), F(1, 4), F(1, 2)]), min_size=2, max_size=7),
       st.sampled_from([F(1, 10), F(1, 3), F(1, 2)]))
@example([F(1, 2), F(1, 20), F(1, 2), F(1, 20), F(1, 2), F(1, 20), F(1, 2)], F(1, 10))
def test_footnote2_heterogeneous_advanced_composition_exact(es, dh):
    """Footnote 2: hetero eps_i fixed in advance: eps_g = sum eps_i(e^eps_i - 1) + sqrt(2 sum eps_i^2 log(1/delta_hat))
    gives hockey-stick(V^0 || V^1) <= delta_hat (exact enumeration, adaptive swaps; eps_g rounded up)."""
    def choose(t):
        i = len(t)
        return None if i == len(es) else (es[i], 0, bool(t) and t[-1].z == "top")

    adv = G.FunctionAdversary(choose)
    V = sum(x * x for x in es)
    eg = X(sum(mp(x) * mpmath.expm1(mp(x)) for x in es) + mpmath.sqrt(2 * mp(V) * mpmath.log(1 / mp(dh)))) + F(1, 10**60)
    lo, hi = G.hockey_stick(G.enumerate_views(adv, len(es), 0), eg)
    assert X(hi) <= dh
