"""rogers2016 (seed 003_05a378efbd63455f.txt) Theorem 3.6 (basic composition with adaptively chosen parameters).

Odometer: COMP = inf if sum_i delta_i > delta'_g, else sum_i eps_i, is valid with failure delta'_g:
P_{V^0}[|Loss| > COMP] <= delta'_g; with all delta_i = 0 the loss never exceeds sum_i eps_i (|Loss| <= sum eps_i(v_{<i}) on
every view, the proof's display).
Filter: HALT if sum_i delta_i > delta_g or sum_i eps_i > eps_g, else CONT, is valid for (eps_g, delta_g).  The print
has delta'_g in the filter's rule (ledger R16-THM3-6-DELTA, with its exact counterexample); read as delta_g it holds.

Routes: exact enumeration of hypothesis-generated adaptive adversaries (parameters changing every round, swaps,
delta-spending), per-view exact comparisons.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import rogers2016 as R
from reference.simulate import rogers2016_games as G
from reference.precision import mpf_to_fraction
from test_rogers2016_definitions import codes_st, table_adversary

X = mpf_to_fraction

pure_codes = st.lists(st.sampled_from([0, 1, 3, 5, 7]), min_size=1, max_size=6)


@given(pure_codes, st.integers(1, 6))
@example([7, 3, 7], 6)
def test_pure_odometer_bounds_every_view(codes, k):
    """Proof of Theorem 3.6: delta_i = 0  ==>  |Loss(v)| <= sum_i eps_i(v_{<i}) for every view v (exact)."""
    adv = table_adversary(codes, k)
    for p in G.enumerate_views(adv, k, 0):
        assert abs(p.loss) <= sum(p.transcript.eps)
        assert not R.odometer_exceeded(p.loss, p.transcript.eps, p.transcript.delta, "basic", delta_prime_g=0)


@given(codes_st, st.sampled_from([F(0), F(1, 50), F(1, 10)]))
def test_odometer_with_deltas_fails_with_probability_at_most_delta_prime(codes, dpg):
    """Theorem 3.6 (odometer): P_{V^0}[|Loss| > COMP_{delta'_g}] <= delta'_g (exact enumeration)."""
    adv = table_adversary(codes, 4)
    paths = G.enumerate_views(adv, 4, 0)
    lo, hi = G.probability(paths, lambda p: R.odometer_exceeded(p.loss, p.transcript.eps, p.transcript.delta, "basic", delta_prime_g=dpg))
    assert X(lo) <= dpg and X(hi) <= dpg + F(1, 10**55)
    # the closed form is the exact sum (rounded up) or inf past the budget
    for p in paths[:20]:
        v = R.basic_odometer(p.transcript.eps or (0,), p.transcript.delta or (0,), dpg, lemma3_5_as_printed=True)
        assert v == math.inf if p.transcript.delta_sum > dpg else X(v) >= sum(p.transcript.eps)


@given(codes_st, st.sampled_from([F(1, 2), F(1), F(3)]), st.sampled_from([F(0), F(1, 50), F(1, 10)]))
def test_filter_bad_event_at_most_delta_g(codes, eg, dg):
    """Theorem 3.6 (filter, delta'_g read as delta_g): P[|Loss| > eps_g and CONT] <= delta_g in Algorithm 3 (exact)."""
    adv = table_adversary(codes, 5)
    paths = G.enumerate_views(adv, 5, 0, lambda e, d: R.basic_filter(e, d, eg, dg))
    lo, hi = G.probability(paths, lambda p: p.loss == math.inf or abs(p.loss) > eg)
    assert X(lo) <= dg and X(hi) <= dg + F(1, 10**55)
