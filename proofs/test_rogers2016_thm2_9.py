"""rogers2016 (seed 003_05a378efbd63455f.txt) Theorem 2.9 (basic composition, DMNS06 / DKMMN06).

Parameters eps_1..eps_k, delta_1..delta_k fixed in advance satisfy (eps_g, delta_g)-DP under adaptive composition
(Definition 2.8) with eps_g = sum_i eps_i and delta_g = sum_i delta_i, i.e. for every adversary of FixedParamComp,
sup_S P[V^0 in S] - e^{eps_g} P[V^1 in S] <= delta_g.

Routes: exact enumeration of FixedParamComp over RR (worst case by Theorem 2.7 / Lemma 3.4) with adaptive dataset
swaps; Kairouz-Oh-Viswanath's optimal composition (kairouz2015_thm3_3_delta) for homogeneous parameters at long
horizons; exact rational sums for the closed forms.
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
PAIR = st.tuples(st.sampled_from([F(0), F(1, 10), F(1, 3), F(1), F(2)]), st.sampled_from([F(0), F(1, 10**300), F(1, 100), F(1, 7)]))


@given(st.lists(PAIR, min_size=1, max_size=4), st.integers(0, 15))
@example([(F(2), F(1, 7))] * 4, 5)
def test_basic_composition_exact_on_adaptive_fixed_parameter_games(sched, swaps):
    """Theorem 2.9: hockey-stick(V^0 || V^1) at eps_g = sum eps_i is <= delta_g = sum delta_i (exact enumeration;
    the adversary swaps the neighbouring datasets adaptively, as coded by `swaps`)."""
    def choose(t):
        i = len(t)
        if i == len(sched):
            return None
        swap = bool((swaps >> i) & 1) ^ (bool(t) and t[-1].z == "bot")
        return sched[i] + (swap,)

    adv = G.FunctionAdversary(choose)
    paths = G.enumerate_views(adv, len(sched), 0)
    eg = sum(e for e, _ in sched)
    dg = sum(d for _, d in sched)
    lo, hi = G.hockey_stick(paths, eg)
    assert X(lo) <= dg and X(hi) <= dg + F(1, 10**55)
    # the library's closed forms are the exact sums
    assert X(R.basic_composition_eps([e for e, _ in sched])) >= eg
    assert X(R.basic_composition_eps([e for e, _ in sched])) <= eg + eg / 10**49
    assert X(R.basic_composition_delta([d for _, d in sched])) >= dg


@given(st.sampled_from([F(1, 10**6), F(1, 1000), F(1, 10), F(1), F(5), F(1000)]),
       st.sampled_from([F(0), F(1, 10**300), F(1, 10**9), F(1, 1000)]),
       st.sampled_from([1, 2, 10, 1000, 10**5, 10**6]))
@example(F(1000), F(1, 10**300), 10**6)
def test_basic_composition_against_kov_optimal_composition(e0, d0, k):
    """Theorem 2.9 (homogeneous): the optimal delta of k-fold (eps0, delta0) composition at eps = k eps0
    (kairouz2015, rounded up) is <= k delta0."""
    assert K.kov_delta(e0, d0, k, k * e0, dps=30) <= mpmath.mpf(k) * (mpmath.mpf(d0.numerator) / d0.denominator) * (1 + mpmath.mpf(10) ** -25) \
        or d0 == 0 and K.kov_delta(e0, d0, k, k * e0, dps=30) == 0
